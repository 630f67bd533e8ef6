"""The fidelity benchmark's measure, without a database: the share of material shown
whole, the product adapter's reading of a text, and the baselines' texts within budget."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from bench import handoffs, product
from bench.baselines import handoff
from bench.baselines.naive import last_that_fit
from bench.baselines.t3code import select_history
from bench.fidelity import BUDGETS, Material, Row, Score, score, table
from bench.sessions import SHAPES
from graph.models import ItemPlace, RunItem, RunItemKind, RunNode, RunStatus, SessionFormat
from resolvers.handoffs.digests import digest_of, whole
from resolvers.handoffs.summarizer import material as product_material

FORMATS = {"claude": SessionFormat.CLAUDE_CODE_JSONL, "codex": SessionFormat.CODEX_ROLLOUT_JSONL}
AT = datetime(2026, 12, 5, tzinfo=UTC)


def session_runs(name: str) -> list[RunNode]:
    return handoffs.session_runs(name, 7)


def item(ordinal: int, index: int, tokens: int, text: str = "x") -> Material:
    kind = RunItemKind.USER_GOAL if index < 0 else RunItemKind.ASSISTANT_MESSAGE
    return Material(place=(ordinal, index), kind=kind, text=text, tokens=tokens)


# ---- the measure ---------------------------------------------------------------------


def test_fidelity_is_the_share_of_material_tokens_shown_whole() -> None:
    material = [item(1, -1, 10), item(1, 0, 30), item(2, -1, 60)]
    seen: list[Sequence[ItemPlace]] = []

    def quality(left_out: Sequence[ItemPlace]) -> float:
        seen.append(left_out)
        return 0.5

    graded = score(material, {(1, -1), (2, -1)}, quality)
    assert graded == Score(fidelity=(10 + 60) / (10 + 30 + 60), quality=0.5)
    assert [(p.runOrdinal, p.index) for p in seen[0]] == [(1, 0)]


def test_no_material_is_shown_in_full() -> None:
    assert score([], set(), lambda left_out: 1.0).fidelity == 1.0


def test_the_table_has_a_row_per_subject_and_rule_and_two_columns_per_budget() -> None:
    scores = {budget: Score(0.25, 1.0) for budget in BUDGETS}
    rows = [Row("s", rule, scores) for rule in ("Threadline", "T3 Code", "naive")]
    lines = table(rows).splitlines()
    assert len(lines) == 2 + len(rows)
    assert all(line.count("|") == 3 + 2 * len(BUDGETS) for line in lines)
    assert lines[0].split("|")[3:5] == [" fidelity 2k ", " score 2k "]


# ---- the product adapter -------------------------------------------------------------


def test_the_adapter_names_the_products_material_with_whole_forms() -> None:
    runs = session_runs("claude-debugging")
    ours = product.material(runs)
    theirs = product_material([digest_of(run) for run in runs])
    assert {m.place for m in ours} == {o.place for o in theirs}
    inputs = {m.place[0]: m.text for m in ours if m.place[1] == -1}
    assert inputs == {run.ordinal: run.input for run in runs}
    assert all(m.tokens == product.tokens(whole(m.text)) for m in ours)


def test_a_text_shows_an_item_whole_with_its_white_space_folded() -> None:
    run = RunNode(
        id="run_1",
        threadId="thr",
        ordinal=1,
        provider="claude",
        status=RunStatus.COMPLETED,
        input="Fix  the\nretry",
        startedAt=AT,
        items=[
            RunItem(kind=RunItemKind.ASSISTANT_MESSAGE, text="First paragraph.\n\nSecond one."),
            RunItem(
                kind=RunItemKind.FILE_CHANGE,
                text="--- a/pay.py",
                path="pay.py",
                attributes={"changeKind": "modified", "additions": 2, "deletions": 1},
            ),
        ],
    )
    material = [
        Material((1, -1), RunItemKind.USER_GOAL, run.input, 3),
        Material((1, 0), RunItemKind.ASSISTANT_MESSAGE, run.items[0].text, 7),
        Material((1, 1), RunItemKind.FILE_CHANGE, product.whole_form(run, 1), 5, path="pay.py"),
    ]
    text = "Run 1 asked: Fix the retry\n- First paragraph. Second one\n- pay.py (modified, +4/-1)"
    assert product.shown_whole(text, material) == {(1, -1), (1, 1)}
    assert product.whole_form(run, 1) == "pay.py (modified, +2/-1)"


# ---- the baselines' texts ------------------------------------------------------------


@pytest.mark.parametrize("rule", [select_history, last_that_fit], ids=["t3code", "naive"])
@pytest.mark.parametrize("name", [shape.name for shape in SHAPES])
def test_a_baseline_text_fits_its_budget_and_shows_what_it_kept(
    rule: handoff.Rule, name: str
) -> None:
    runs = session_runs(name)
    items = product.material(runs)
    for budget in (300, *BUDGETS):
        text, kept = handoff.written(runs, items, budget, rule)
        assert product.tokens(text) <= budget
        shown = product.shown_whole(text, items)
        assert {items[index].place for index in kept.kept} <= shown


def test_t3code_shows_everything_when_the_budget_holds_it() -> None:
    runs = session_runs("codex-feature")
    room = sum(m.tokens for m in product.material(runs)) * 2 + 200
    assert handoff.t3code(runs, room).fidelity == 1.0
    assert handoff.naive(runs, room).fidelity == 1.0


def test_threadline_is_graded_on_the_same_material() -> None:
    runs = session_runs("claude-debugging")
    graded = product.threadline(runs, BUDGETS[-1])
    assert 0.0 < graded.fidelity <= 1.0
    assert 0.0 <= graded.quality <= 1.0
