"""How much of what must survive a handoff its text carries (docs/MODEL.md, "Handoff
quality"). Deterministic, from the covered runs and the text alone: no model is called.

Must-keep material, one facet per kind: USER_GOAL (goal items, and the inputs of the
first run and of the latest covered run), CONSTRAINT, DECISION, FILE_CHANGE (one per
path, from FILE_CHANGE items and checkpoints), open QUESTION and APPROVAL, unresolved
FAILURE. An item the text's writer says it left out (the local selection's `omitted`)
is missing. Otherwise it is carried when its key or path appears in the text
(case-insensitive), or when more than half of its distinctive words do: the words of at
least four letters and digits in the first 200 characters of its text, common words left
out. An item with no distinctive word is carried when its whole text appears; one with no
key, no path and a blank text is nothing to keep.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graph.models import DigestItem, HandoffQuality, ItemPlace, QualityFacet, RunDigest, RunItemKind
from resolvers.handoffs.summarizer import fidelity, material, open_requests, unresolved_failures
from resolvers.handoffs.written import found_whole

WORD = re.compile(r"[a-z0-9_]+")
WORDS_FROM = 200  # distinctive words come from the start of a text, which survives shortening
MIN_WORD = 4
MISSING_WORDS = 8  # how an item with no key or path is named when missing
# Words too common to tell one item from another.
COMMON_WORDS = """
this that with from have will would should could into when then than they them there
their what which about after before also just only some more most been were does done
make made each other over such very your please need needs want
"""
COMMON = frozenset(COMMON_WORDS.split())
FACET_ORDER = (
    RunItemKind.USER_GOAL,
    RunItemKind.CONSTRAINT,
    RunItemKind.DECISION,
    RunItemKind.FILE_CHANGE,
    RunItemKind.QUESTION,
    RunItemKind.APPROVAL,
    RunItemKind.FAILURE,
)


@dataclass(frozen=True)
class MustKeep:
    kind: RunItemKind
    text: str = ""
    key: str | None = None
    path: str | None = None
    place: tuple[int, int] | None = None  # (run ordinal, item index; -1: the run's input)

    @property
    def name(self) -> str:
        return self.key or self.path or " ".join(self.text.split()[:MISSING_WORDS])


def assess(
    text: str,
    runs: Sequence[RunDigest],
    omitted: Iterable[ItemPlace] = (),
    fidelity: float | None = None,
) -> HandoffQuality:
    """The quality of `text` as a handoff of `runs` (its covered runs, any order) that
    leaves out the items at `omitted`; `fidelity` as its writer measured it (None: by
    finding each item of material whole in the text, `resolvers.handoffs.written`)."""
    lowered = text.lower()
    words = set(WORD.findall(lowered))
    left_out = {(place.runOrdinal, place.index) for place in omitted}
    facets = []
    wanted = must_keep(runs)
    for kind in FACET_ORDER:
        items = [item for item in wanted if item.kind is kind]
        if not items:
            continue
        missing = [
            item.name
            for item in items
            if item.place in left_out or not carried(item, lowered, words)
        ]
        facets.append(
            QualityFacet(
                kind=kind, kept=len(items) - len(missing), total=len(items), missing=missing
            )
        )
    kept, total = sum(f.kept for f in facets), sum(f.total for f in facets)
    if fidelity is None:
        fidelity = written_fidelity(text, runs)
    return HandoffQuality(
        score=round(kept / total, 4) if total else 1.0, facets=facets, fidelity=fidelity
    )


def written_fidelity(text: str, runs: Sequence[RunDigest]) -> float:
    """The fidelity of a text its writer did not say the items of: the share, by tokens, of
    the material found whole in it (`resolvers.handoffs.written`)."""
    every = material(runs)
    return fidelity(every, found_whole(text, every))


def must_keep(runs: Sequence[RunDigest]) -> list[MustKeep]:
    ordered = sorted(runs, key=lambda run: run.ordinal)
    if not ordered:
        return []
    inputs = {run.ordinal: run.input for run in ordered if run.ordinal in (1, ordered[-1].ordinal)}
    found = [
        MustKeep(RunItemKind.USER_GOAL, text, place=(ordinal, -1))
        for ordinal, text in inputs.items()
    ]
    for run in ordered:
        found.extend(
            _kept(run, item)
            for item in run.items
            if item.kind in (RunItemKind.USER_GOAL, RunItemKind.CONSTRAINT, RunItemKind.DECISION)
        )
    found.extend(MustKeep(RunItemKind.FILE_CHANGE, path=path) for path in _paths(ordered))
    found.extend(_kept(run, item) for run, item in open_requests(ordered))
    found.extend(_kept(run, item) for run, item in unresolved_failures(ordered))
    return [item for item in found if item.key or item.path or item.text.strip()]


def _kept(run: RunDigest, item: DigestItem) -> MustKeep:
    return MustKeep(item.kind, item.text, item.key, item.path, (run.ordinal, item.index))


def carried(item: MustKeep, lowered: str, words: set[str]) -> bool:
    for name in (item.key, item.path):
        if name and name.lower() in lowered:
            return True
    distinctive = distinctive_words(item.text)
    if distinctive:
        return 2 * sum(word in words for word in distinctive) > len(distinctive)
    flat = " ".join(item.text.lower().split())
    return bool(flat) and flat in " ".join(lowered.split())


def distinctive_words(text: str) -> list[str]:
    head = text.lower()[:WORDS_FROM]
    if len(text) > WORDS_FROM:  # a word cut at the edge is not a word of the text
        head = head[: head.rfind(" ")] if " " in head else ""
    seen: dict[str, None] = {}
    for word in WORD.findall(head):
        if len(word) >= MIN_WORD and word not in COMMON:
            seen.setdefault(word)
    return list(seen)


def _paths(runs: Iterable[RunDigest]) -> list[str]:
    paths: dict[str, None] = {}
    for run in runs:
        for item in run.items:
            if item.kind is RunItemKind.FILE_CHANGE and item.path:
                paths.setdefault(item.path)
        for stat in run.diffSummary or []:
            paths.setdefault(stat.path)
    return list(paths)
