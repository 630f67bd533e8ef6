"""A large session file in pieces that each fit a request: the lines before the first
request (the session's own), then whole runs, in order. Each piece imports as a longer
copy would: the runs of the pieces before it are already there, its own are appended."""

from __future__ import annotations

from itertools import pairwise

from resolvers.imports.session import ParsedSession


def pieces(content: str, parsed: ParsedSession, max_chars: int) -> list[str]:
    """`content` cut at run starts into pieces of at most `max_chars` where a run allows
    (a run longer than that goes alone, and its request may be refused as too large)."""
    lines = content.splitlines(keepends=True)
    starts = [run.line for run in parsed.runs]
    if not starts:
        return [content]
    head = "".join(lines[: starts[0] - 1])
    bounds = [*starts, len(lines) + 1]
    runs = ["".join(lines[low - 1 : high - 1]) for low, high in pairwise(bounds)]
    cut: list[str] = []
    current = ""
    for run in runs:
        if current and len(head) + len(current) + len(run) > max_chars:
            cut.append(head + current)
            current = ""
        current += run
    cut.append(head + current)
    return cut
