"""What an importer reads out of a session file, whatever its format: the session, and one
run per request the person typed, with its items. Also the reading of the file's lines, and
the key of a tool's output: what it answers (docs/MODEL.md "Session import")."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.errors import invalid
from graph.models import RunItem, RunItemKind

OUTPUT_LIMIT = 2000  # characters of a tool's output kept in its TOOL_OUTPUT item


@dataclass
class Step:
    """An item while its run is read: a command's outcome arrives lines after its call."""

    kind: RunItemKind
    text: str
    key: str | None = None
    path: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)

    def item(self) -> RunItem:
        return RunItem(
            kind=self.kind,
            text=self.text,
            key=self.key,
            path=self.path,
            attributes=self.attributes or None,
        )


@dataclass
class ImportedRun:
    input: str
    startedAt: datetime | None
    line: int = 0  # the file's line (1-based) where its request is
    completedAt: datetime | None = None
    model: str | None = None
    steps: list[Step] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        """The same request at the same instant: the same run, in any copy of the file."""
        when = self.startedAt.isoformat() if self.startedAt else ""
        return hashlib.sha256(f"{when}\n{self.input}".encode()).hexdigest()[:32]

    def items(self) -> list[RunItem]:
        return [step.item() for step in self.steps]

    def seen(self, at: datetime | None) -> None:
        if at is not None:
            self.completedAt = at


@dataclass
class ParsedSession:
    sessionId: str
    provider: str
    cwd: str | None
    runs: list[ImportedRun]


def output_key(tool: str, answers: str | None) -> str | None:
    """The key of a tool's output: the tool and what the output answers, the call's own id
    or the resource a read tool reads (`Read:src/app.py`). A later output supersedes it only
    when it answers the same call or reads the same resource again, never merely because
    the same tool ran again (a failing test run's output stays material beside the passing
    one). None when the file names neither: then nothing supersedes it. Keys of this kind
    always hold a colon; those imported before held the tool's name alone."""
    return f"{tool}:{answers}" if answers else None


class Reader:
    """What a reader keeps while it reads a file: the line it is on, the session, its runs,
    and the tool calls still waiting for their output (by call id: the key their output
    gets, and the step it completes)."""

    def __init__(self) -> None:
        self.number = 0
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.runs: list[ImportedRun] = []
        self.calls: dict[str, tuple[str | None, Step | None]] = {}

    @property
    def current(self) -> ImportedRun | None:
        return self.runs[-1] if self.runs else None

    def seen(self, at: datetime | None) -> ImportedRun | None:
        """The current run, which a line at `at` belongs to; None before anything was asked."""
        run = self.current
        if run is not None:
            run.seen(at)
        return run

    def request(self, text: str, at: datetime | None, model: str | None = None) -> None:
        """The person asked `text`: a new run (the first also holds it as the goal)."""
        run = ImportedRun(input=text, startedAt=at, line=self.number, completedAt=at, model=model)
        if not self.runs:
            run.steps.append(Step(RunItemKind.USER_GOAL, text))
        self.runs.append(run)

    def read(self, line: dict[str, Any]) -> None:
        raise NotImplementedError

    def foreign(self, line: dict[str, Any]) -> str | None:
        """The other format's name when `line` is one of its lines, else None."""
        raise NotImplementedError

    def parse(self, content: str, provider: str, missing: str) -> ParsedSession:
        """Every line of `content` read in order; a line of the other format stops it
        (INVALID_INPUT naming the line and that format), as does no session id (`missing`)."""
        for number, line in json_lines(content):
            other = self.foreign(line)
            if other is not None:
                raise invalid(f"Line {number} looks like a {other}, not this format.")
            self.number = number
            self.read(line)
        if self.session_id is None:
            raise invalid(missing)
        return ParsedSession(self.session_id, provider, self.cwd, self.runs)


def json_lines(content: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each non-blank line as a JSON object, with its 1-based number; a line that is not
    one is INVALID_INPUT naming it (nothing of the file is imported)."""
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise invalid(f"Line {number} is not valid JSON: {error.msg}.") from error
        if not isinstance(value, dict):
            raise invalid(f"Line {number} is not a JSON object.")
        yield number, value


def timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def relative(path: str, cwd: str | None) -> str:
    """A path inside the session's working directory, relative to it."""
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path


def trimmed(text: str, limit: int = OUTPUT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def line_count(text: str) -> int:
    return len(text.splitlines()) if text else 0


def mapping(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one: a file's lines are not trusted."""
    return value if isinstance(value, dict) else {}


def listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
