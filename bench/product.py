"""Threadline's side of the fidelity benchmark (bench/fidelity.py), behind one adapter.

The benchmark needs three things of the product, and only these:

- `material(runs)`: the covered material of some runs (SEMANTICS "Faithful handoffs"):
  each item's place, kind, whole form and tokens;
- `tokens(text)`: the product's token estimate, the one measure every rule is held to;
- `threadline(runs, budget)`: Threadline's handoff of the runs within the budget, graded:
  which material its text shows whole, and its quality score.

They are built from the product's pure functions: `resolvers.handoffs.summarizer`
(`summarize`, `material`, `token_estimate`, `digest_of`) and
`resolvers.handoffs.quality.assess`. The product's `material` names the items (their
places); their whole forms are read from the runs themselves: a run's input, an item's
text, and for a file change its path and stats line (its diff is never material). The
text shows an item whole when the item's whole form stands in it, runs of white space
folded to one space (a file change: its path with a stats line, whose numbers a summary
may add up over runs).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bench.fidelity import Material, Place, Score, score, title
from graph.models import RunItemKind, RunNode
from resolvers.handoffs import summarizer
from resolvers.handoffs.quality import assess
from resolvers.handoffs.summarizer import digest_of, summarize


def tokens(text: str) -> int:
    return summarizer.token_estimate(text)


def material(runs: Sequence[RunNode]) -> list[Material]:
    """The covered material of `runs`, in run and item order."""
    by_ordinal = {run.ordinal: run for run in runs}
    places = {
        (item.runOrdinal, item.index): item
        for item in summarizer.material([digest_of(run) for run in runs])
    }
    found = []
    for (ordinal, index), named in sorted(places.items()):
        text = whole_form(by_ordinal[ordinal], index)
        found.append(
            Material(
                place=(ordinal, index),
                kind=named.kind,
                text=text,
                tokens=tokens(text),
                key=named.key,
                path=named.path,
            )
        )
    return found


def whole_form(run: RunNode, index: int) -> str:
    """What showing item `index` of `run` whole shows (-1: the run's input)."""
    if index < 0:
        return run.input
    item = run.items[index]
    if item.kind is not RunItemKind.FILE_CHANGE:
        return item.text
    stats = item.attributes or {}
    return (
        f"{item.path} ({stats.get('changeKind', 'modified')}, "
        f"+{stats.get('additions', 0)}/-{stats.get('deletions', 0)})"
    )


def shown_whole(text: str, items: Sequence[Material]) -> frozenset[Place]:
    """The places of `items` whose whole form `text` shows."""
    flat = _folded(text)
    return frozenset(item.place for item in items if _shows(flat, item))


def threadline(runs: Sequence[RunNode], budget: int) -> Score:
    """Threadline's own handoff of `runs` within `budget` tokens, graded."""
    digests = [digest_of(run) for run in runs]
    ordinals = [run.ordinal for run in runs]
    summary = summarize(digests, title=title(min(ordinals), max(ordinals)), max_tokens=budget)
    items = material(runs)
    # The product's score, as it grades itself: with the items it says it left out.
    return score(
        items,
        shown_whole(summary.text, items),
        lambda _left_out: assess(summary.text, digests, summary.omitted).score,
    )


def _shows(flat: str, item: Material) -> bool:
    if item.kind is RunItemKind.FILE_CHANGE and item.path:
        return re.search(re.escape(item.path) + r" \(\w+, \+\d+/-\d+\)", flat) is not None
    whole = _folded(item.text)
    return bool(whole) and whole in flat


def _folded(text: str) -> str:
    return " ".join(text.split())
