"""Threadline's side of the fidelity benchmark (bench/fidelity.py), behind one adapter.

The benchmark needs three things of the product, and only these:

- `material(runs)`: the covered material of some runs (docs/MODEL.md, "Faithful
  handoffs"): each item's place, kind, whole form and tokens;
- `tokens(text)`: the product's token count, the one measure every rule is held to;
- `threadline(runs, budget)`: Threadline's handoff of the runs within the budget, graded:
  which material its text shows whole, and its quality score.

They are the product's pure functions: `resolvers.handoffs.summarizer` (`summarize`,
`material`), `resolvers.handoffs.digests.digest_of`, `resolvers.handoffs.tokenizer` and
`resolvers.handoffs.quality.assess`. What Threadline's text shows whole is found in the
text itself, from outside, as for the baselines: an item's whole form (a run's input, an
item's text, a file change's path with a stats line) standing in the text, runs of white
space folded to one space; the product's own count of what it shows is not taken on
trust.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bench.fidelity import Material, Place, Score, score, title
from graph.models import RunItemKind, RunNode
from resolvers.handoffs import summarizer, tokenizer
from resolvers.handoffs.clean import clean
from resolvers.handoffs.digests import digest_of, file_form
from resolvers.handoffs.quality import assess


def tokens(text: str) -> int:
    return tokenizer.count(text)


def material(runs: Sequence[RunNode]) -> list[Material]:
    """The covered material of `runs`, in run and item order, with the product's tokens of
    each item's whole form."""
    by_ordinal = {run.ordinal: run for run in runs}
    return [
        Material(
            place=named.place,
            kind=named.kind,
            text=whole_form(by_ordinal[named.place[0]], named.place[1]),
            tokens=named.tokens,
            key=named.key,
            path=named.path,
        )
        for named in summarizer.material([digest_of(run) for run in runs])
    ]


def whole_form(run: RunNode, index: int) -> str:
    """What showing item `index` of `run` whole shows (-1: the run's input)."""
    if index < 0:
        return run.input
    item = run.items[index]
    if item.kind is not RunItemKind.FILE_CHANGE:
        return item.text
    return file_form(item.path, item.attributes or {})


def shown_whole(text: str, items: Sequence[Material]) -> frozenset[Place]:
    """The places of `items` whose whole form `text` shows."""
    flat = _folded(text)
    return frozenset(item.place for item in items if _shows(flat, item))


def threadline(runs: Sequence[RunNode], budget: int) -> Score:
    """Threadline's own handoff of `runs` within `budget` tokens, graded."""
    digests = [digest_of(run) for run in runs]
    ordinals = [run.ordinal for run in runs]
    summary = summarizer.summarize(
        digests, title=title(min(ordinals), max(ordinals)), max_tokens=budget
    )
    items = material(runs)
    # The product's score, as it grades itself: with the items it says it left out.
    return score(
        items,
        shown_whole(summary.text, items),
        lambda _left_out: assess(summary.text, digests, summary.omitted, summary.fidelity).score,
    )


def _shows(flat: str, item: Material) -> bool:
    if item.kind is RunItemKind.FILE_CHANGE and item.path:
        return re.search(re.escape(item.path) + r" \(\w+, \+\d+/-\d+\)", flat) is not None
    whole = _folded(item.text)
    return not whole or whole in flat


def _folded(text: str) -> str:
    """White space folded, and control characters gone: no handoff ever shows them."""
    return " ".join(clean(text).split())
