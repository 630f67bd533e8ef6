"""A handoff's text and everything said about it, built in one place: the text, its
sections and entries, what it leaves out, its token estimate and its quality (docs/MODEL.md,
"Faithful handoffs" and "Handoff quality").

Every writer's text goes through here: the local summary (`of_summary`), which knows what
it shows, and a text another writer wrote (`of_text`: a provider, the configured
summarizer, a person), whose shown items are found in it. A handoff still waiting for its
text has none of them (`WAITING`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from graph.models import (
    HandoffEntry,
    HandoffQuality,
    HandoffSection,
    OmittedItem,
    RunDigest,
)
from resolvers.handoffs import tokenizer
from resolvers.handoffs.quality import assess
from resolvers.handoffs.summarizer import Material, Summary, fidelity, material
from resolvers.handoffs.written import entries_of, found_whole, omitted_from

ANOTHER_WRITERS_SECTION = "Summary"


class TextFields(BaseModel):
    """The fields of a handoff that its text decides."""

    model_config = ConfigDict(frozen=True)

    summaryText: str
    sections: list[HandoffSection]
    entries: list[HandoffEntry]
    omitted: list[OmittedItem]
    tokenEstimate: int
    quality: HandoffQuality | None
    qualityScore: float | None  # the score and the fidelity on their own, for Cypher
    qualityFidelity: float | None

    @classmethod
    def of_summary(cls, summary: Summary, runs: Sequence[RunDigest]) -> TextFields:
        """The local summarizer's text, graded on `runs` (the covered runs)."""
        quality = assess(summary.text, runs, summary.omitted, summary.fidelity)
        return cls(
            summaryText=summary.text,
            sections=summary.sections,
            entries=summary.entries,
            omitted=summary.omitted,
            tokenEstimate=summary.tokenEstimate,
            quality=quality,
            qualityScore=quality.score,
            qualityFidelity=quality.fidelity,
        )

    @classmethod
    def of_text(cls, text: str, runs: Sequence[RunDigest]) -> TextFields:
        """A text another writer wrote about `runs`: its items found in it. Its quality
        counts what it carries in its own words (a paraphrase keeps a decision); its
        fidelity and its omitted items count what it shows whole."""
        every = material(runs)
        quality = assess(text, runs, (), _fidelity(text, every))
        return cls(
            summaryText=text,
            sections=[HandoffSection(title=ANOTHER_WRITERS_SECTION, lines=text.splitlines())],
            entries=entries_of(text, every),
            omitted=omitted_from(text, every),
            tokenEstimate=tokenizer.count(text),
            quality=quality,
            qualityScore=quality.score,
            qualityFidelity=quality.fidelity,
        )

    @property
    def fields(self) -> dict[str, Any]:
        """As a handoff's fields (for `model_copy(update=...)` or a HandoffChange)."""
        return dict(self)


def _fidelity(text: str, every: Sequence[Material]) -> float:
    return fidelity(every, found_whole(text, every))


WAITING: dict[str, Any] = {
    "summaryText": "",
    "sections": [],
    "entries": [],
    "omitted": [],
    "tokenEstimate": 0,
    "quality": None,
    "qualityScore": None,
    "qualityFidelity": None,
}
