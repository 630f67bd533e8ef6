"""A handoff text another writer wrote (a provider, the configured summarizer, a person):
what of its covered material it shows whole, what it leaves out, and its lines as entries
(docs/MODEL.md, "Faithful handoffs").

The writer does not say which items it shows, so they are found: an item is shown whole
when its whole form (`resolvers.handoffs.digests.whole`; a FILE_CHANGE's path) appears in
the text, white space folded the same way. Every other item of material is omitted, so
shown whole, omitted and never included add up to the covered items for every writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graph.models import HandoffEntry, OmittedItem
from resolvers.handoffs.digests import whole
from resolvers.handoffs.summarizer import Material, m_place

HEADING = "## "
LABEL_END = ": "


def found_whole(text: str, every: Iterable[Material]) -> set[tuple[int, int]]:
    """The places of the items of `every` that `text` shows whole."""
    folded = whole(text)
    return {m_place(item) for item in every if not item.text or item.text in folded}


def omitted_from(text: str, every: Sequence[Material]) -> list[OmittedItem]:
    """Every item of `every` that `text` does not show whole."""
    shown = found_whole(text, every)
    return [
        OmittedItem(
            runOrdinal=item.place[0],
            index=item.place[1],
            kind=item.kind,
            key=item.key,
            path=item.path,
            tokenEstimate=item.tokens,
        )
        for item in every
        if m_place(item) not in shown
    ]


def entries_of(text: str, every: Sequence[Material]) -> list[HandoffEntry]:
    """`text`'s lines as entries: each under the Markdown heading above it, naming the item
    it is (whole, or after a label such as "Decision: ") when one is."""
    by_text = {item.text: item for item in every if item.text and "\n" not in item.text}
    entries = []
    section = ""
    for line in text.split("\n"):
        if line.startswith(HEADING):
            section = line[len(HEADING) :].strip()
        item = _named(line, by_text)
        if item is None:
            entries.append(HandoffEntry(section=section, text=line))
        else:
            entries.append(
                HandoffEntry(
                    section=section,
                    text=line,
                    runOrdinal=item.place[0],
                    index=item.place[1],
                    kind=item.kind,
                )
            )
    return entries


def _named(line: str, by_text: dict[str, Material]) -> Material | None:
    said = " ".join(line.split()).removeprefix("- ").removeprefix("* ")
    found = by_text.get(said)
    if found is None and LABEL_END in said:
        found = by_text.get(said.split(LABEL_END, 1)[1])
    return found
