"""The examples of the README and docs/: their fenced blocks, the commands in a shell
block, and the placeholders a reader fills from the answers before (the rule the README's
quickstart and docs/HANDOFFS.md, "How to read the examples", state)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
ID = re.compile(r'"((?:thr|run|pth|hnd)_)\.\.\."')
FIELD = re.compile(r'"<(\w+)>"')
# The docs pages whose GraphQL examples run (tests/integration/test_readme.py), in this
# order, on one service: a page may go on from the one before it.
PAGES = ["HANDOFFS.md", "ANALYSIS.md", "SUMMARIES.md", "STEERING.md"]


@dataclass(frozen=True)
class Block:
    language: str
    text: str


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page, in order."""
    return [Block(lang, text) for lang, text in FENCE.findall(page.read_text())]


def commands(block: str) -> list[str]:
    """A shell block's commands, one a line (a line ending in a backslash goes on)."""
    joined = re.sub(r"\\\n\s*", "", block)
    return [line.strip() for line in joined.splitlines() if line.strip()]


def strings(value: Any, key: str = "") -> list[tuple[str, str]]:
    """(field, text) of every string in an answer, in document order."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in strings(v, k)]
    if isinstance(value, list):
        return [pair for item in value for pair in strings(item, key)]
    return [(key, value)] if isinstance(value, str) else []


class Pasted:
    """What a reader has seen so far: the latest id of each kind, the latest field values."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.fields: dict[str, str] = {}

    def saw(self, answer: dict[str, Any]) -> None:
        for key, text in strings(answer):
            self.fields[key] = text
        for prefix in ("thr_", "run_", "pth_", "hnd_"):
            found = [text for _, text in strings(answer) if text.startswith(prefix)]
            if found:
                self.ids[prefix] = found[-1]

    def fill(self, block: str) -> str:
        def id_of(match: re.Match[str]) -> str:
            assert match.group(1) in self.ids, f"no {match.group(1)} id before:\n{block}"
            return f'"{self.ids[match.group(1)]}"'

        def field(match: re.Match[str]) -> str:
            assert match.group(1) in self.fields, f"no {match.group(1)} before:\n{block}"
            return f'"{self.fields[match.group(1)]}"'

        return FIELD.sub(field, ID.sub(id_of, block))


def section(page: Path, heading: str) -> str:
    """A section's text, from its heading line to the next heading of its level or above."""
    text = page.read_text()
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(f"\n{heading}\n") + 1
    ends = [
        match.start() + 1
        for match in re.finditer(r"\n(#+) ", text[start + len(heading) :])
        if len(match.group(1)) <= level
    ]
    end = start + len(heading) + ends[0] if ends else len(text)
    return text[start:end]
