"""Usage limits on the pure rules: reports and clears, the refusal of a start, the ranking
of suggested providers, and an interrupted run as history."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    HandoffStrategy,
    ProviderLimitNode,
    RunItem,
    RunItemKind,
    RunStatus,
    StartStrategy,
)
from resolvers import limits
from resolvers import runs as run_plans
from resolvers.coverage import coverage
from resolvers.draft import Draft
from tests.support.scenario import Scenario

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
DELTA = HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN
FULL = HandoffStrategy.FULL_THREAD_SUMMARY


def limit(
    provider: str, *, resets_in: float | None = 3600, ident: str = "lim"
) -> ProviderLimitNode:
    return ProviderLimitNode(
        id=ident,
        workspace="w",
        provider=provider,
        reason="weekly limit",
        resetsAt=NOW + timedelta(seconds=resets_in) if resets_in is not None else None,
        reportedAt=NOW,
    )


def draft() -> Draft:
    return Draft(lambda prefix: f"{prefix}1", NOW)


def test_a_limit_is_active_until_its_reset_or_its_end() -> None:
    open_ended = limit("claude", resets_in=None)
    assert open_ended.active(NOW + timedelta(days=365))
    timed = limit("claude", resets_in=60)
    assert timed.active(NOW + timedelta(seconds=59))
    assert not timed.active(NOW + timedelta(seconds=60))
    assert not limit("claude", resets_in=-1).active(NOW)  # reported already past: inactive
    assert not open_ended.model_copy(update={"endedAt": NOW}).active(NOW)


def test_a_new_report_ends_the_providers_limit_in_force() -> None:
    plan = draft()
    earlier = [limit("claude", ident="old"), limit("codex", ident="other")]
    made = limits.report(plan, "w", "claude", "daily limit", None, earlier)
    built = plan.build()
    assert [change.id for change in built.limitChanges] == ["old"]
    assert built.limits == [made] and made.reason == "daily limit" and made.active(NOW)


def test_a_clear_ends_the_limit_in_force_or_answers_none() -> None:
    plan = draft()
    ended = limits.clear(plan, "claude", [limit("claude")])
    assert ended is not None and ended.endedAt == NOW and not ended.active(NOW)
    assert limits.clear(draft(), "codex", [limit("claude")]) is None


def test_a_start_on_a_limited_provider_is_refused_with_what_to_do() -> None:
    in_force = [limit("claude", resets_in=600)]
    limits.require_available("codex", in_force, ["claude", "codex"])
    with pytest.raises(ThreadlineError) as refused:
        limits.require_available("claude", in_force, ["claude", "codex"])
    error = refused.value
    assert error.code is ErrorCode.PROVIDER_LIMITED
    assert error.extensions["resetsAt"] == (NOW + timedelta(seconds=600)).isoformat()
    assert error.extensions["availableProviders"] == ["codex"]
    assert "ignoreLimit" in error.message


def candidate(
    provider: str, strategies: list[HandoffStrategy], tokens: int, *, limited: bool = False
) -> limits.Candidate:
    return limits.Candidate(
        provider=provider,
        limit=limit(provider) if limited else None,
        handoffStrategies=strategies,
        tokenEstimate=tokens,
    )


def test_suggestions_put_available_providers_first_then_the_cheapest_context() -> None:
    ranked = limits.ranked(
        [
            candidate("limited-native", [], 0, limited=True),
            candidate("full-small", [FULL], 200),
            candidate("delta-large", [DELTA], 900),
            candidate("full-large", [FULL], 5000),
            candidate("native", [], 0),
            candidate("delta-small", [DELTA], 100),
            candidate("mixed", [DELTA, FULL], 50),
        ]
    )
    assert [c.provider for c in ranked] == [
        "native",
        "delta-small",
        "delta-large",
        "mixed",
        "full-small",
        "full-large",
        "limited-native",
    ]


def test_equal_candidates_are_ranked_by_name() -> None:
    ranked = limits.ranked([candidate("b", [], 0), candidate("a", [], 0)])
    assert [c.provider for c in ranked] == ["a", "b"]


PARTIAL = (
    RunItem(kind=RunItemKind.FILE_CHANGE, text="", path="src/half_done.py"),
    RunItem(kind=RunItemKind.ASSISTANT_MESSAGE, text="Halfway through the parser rewrite."),
)


def test_an_interrupted_run_is_history_its_provider_thread_saw() -> None:
    scenario = Scenario()
    scenario.run("claude")
    scenario.run("claude", *PARTIAL, status=RunStatus.INTERRUPTED)
    interrupted = next(r for r in scenario.runs.values() if r.ordinal == 2)
    assert interrupted.status is RunStatus.INTERRUPTED
    assert interrupted.failureReason == "limit hit"
    assert [item.text for item in interrupted.items][1] == PARTIAL[1].text
    state = scenario.state
    assert list(state.history) == [1, 2] and state.run_in_progress is None
    [claude] = state.providerThreads
    assert list(claude.native) == [1, 2]
    assert list(coverage(claude, state.history, state.handoffs).missing) == []
    # Back on the same provider once the limit is over: it saw run 2, nothing to carry.
    back = scenario.decide("claude")
    assert back.strategy is StartStrategy.NO_HANDOFF and back.handoffs == []


def test_the_next_handoff_asks_to_continue_the_interrupted_request() -> None:
    scenario = Scenario()
    scenario.run("claude")
    scenario.run("claude", *PARTIAL, status=RunStatus.INTERRUPTED)
    switch = scenario.decide("codex")
    [handoff] = switch.handoffs
    text = handoff.summary.text
    assert "Run 2 was interrupted by a usage limit (limit hit)" in text
    assert "continue its request where it stopped" in text
    assert "Run 2 asked: run 2" in text
    assert "src/half_done.py" in text and PARTIAL[1].text in text


def test_a_later_run_finishes_what_was_interrupted() -> None:
    scenario = Scenario()
    scenario.run("claude", status=RunStatus.INTERRUPTED)
    scenario.run("codex")
    scenario.request_clean_context()  # a full summary of runs 1-2
    [handoff] = scenario.decide("claude").handoffs
    assert "Run 1 was interrupted by a usage limit" in handoff.summary.text
    assert "later runs went on" in handoff.summary.text


def test_only_a_run_of_the_limited_provider_can_be_interrupted() -> None:
    scenario = Scenario()
    scenario.run("claude")
    request_state = scenario.state
    assert request_state.lastRun is not None
    with pytest.raises(ThreadlineError) as refused:
        run_plans.interrupt(draft(), request_state, request_state.lastRun, limit("codex"), [])
    assert refused.value.code is ErrorCode.INVALID_INPUT


def test_two_reports_that_raced_are_both_ended_and_the_newer_speaks() -> None:
    older = limit("claude", ident="a")
    newer = limit("claude", ident="b").model_copy(
        update={"reportedAt": NOW + timedelta(seconds=1), "reason": "newer"}
    )
    assert limits.limit_of("claude", [newer, older]) == newer
    plan = draft()
    ended = limits.clear(plan, "claude", [older, newer])
    assert ended is not None and ended.reason == "newer"
    assert sorted(change.id for change in plan.build().limitChanges) == ["a", "b"]
