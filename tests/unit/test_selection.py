"""Which lines a budget holds, and in which form: the selection's promises, exactly, over
generated sections of lines whose forms have known costs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.models import DigestItem, RunItemKind
from resolvers.handoffs import tokenizer
from resolvers.handoffs.selection import (
    CONVERSATION,
    HEADING_COST,
    LINE_COST,
    Drafted,
    Form,
    Line,
    Selection,
    place,
    select,
)

TITLE = "# Context handoff"


def shown_item(ordinal: int, index: int) -> tuple[int, DigestItem]:
    return ordinal, DigestItem(kind=RunItemKind.DECISION, text="x", index=index)


@st.composite
def sections(draw: st.DrawFn) -> list[Drafted]:
    titles = draw(st.lists(st.sampled_from(["Goals", "Decisions", "Commands"]), unique=True))
    titles += [CONVERSATION] if draw(st.booleans()) else []
    drafted = []
    counter = 0
    for title in titles:
        lines = []
        for _ in range(draw(st.integers(0, 6))):
            counter += 1
            whole = draw(st.integers(1, 300))
            cut = draw(st.one_of(st.none(), st.integers(1, max(1, whole - 1))))
            ordinal = draw(st.integers(1, 9))
            lines.append(
                Line(
                    whole=Form(f"w{counter}", whole),
                    newest=(ordinal, counter),
                    shows=(shown_item(ordinal, counter),),
                    protected=draw(st.booleans()) and draw(st.booleans()),
                    cut=Form(f"c{counter}", cut) if cut is not None and cut < whole else None,
                )
            )
        drafted.append(Drafted(title, lines))
    return drafted


def forms(chosen: Selection, drafted: list[Drafted]) -> dict[str, tuple[Line, bool]]:
    """Each shown line's title -> (line, shown whole)."""
    found: dict[str, tuple[Line, bool]] = {}
    by_text = {
        form.text: (line, form is line.whole)
        for d in drafted
        for line in d.lines
        for form in (line.whole, line.cut)
        if form is not None
    }
    for entry in chosen.entries:
        text = entry.text.removeprefix("- ")
        if entry.text.startswith("- ") and text in by_text:
            line, is_whole = by_text[text]
            found[line.whole.text] = (line, is_whole)
    return found


def heading(title: str) -> int:
    return tokenizer.label(f"## {title}") + HEADING_COST


@settings(max_examples=300, deadline=None)
@given(sections(), st.integers(min_value=0, max_value=2500))
def test_the_selection_keeps_its_promises(drafted: list[Drafted], budget: int) -> None:
    chosen = select(TITLE, drafted, budget)
    shown = forms(chosen, drafted)
    assert chosen.fits == (chosen.least <= budget)
    if chosen.fits:
        assert chosen.tokens <= budget
    # What the text holds, counted as the budget counts it.
    open_sections = {e.section for e in chosen.entries if e.text.startswith("- ")}
    expected = tokenizer.count(TITLE) + 1
    expected += sum(heading(title) for title in open_sections)
    expected += sum(
        (line.whole if whole else line.cut or line.whole).tokens + LINE_COST
        for line, whole in shown.values()
    )
    tail = [e.text for e in chosen.entries if "not shown whole" in e.text]
    expected += sum(tokenizer.count(text) + HEADING_COST for text in tail)
    assert chosen.tokens == expected
    # Protected lines are always there; omitted is exactly what is not shown whole.
    every = [(d.title, line) for d in drafted for line in d.lines]
    for _, line in every:
        if line.protected:
            assert line.whole.text in shown
    not_whole = {
        place(s): (line.whole.text in shown)
        for _, line in every
        if not shown.get(line.whole.text, (line, False))[1]
        for s in line.shows
    }
    assert {(o.runOrdinal, o.index): o.cut for o in chosen.omitted} == not_whole
    assert bool(tail) == bool(not_whole)
    # Nothing left out or shortened would fit whole in the room that remains.
    room = budget - chosen.tokens
    for title, line in every:
        found = shown.get(line.whole.text)
        if found is not None and found[1]:
            continue
        if found is None:
            cost = line.whole.tokens + LINE_COST + (0 if title in open_sections else heading(title))
        else:
            assert line.cut is not None
            cost = line.whole.tokens - line.cut.tokens
        assert cost > room, (line, room)
    assert "\n".join(e.text for e in chosen.entries) == chosen.text


@settings(max_examples=100, deadline=None)
@given(sections())
def test_without_a_budget_everything_is_whole(drafted: list[Drafted]) -> None:
    chosen = select(TITLE, drafted, None)
    assert chosen.omitted == [] and chosen.fits
    assert all(whole for _, whole in forms(chosen, drafted).values())


def test_the_digest_is_filled_before_the_conversation_and_newest_first() -> None:
    def line(name: str, ordinal: int) -> Line:
        return Line(whole=Form(name, 100), newest=(ordinal, 0), shows=(shown_item(ordinal, 0),))

    drafted = [
        Drafted("Decisions", [line("old decision", 1), line("new decision", 3)]),
        Drafted(CONVERSATION, [line("old reply", 2), line("new reply", 4)]),
    ]
    everything = select(TITLE, drafted, None).tokens
    chosen = select(TITLE, drafted, everything - 60)  # room for three of the four
    text = chosen.text
    assert "old decision" in text and "new decision" in text and "new reply" in text
    assert "old reply" not in text
