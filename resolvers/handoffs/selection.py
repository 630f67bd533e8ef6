"""Which lines of a summary its budget holds, and in which form (docs/MODEL.md, "Faithful
handoffs").

Every line shows some items of the covered runs, whole or shortened (a cut form). The
text is filled in this order:
1. protected lines, whole; when they do not all fit, the oldest are shortened first;
2. the other lines of the digest, newest first, then those of "Conversation", newest
   first: each whole where it fits, else skipped and the next older one tried;
3. the same lines again, for those left out: shortened where the shortened form fits;
4. while the room left (after the closing line, as long as it really is) holds a line
   left out or shortened whole, it is shown whole; then shortened where that fits.
So nothing left out or shortened would fit whole in the room that remains. Every item of
the covered runs not shown whole is listed as omitted (`cut` when shortened), and the
text ends with one line saying how many and where to read them whole.

Costs are tokens (`resolvers.handoffs.tokens`): a line costs its form's tokens and two for
its bullet and line break; a section's heading and the blank line before it, its own.
The text's token estimate is the sum of what it holds, the same sum the budget is held
to. Same lines in, same selection out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from graph.models import DigestItem, HandoffEntry, HandoffSection, OmittedItem, RunItemKind
from resolvers.handoffs import tokenizer
from resolvers.handoffs.digests import cut

BULLET = "- "
LINE_COST = 2  # a line's bullet and its line break
HEADING_COST = 2  # a section's blank line and its heading's line break, beside its text
CONVERSATION = "Conversation"

# An item a line shows: its run's ordinal and the item (None: the run's input).
Shown = tuple[int, DigestItem | None]


class Form(NamedTuple):
    """A line's whole form: `label`, `body`, `suffix`, joined only when it is shown (a
    long summary drafts thousands of lines, most of them over its budget)."""

    body: str
    tokens: int
    label: str = ""
    suffix: str = ""

    @property
    def text(self) -> str:
        return self.label + self.body + self.suffix


class Cut(NamedTuple):
    """A shortened form, its text made only when it is shown: most are never needed, and
    making one reads the whole text it shortens."""

    tokens: int
    label: str
    whole: str
    ordinal: int
    position: int  # the item's index in its run; -1: the run's input
    suffix: str = ""

    @property
    def text(self) -> str:
        return self.label + (cut(self.whole, self.ordinal, self.position) or "") + self.suffix


class Line(NamedTuple):
    """One line a section would show, the items of the covered runs it shows (a tuple: a
    long summary drafts thousands) and its forms."""

    whole: Form
    newest: tuple[int, int]  # (run ordinal, item index) of the newest thing it shows
    shows: tuple[Shown, ...] = ()
    protected: bool = False
    cut: Form | Cut | None = None  # a shortened form, for when the budget forces it
    weight: int = 0  # the tokens of the material it shows, each item on its whole form


@dataclass(frozen=True)
class Drafted:
    """A section's candidate lines, in the order it shows them."""

    title: str
    lines: Sequence[Line]


def place(shown: Shown) -> tuple[int, int]:
    ordinal, item = shown
    return ordinal, -1 if item is None else item.index


def omitted_item(shown: Shown, line: Line, *, cut: bool = False) -> OmittedItem:
    """`shown`, not shown whole: what showing it whole would cost is its line."""
    ordinal, item = shown
    cost = line.whole.tokens + LINE_COST
    if item is None:
        return OmittedItem(
            runOrdinal=ordinal, index=-1, kind=RunItemKind.USER_GOAL, tokenEstimate=cost, cut=cut
        )
    return OmittedItem(
        runOrdinal=ordinal,
        index=item.index,
        kind=item.kind,
        key=item.key,
        path=item.path,
        tokenEstimate=cost,
        cut=cut,
    )


def left_out_line(count: int, shortened: int) -> str:
    noun = "item of the covered runs is" if count == 1 else "items of the covered runs are"
    how = f" ({shortened} shown shortened)" if shortened else ""
    return (
        f"{count} {noun} not shown whole here{how}; Thread.items (or the MCP tool "
        "thread_read) returns each whole."
    )


@dataclass(frozen=True)
class Selection:
    title: str
    entries: list[HandoffEntry]
    omitted: list[OmittedItem]
    shown: frozenset[tuple[int, int]]  # the places of the items shown whole
    fidelity: float  # the share, by tokens, of the material shown whole
    tokens: int  # what the text holds, as the budget counts it
    least: int  # the fewest tokens a text of these lines can take
    fits: bool  # whether that fits the budget (the text then does too)

    @property
    def text(self) -> str:
        return "\n".join(entry.text for entry in self.entries)

    @property
    def sections(self) -> list[HandoffSection]:
        """The text's sections and their lines (bullets dropped), in order."""
        found: dict[str, list[str]] = {}
        for entry in self.entries:
            if entry.text.startswith(BULLET) and entry.section:
                found.setdefault(entry.section, []).append(entry.text[len(BULLET) :])
        return [HandoffSection(title=title, lines=lines) for title, lines in found.items()]


Index = tuple[int, int]  # (section, position)


class Taken(NamedTuple):
    form: Form | Cut
    whole: bool


@dataclass
class _Chosen:
    """The form each line is shown in so far, what the text costs with them, and how many
    items are not shown whole (kept as lines are taken: the closing line says so)."""

    title: str
    drafted: Sequence[Drafted]
    taken: list[dict[int, Taken]] = field(default_factory=list)
    total: int = 0
    missing: int = 0  # items not shown whole
    shortened: int = 0  # of those, items shown shortened

    def __post_init__(self) -> None:
        self.taken = [{} for _ in self.drafted]
        self.total = tokenizer.count(self.title) + 1  # the title and the final line break
        self.missing = sum(len(line.shows) for d in self.drafted for line in d.lines)
        self._indexes = [(s, n) for s, d in enumerate(self.drafted) for n in range(len(d.lines))]

    def line(self, index: Index) -> Line:
        section, position = index
        return self.drafted[section].lines[position]

    def indexes(self) -> list[Index]:
        return self._indexes

    def form(self, index: Index) -> Taken | None:
        section, position = index
        return self.taken[section].get(position)

    def whole(self, index: Index) -> bool:
        found = self.form(index)
        return found is not None and found.whole

    def cost(self, index: Index, form: Form | Cut) -> int:
        """What showing `index` as `form` adds to the text as it is now."""
        section, _ = index
        before = self.form(index)
        if before is not None:
            return form.tokens - before.form.tokens
        heading = 0
        if not self.taken[section]:
            heading = tokenizer.label(f"## {self.drafted[section].title}") + HEADING_COST
        return heading + form.tokens + LINE_COST

    def added_whole(self, indexes: Iterable[Index]) -> int:
        """What showing every line of `indexes` whole would add (none shown yet)."""
        opened: set[int] = set()
        added = 0
        for section, position in indexes:
            if not self.taken[section] and section not in opened:
                opened.add(section)
                added += tokenizer.label(f"## {self.drafted[section].title}") + HEADING_COST
            added += self.drafted[section].lines[position].whole.tokens + LINE_COST
        return added

    def take(self, index: Index, whole: bool) -> None:
        line = self.line(index)
        form = line.whole if whole else line.cut
        assert form is not None
        self.total += self.cost(index, form)
        self._count(index, -1)
        section, position = index
        self.taken[section][position] = Taken(form, whole)
        self._count(index, +1)

    def untake(self, index: Index, total: int) -> None:
        """Show `index` as nothing again (the text back at `total` tokens)."""
        self._count(index, -1)
        section, position = index
        del self.taken[section][position]
        self._count(index, +1)
        self.total = total

    def _count(self, index: Index, sign: int) -> None:
        """Count `index`'s items in (+1) or out of (-1) the missing and shortened ones."""
        found = self.form(index)
        if found is not None and found.whole:
            return
        shows = len(self.line(index).shows)
        self.missing += sign * shows
        if found is not None:
            self.shortened += sign * shows

    def fits(self, index: Index, whole: bool, room: int) -> bool:
        line = self.line(index)
        form = line.whole if whole else line.cut
        return form is not None and self.total + self.cost(index, form) <= room

    def tail(self) -> tuple[str | None, int]:
        if not self.missing:
            return None, 0
        text = left_out_line(self.missing, self.shortened)
        return text, tokenizer.label(text) + HEADING_COST


def select(title: str, drafted: Sequence[Drafted], budget: int | None) -> Selection:
    """The lines of `drafted` and their forms within `budget` tokens (None: all whole)."""
    chosen = _Chosen(title, drafted)
    every = chosen.indexes()
    protected = [i for i in every if chosen.line(i).protected]
    others = _filling_order(chosen, [i for i in every if not chosen.line(i).protected])
    for index in protected:
        chosen.take(index, whole=True)
    everything = chosen.total + chosen.added_whole(others)
    least = min(everything, _least(title, drafted, protected))
    if budget is None or everything <= budget:
        for index in others:
            chosen.take(index, whole=True)
        return _selected(chosen, least=least, budget=budget)
    room = budget - _longest_tail(chosen)
    for index in sorted(protected, key=lambda i: chosen.line(i).newest):  # oldest first
        if chosen.total <= room:
            break
        if _shorter(chosen.line(index)):
            chosen.take(index, whole=False)
    for index in others:
        if chosen.fits(index, True, room):
            chosen.take(index, whole=True)
    for index in others:
        if chosen.form(index) is None and chosen.fits(index, False, room):
            chosen.take(index, whole=False)
    _use_what_is_left(chosen, protected, others, budget)
    return _selected(chosen, least=least, budget=budget)


def _shorter(line: Line) -> bool:
    return line.cut is not None and line.cut.tokens < line.whole.tokens


def _filling_order(chosen: _Chosen, indexes: Iterable[Index]) -> list[Index]:
    """The digest's lines newest first, then the conversation's newest first; ties in
    section order, then line order."""

    def key(index: Index) -> tuple[bool, int, int]:
        line = chosen.line(index)
        last = chosen.drafted[index[0]].title == CONVERSATION
        return last, -line.newest[0], -line.newest[1]

    return sorted(indexes, key=key)


def _longest_tail(chosen: _Chosen) -> int:
    """The closing line as long as it can be: every item left out, all shown shortened."""
    count = sum(len(chosen.line(i).shows) for i in chosen.indexes())
    return tokenizer.count(left_out_line(count, count)) + HEADING_COST


def _least(title: str, drafted: Sequence[Drafted], protected: list[Index]) -> int:
    """The fewest tokens a text of these lines can take: its protected lines in their
    shortest forms, nothing else, and its closing line."""
    shortest = _Chosen(title, drafted)
    for index in protected:
        shortest.take(index, whole=not _shorter(shortest.line(index)))
    return shortest.total + shortest.tail()[1]


def _use_what_is_left(
    chosen: _Chosen, protected: list[Index], others: list[Index], budget: int
) -> None:
    """Show whole (newest first) what the room left after the real closing line holds, then
    shortened what now fits, until nothing more does. Showing a line whole never makes the
    closing line longer; showing one shortened may (it counts the shortened), so that is
    checked against the closing line it leads to."""
    newest_protected = sorted(protected, key=lambda i: chosen.line(i).newest, reverse=True)
    candidates = [*newest_protected, *others]
    while True:
        _, tail = chosen.tail()
        room = budget - tail
        cheapest = _cheapest(chosen, candidates)
        if cheapest is None or chosen.total + cheapest > room:
            return  # nothing left out fits whole, nor shortened: the common end, one pass
        grown = next(
            (i for i in candidates if not chosen.whole(i) and chosen.fits(i, True, room)),
            None,
        )
        if grown is not None:
            chosen.take(grown, whole=True)
            continue
        if not _shorten_one(chosen, others, budget, tail):
            return


def _cheapest(chosen: _Chosen, candidates: list[Index]) -> int | None:
    """The least that showing one more line whole, or shortened, would add (None: every
    line is whole)."""
    least = None
    for index in candidates:
        found = chosen.form(index)
        if found is not None and found.whole:
            continue
        line = chosen.line(index)
        for form in (line.whole, line.cut):
            if form is not None and (found is None or form is line.whole):
                added = chosen.cost(index, form)
                least = added if least is None else min(least, added)
    return least


def _shorten_one(chosen: _Chosen, others: list[Index], budget: int, tail: int) -> bool:
    """Show one more line shortened, if one fits with the closing line it leads to."""
    for index in others:
        if chosen.form(index) is not None or not chosen.fits(index, False, budget - tail):
            continue
        before = chosen.total
        chosen.take(index, whole=False)
        if chosen.total + chosen.tail()[1] <= budget:
            return True
        chosen.untake(index, before)
    return False


def _selected(chosen: _Chosen, *, least: int, budget: int | None) -> Selection:
    tail, tail_tokens = chosen.tail()
    omitted: list[OmittedItem] = []
    shown: set[tuple[int, int]] = set()
    material = kept = 0
    for index in chosen.indexes():
        found = chosen.form(index)
        line = chosen.line(index)
        material += line.weight
        if found is not None and found.whole:
            kept += line.weight
            shown.update(place(each) for each in line.shows)
        else:
            cut = found is not None
            omitted.extend(omitted_item(each, line, cut=cut) for each in line.shows)
    omitted.sort(key=lambda item: (item.runOrdinal, item.index))
    return Selection(
        title=chosen.title,
        entries=_entries(chosen, tail),
        omitted=omitted,
        shown=frozenset(shown),
        fidelity=round(kept / material, 4) if material else 1.0,
        tokens=chosen.total + tail_tokens,
        least=least,
        fits=budget is None or least <= budget,
    )


def _entries(chosen: _Chosen, tail: str | None) -> list[HandoffEntry]:
    entries = [HandoffEntry(section="", text=chosen.title)]
    for section, drafted in enumerate(chosen.drafted):
        taken = chosen.taken[section]
        if not taken:
            continue
        entries.append(HandoffEntry(section=drafted.title, text=""))
        entries.append(HandoffEntry(section=drafted.title, text=f"## {drafted.title}"))
        for position in sorted(taken):
            entries.append(_entry(drafted.title, drafted.lines[position], taken[position]))
    if tail is not None:
        entries.extend([HandoffEntry(section="", text=""), HandoffEntry(section="", text=tail)])
    entries.append(HandoffEntry(section="", text=""))  # the text ends with a line break
    return entries


def _entry(section: str, line: Line, taken: Taken) -> HandoffEntry:
    """A line's entry, naming the newest item it shows."""
    text = BULLET + taken.form.text
    cut = not taken.whole
    if not line.shows:
        return HandoffEntry(section=section, text=text, cut=cut)
    ordinal, item = max(line.shows, key=place)
    if item is None:
        return HandoffEntry(
            section=section,
            text=text,
            runOrdinal=ordinal,
            index=-1,
            kind=RunItemKind.USER_GOAL,
            cut=cut,
        )
    return HandoffEntry(
        section=section, text=text, runOrdinal=ordinal, index=item.index, kind=item.kind, cut=cut
    )
