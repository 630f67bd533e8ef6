"""Context budgets, without a database: where the window comes from, and the arithmetic."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from graph.models import (
    ContextUsage,
    ContextWindowSource,
    HandoffHead,
    HandoffStatus,
    RunItem,
    RunItemKind,
    RunNode,
    RunStatus,
)
from graph.models import HandoffKind as Kind
from graph.models import HandoffStrategy as Strategy
from resolvers.handoffs.budget import ContextPolicy, context_budget, fits, fitted, refitted
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.planning import plan_handoff
from resolvers.handoffs.tokenizer import count
from resolvers.providers import registry_from_toml
from tests.support.nodes import handoff
from tests.support.scenario import Scenario

AT = datetime(2026, 1, 1, tzinfo=UTC)
PROVIDERS = registry_from_toml(
    '[providers.codex.models]\n"gpt-5.1-codex" = 400000\n'
    "[providers.gemini]\naccepts_handoff = true\n"
)
POLICY = ContextPolicy()
FULL, PORTABLE = Strategy.FULL_THREAD_SUMMARY, Kind.PORTABLE_CONTEXT


def test_the_window_comes_from_the_report_else_the_model_else_the_provider() -> None:
    codex = PROVIDERS.get("codex")
    reported = ContextUsage(contextTokens=10, contextWindowTokens=150_000, reportedAt=AT)
    assert context_budget(codex, "gpt-5.1-codex", reported, 0, POLICY).windowSource is (
        ContextWindowSource.REPORTED
    )
    by_model = context_budget(codex, "gpt-5.1-codex", None, 0, POLICY)
    assert (by_model.windowTokens, by_model.windowSource) == (400_000, ContextWindowSource.MODEL)
    default = context_budget(codex, "unlisted", None, 0, POLICY)
    assert (default.windowTokens, default.windowSource) == (272_000, ContextWindowSource.PROVIDER)
    assert context_budget(PROVIDERS.get("claude"), None, None, 0, POLICY).windowTokens == 200_000
    assert context_budget(PROVIDERS.get("gemini"), None, None, 0, POLICY).windowTokens == 128_000


def test_a_nearly_full_native_thread_gets_less_than_a_new_one() -> None:
    claude = PROVIDERS.get("claude")
    fresh = context_budget(claude, None, None, 0, POLICY)
    full = ContextUsage(contextTokens=170_000, reportedAt=AT)
    crowded = context_budget(claude, None, full, 0, POLICY)
    assert (fresh.reserveTokens, fresh.budgetTokens) == (50_000, 32_000)  # the cap binds
    assert crowded.budgetTokens == 0  # 200,000 - 170,000 - 50,000 < 0


@given(
    window=st.integers(1, 2_000_000),
    used=st.integers(0, 2_000_000),
    cap=st.integers(1, 200_000),
    reserve=st.integers(0, 100_000),
)
def test_the_budget_is_the_room_left_at_most_the_cap_never_negative(
    window: int, used: int, cap: int, reserve: int
) -> None:
    provider = PROVIDERS.get("codex").model_copy(
        update={"max_handoff_tokens": cap, "default_context_window_tokens": window}
    )
    usage = ContextUsage(contextTokens=used, reportedAt=AT)
    found = context_budget(provider, None, usage, 0, ContextPolicy(min_reserve_tokens=reserve))
    assert found.reserveTokens == max(reserve, window // 4)
    assert 0 <= found.budgetTokens <= cap
    room = window - used - found.reserveTokens
    assert found.budgetTokens == (min(cap, room) if room > 0 else 0)


def decided_runs(count: int, padding: str = "") -> list[RunNode]:
    """Completed runs 1..count of thread `src`, each with one long decision."""
    return [
        RunNode(
            id=f"r{n}",
            threadId="src",
            ordinal=n,
            provider="codex",
            status=RunStatus.COMPLETED,
            input=f"step {n} {padding}",
            startedAt=AT,
            items=[RunItem(kind=RunItemKind.DECISION, text=f"decision {n} " + "y" * 300)],
        )
        for n in range(1, count + 1)
    ]


def test_handoffs_of_one_start_keep_room_for_each_ones_protected_items() -> None:
    """A large first handoff cannot starve the second: each keeps its protected items,
    and both together stay within the start's budget."""
    big = decided_runs(59, "z" * 200)
    small = [
        big[0].model_copy(
            update={
                "threadId": "other",
                "items": [
                    RunItem(
                        kind=RunItemKind.CONSTRAINT, text="Keep the second handoff's constraint"
                    )
                ],
            }
        )
    ]
    codex = PROVIDERS.get("codex")
    first = plan_handoff("src", [digest_of(r) for r in big], codex, FULL, PORTABLE)
    second = plan_handoff("other", [digest_of(r) for r in small], codex, FULL, PORTABLE)
    budget = context_budget(codex, None, None, 0, POLICY).model_copy(
        update={"budgetTokens": first.summary.leastTokens + 400}
    )
    assert fits([first, second], budget)
    one, two = fitted([first, second], budget)
    assert one.summary.tokenEstimate + two.summary.tokenEstimate <= budget.budgetTokens
    assert "Keep the second handoff's constraint" in two.summary.text
    assert one.summary.omitted and not fits(
        [first, second], budget.model_copy(update={"budgetTokens": first.summary.leastTokens})
    )


def test_a_native_thread_that_never_reported_holds_its_handoffs_and_its_runs() -> None:
    """Its "used" is what Threadline sent it: injected handoffs, its runs' inputs and items."""
    sc = Scenario()
    sc.run("codex", RunItem(kind=RunItemKind.DECISION, text="d" * 400))
    sc.run("claude", RunItem(kind=RunItemKind.TEST, text="t" * 40))
    claude = next(pt for pt in sc.provider_threads.values() if pt.provider == "claude")
    injected = sum(h.tokenEstimate for h in sc.handoffs.values())
    assert claude.heldTokens == injected + count("run 2") + count("t" * 40)
    sc.run("codex")
    back = sc.decide("claude")
    assert back.providerThread is not None and back.providerThread.id == claude.id
    assert back.budget is not None and back.budget.usedTokens == claude.heldTokens


def test_a_start_naming_no_model_is_budgeted_for_the_native_threads_model() -> None:
    sc = Scenario(registry=PROVIDERS)
    sc.run("codex")
    [codex] = sc.provider_threads.values()
    assert sc.decide("codex").budget.windowTokens == 272_000  # type: ignore[union-attr]
    sc.provider_threads[codex.id] = codex.model_copy(update={"model": "gpt-5.1-codex"})
    resumed = sc.decide("codex")
    assert resumed.providerThread is not None and resumed.providerThread.id == codex.id
    assert resumed.budget is not None
    assert (resumed.budget.windowTokens, resumed.budget.windowSource) == (
        400_000,
        ContextWindowSource.MODEL,
    )
    sc.run("codex")
    latest = max(sc.runs.values(), key=lambda run: run.ordinal)
    assert latest.model == "gpt-5.1-codex"  # the run says which model it was budgeted for


def test_a_handoff_made_again_fits_its_starts_budget_less_its_ready_siblings() -> None:
    """Only READY handoffs the same run injects count; a handoff made before budgets
    keeps the plan as the provider's cap made it."""
    codex = PROVIDERS.get("codex")
    plan = plan_handoff("src", [digest_of(r) for r in decided_runs(29)], codex, FULL, PORTABLE)
    assert plan.summary.tokenEstimate > 600
    made = head("h1", "run-9", plan.summary.tokenEstimate)
    assert refitted(plan, made, []) == plan  # no budget recorded
    budget = context_budget(codex, None, None, 0, POLICY).model_copy(update={"budgetTokens": 600})
    made = made.model_copy(update={"budget": budget})
    pending = head("h3", "run-9", 150).model_copy(update={"status": HandoffStatus.PENDING})
    others = [made, head("h2", "run-9", 200), pending, head("h4", "run-3", 300)]
    again = refitted(plan, made, others)
    assert again.allowedTokens == 400
    assert again.summary.tokenEstimate <= 400 and again.summary.omitted


def head(ident: str, run: str, tokens: int) -> HandoffHead:
    """A READY handoff that run `run` injects, of `tokens` tokens."""
    made = handoff(ident, 1, 9)
    return made.model_copy(update={"targetRunId": run, "tokenEstimate": tokens})
