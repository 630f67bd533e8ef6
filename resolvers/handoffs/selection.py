"""Which lines of a summary its budget holds (docs/MODEL.md, "Context that fits").

Protected lines are always kept. The rest fill what remains newest first, each in its
own section and place; a line that does not fit is tried shortened (a run's input), then
left out, and the next older one is tried. Every item a left-out line would have shown
is listed as omitted, and the text ends with one line saying how many were left out and
where to read them. Same lines in, same selection out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from graph.models import DigestItem, HandoffSection, OmittedItem, RunItemKind

CHARS_PER_TOKEN = 4


# An item a line shows: its run's ordinal and the item (None: the run's input).
Shown = tuple[int, DigestItem | None]


def omitted_item(shown: Shown, line: str) -> OmittedItem:
    """`shown`, left out with `line`: what including it would have cost is that line."""
    ordinal, item = shown
    tokens = math.ceil(len(line) / CHARS_PER_TOKEN)
    # Validated, not model_construct: a long summary leaves out thousands, and pydantic's
    # validation (compiled) builds one in less than half the time of its unchecked
    # construction (written in Python).
    if item is None:
        return OmittedItem(
            runOrdinal=ordinal, index=-1, kind=RunItemKind.USER_GOAL, tokenEstimate=tokens
        )
    return OmittedItem(
        runOrdinal=ordinal,
        index=item.index,
        kind=item.kind,
        key=item.key,
        path=item.path,
        tokenEstimate=tokens,
    )


class Line(NamedTuple):
    """One line a section would show, and the items of the covered runs it shows (a
    tuple: a long summary drafts thousands)."""

    text: str
    newest: tuple[int, int]  # (run ordinal, item index) of the newest thing it shows
    shows: tuple[Shown, ...] = ()
    protected: bool = False
    short: str | None = None  # a shorter form to try before leaving it out


@dataclass(frozen=True)
class Drafted:
    """A section's candidate lines, in the order it shows them."""

    title: str
    lines: Sequence[Line]


@dataclass(frozen=True)
class Selection:
    sections: list[HandoffSection]
    omitted: list[OmittedItem]
    tail: str | None  # the closing line about what was left out
    needed_chars: int  # the shortest text it can make: protected lines and the closing line
    fits: bool  # whether that fits the budget (the text then does too)


def left_out_line(count: int) -> str:
    noun = "item of the covered runs was" if count == 1 else "items of the covered runs were"
    return f"{count} {noun} left out; Thread.items (or the MCP tool thread_read) returns them."


def select(title: str, drafted: Sequence[Drafted], max_chars: int | None) -> Selection:
    """The lines of `drafted` that fit in `max_chars` (None: all of them)."""
    chosen = _Chosen(title, drafted)
    for index, line in chosen.protected():
        chosen.take(index, line.text)
    # Room for the closing line, as long as it can be: every unprotected item left out.
    reserve = len(left_out_line(max(1, chosen.unprotected_items()))) + 2
    needed = chosen.length() + (reserve if chosen.unprotected() else 0)
    if max_chars is None or chosen.length_with_all() <= max_chars:
        for index, line in chosen.unprotected():
            chosen.take(index, line.text)
        return chosen.selection(needed, fits=True)
    for index, line in chosen.newest_first():
        for text in (line.text, line.short):
            if text is not None and chosen.length(adding=(index, text)) + reserve <= max_chars:
                chosen.take(index, text)
                break
    return chosen.selection(needed, fits=needed <= max_chars)


class _Chosen:
    """The lines taken so far, with the length `render` would give them kept current:
    title, per section "\\n\\n## {title}\\n" and its lines as "- {line}" joined by "\\n",
    a final "\\n"."""

    def __init__(self, title: str, drafted: Sequence[Drafted]) -> None:
        self.drafted = drafted
        self.taken: list[dict[int, str]] = [{} for _ in drafted]
        self.chars = len(title) + 1
        self.lines = [
            ((s, n), line) for s, d in enumerate(drafted) for n, line in enumerate(d.lines)
        ]

    def protected(self) -> list[tuple[tuple[int, int], Line]]:
        return [(i, line) for i, line in self.lines if line.protected]

    def unprotected(self) -> list[tuple[tuple[int, int], Line]]:
        return [(i, line) for i, line in self.lines if not line.protected]

    def newest_first(self) -> list[tuple[tuple[int, int], Line]]:
        """Unprotected lines, newest first; ties in section order, then line order."""
        return sorted(self.unprotected(), key=lambda pair: (-pair[1].newest[0], -pair[1].newest[1]))

    def length(self, adding: tuple[tuple[int, int], str] | None = None) -> int:
        if adding is None:
            return self.chars
        (section, _), text = adding
        return self.chars + self._cost(section, text)

    def length_with_all(self) -> int:
        total = self.chars
        for section, drafted in enumerate(self.drafted):
            rest = [
                line.text for n, line in enumerate(drafted.lines) if n not in self.taken[section]
            ]
            if rest and not self.taken[section]:
                total += len(drafted.title) + 6 + sum(len(t) + 3 for t in rest) - 1
            else:
                total += sum(len(t) + 3 for t in rest)
        return total

    def _cost(self, section: int, text: str) -> int:
        if self.taken[section]:
            return len(text) + 3  # "\n- {text}"
        return len(self.drafted[section].title) + 6 + len(text) + 2  # "\n\n## {title}\n- {text}"

    def take(self, index: tuple[int, int], text: str) -> None:
        section, position = index
        self.chars += self._cost(section, text)
        self.taken[section][position] = text

    def unprotected_items(self) -> int:
        return sum(len(line.shows) for _, line in self.unprotected())

    def selection(self, needed_chars: int, *, fits: bool) -> Selection:
        sections = [
            HandoffSection(title=d.title, lines=[taken[n] for n in sorted(taken)])
            for d, taken in zip(self.drafted, self.taken, strict=True)
            if taken
        ]
        omitted = [
            omitted_item(shown, line.text)
            for (section, position), line in self.lines
            if position not in self.taken[section]
            for shown in line.shows
        ]
        omitted.sort(key=lambda item: (item.runOrdinal, item.index))
        return Selection(
            sections=sections,
            omitted=omitted,
            tail=left_out_line(len(omitted)) if omitted else None,
            needed_chars=needed_chars,
            fits=fits,
        )
