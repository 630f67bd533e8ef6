"""The handoff a baseline rule would write, graded (bench/fidelity.py).

A baseline sees the covered material (bench/product.py, the same every rule is graded
on) as a conversation: one message per item in run order, a run's input a request.
Its text is a title, one line of counts, then each kept item as a plain block, in
order: a label line (`[run 3, request]`, `[run 3, item 5, assistant message]`) and the
item's whole form. A message costs the tokens of its block with the blank line before
it; the title and counts line, measured at their widest, are set aside first. So the
text never exceeds the budget. Its quality is the product's
(`resolvers.handoffs.quality.assess`) on that text, with the left-out items as omitted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bench.baselines.conversation import Kept, Message
from bench.baselines.naive import last_that_fit
from bench.baselines.t3code import select_history
from bench.fidelity import Material, Score, score, title
from bench.product import material, tokens
from graph.models import RunNode
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.quality import assess

# A rule: what it keeps of a conversation within a budget, `reserve` set aside.
Rule = Callable[[Sequence[Message], int, int], Kept]


def t3code(runs: Sequence[RunNode], budget: int) -> Score:
    return graded(runs, budget, select_history)


def naive(runs: Sequence[RunNode], budget: int) -> Score:
    return graded(runs, budget, last_that_fit)


def graded(runs: Sequence[RunNode], budget: int, rule: Rule) -> Score:
    items = material(runs)
    text, kept = written(runs, items, budget, rule)
    digests = [digest_of(run) for run in runs]
    shown = frozenset(items[index].place for index in kept.kept)
    return score(items, shown, lambda left_out: assess(text, digests, left_out).score)


def written(
    runs: Sequence[RunNode], items: Sequence[Material], budget: int, rule: Rule
) -> tuple[str, Kept]:
    """The text `rule` writes of `items` within `budget` tokens, and what it kept."""
    ordinals = [run.ordinal for run in runs]
    opening = title(min(ordinals), max(ordinals))
    talk = [
        Message(user=item.place[1] == -1, tokens=tokens(f"\n\n{block(item)}")) for item in items
    ]
    widest = _head(opening, len(items), len(items))
    kept = rule(talk, budget, tokens(widest + "\n"))
    head = _head(opening, len(kept.kept), len(kept.omitted))
    return head + "".join(f"\n\n{block(items[index])}" for index in kept.kept) + "\n", kept


def block(item: Material) -> str:
    ordinal, index = item.place
    if index < 0:
        return f"[run {ordinal}, request]\n{item.text}"
    kind = item.kind.value.lower().replace("_", " ")
    return f"[run {ordinal}, item {index}, {kind}]\n{item.text}"


def _head(opening: str, kept: int, omitted: int) -> str:
    return (
        f"{opening}\n{kept} items of the covered runs shown whole, {omitted} left out; "
        "Thread.items returns them."
    )
