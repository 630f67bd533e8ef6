"""Fidelity: the share, by tokens, of the covered material a handoff shows whole
(SEMANTICS "Faithful handoffs"), graded beside the handoff's quality score, and the table
the fidelity benchmark reports (issue 57, "The numbers").

Every rule is graded on the same material and the same measure: the product's material
of the covered runs (bench/product.py), each item counted on its whole form with the
product's own estimator, and the product's quality function. A rule says which items its
text shows whole; its fidelity is their tokens over all the material's (1.0 when there
is none). The table's rows are a subject (a generated family or session) and a rule; its
columns, fidelity and score at each budget.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from graph.models import ItemPlace, RunItemKind

BUDGETS = (2_000, 8_000, 32_000)

Place = tuple[int, int]  # (run ordinal, item index in its run; -1: the run's input)
# The quality score of a text, given the material items it does not show whole.
Quality = Callable[[Sequence[ItemPlace]], float]


@dataclass(frozen=True)
class Material:
    """One item of the covered material: where it is, its whole form and its tokens."""

    place: Place
    kind: RunItemKind
    text: str  # its whole form: what showing it whole means showing
    tokens: int
    key: str | None = None
    path: str | None = None

    def item_place(self) -> ItemPlace:
        ordinal, index = self.place
        return ItemPlace(
            runOrdinal=ordinal, index=index, kind=self.kind, key=self.key, path=self.path
        )


@dataclass(frozen=True)
class Score:
    fidelity: float
    quality: float


def score(material: Sequence[Material], shown: Collection[Place], quality: Quality) -> Score:
    """A rule's handoff graded: the share of `material`'s tokens among the items `shown`
    whole, and `quality` of it given the items it does not show whole."""
    total = sum(item.tokens for item in material)
    whole = sum(item.tokens for item in material if item.place in shown)
    left_out = [item.item_place() for item in material if item.place not in shown]
    return Score(fidelity=round(whole / total, 4) if total else 1.0, quality=quality(left_out))


def title(first: int, last: int) -> str:
    """The line every rule's text opens with, so that no rule pays for a longer one."""
    return f"# Context handoff: runs {first}-{last}"


@dataclass(frozen=True)
class Row:
    subject: str  # a generated family or session, and how much material it holds
    rule: str
    scores: Mapping[int, Score]  # by budget


def table(rows: Sequence[Row], budgets: Sequence[int] = BUDGETS) -> str:
    """The rows as a Markdown table: fidelity and score side by side for each budget."""
    columns = [f"{kind} {_k(budget)}" for budget in budgets for kind in ("fidelity", "score")]
    lines = [
        "| " + " | ".join(["subject", "rule", *columns]) + " |",
        "|" + "---|" * (2 + len(columns)),
    ]
    for row in rows:
        cells = [
            f"{value:.2f}"
            for budget in budgets
            for value in (row.scores[budget].fidelity, row.scores[budget].quality)
        ]
        lines.append("| " + " | ".join([row.subject, row.rule, *cells]) + " |")
    return "\n".join(lines) + "\n"


def _k(budget: int) -> str:
    return f"{budget // 1000}k" if budget % 1000 == 0 else str(budget)
