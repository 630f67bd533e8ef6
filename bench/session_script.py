"""What a generated session holds (bench/sessions.py): requests, each followed by what the
agent did: messages, reasoning, shell commands and their output, file reads, edits and new
files, todo lists. Format-free: `bench.session_files` writes it as each provider does."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Say:
    text: str


@dataclass(frozen=True)
class Think:
    text: str


@dataclass(frozen=True)
class Shell:
    command: str
    output: str
    exit_code: int


@dataclass(frozen=True)
class Read:
    path: str
    text: str


@dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Write:
    path: str
    text: str


@dataclass(frozen=True)
class Todos:
    items: tuple[tuple[str, str], ...]  # (what, status: pending | in_progress | completed)


Step = Say | Think | Shell | Read | Edit | Write | Todos


@dataclass(frozen=True)
class Request:
    text: str
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Session:
    name: str
    provider: str  # "claude" (Claude Code) or "codex"
    session_id: str
    cwd: str
    model: str
    started: datetime
    requests: tuple[Request, ...]
