"""Coverage after a rollback (docs/MODEL.md): a handoff lives in a provider thread only as
long as the run it was injected into, so a rollback of that run supersedes it, and the
next start sends what it carried again: a thread's own runs, or a fork's inherited context,
whether that start resumes the provider thread or creates one."""

from __future__ import annotations

from graph.models import (
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderAction,
    ProviderThreadStatus,
    StartStrategy,
)
from graph.ranges import Ranges
from resolvers.coverage import coverage
from tests.support.scenario import Scenario


def probe() -> Scenario:
    """The model-based probe's thread: codex 1, claude 2, codex 3 (a delta of run 2)."""
    sc = Scenario(history=HistoryMode.LEGACY)
    for provider in ("codex", "claude", "codex"):
        sc.run(provider)
    return sc


def test_a_delta_injected_into_a_rolled_back_run_leaves_coverage() -> None:
    sc = probe()
    c1, l1 = sc.state.providerThreads
    [delta] = [h for h in sc.handoffs.values() if h.toProviderThreadId == c1.id]
    assert (delta.coveredFrom, delta.coveredTo) == (2, 2)
    decision = sc.rollback(2)
    # The delta covers run 2, which stays; run 3, which received it, is rolled back.
    assert decision.supersededHandoffIds == [delta.id]
    assert decision.providerThreadStatuses == {c1.id: ProviderThreadStatus.ROLLED_BACK}
    state = sc.state
    c1_now = state.provider_thread(c1.id)
    assert c1_now is not None
    assert coverage(c1_now, state.history, state.handoffs).missing == Ranges.span(2, 2)
    l1_now = state.provider_thread(l1.id)
    assert l1_now is not None and l1_now.status is ProviderThreadStatus.ACTIVE

    codex = sc.decide("codex")
    assert codex.strategy is StartStrategy.DELTA_HANDOFF_EXISTING_THREAD
    assert codex.providerAction is ProviderAction.RESUME
    assert codex.providerThread is not None and codex.providerThread.id == c1.id
    [again] = codex.handoffs
    assert again.kind is HandoffKind.DELTA_CONTEXT
    assert again.covered == Ranges.span(2, 2)


def test_on_history_the_provider_cannot_roll_back_it_diverges() -> None:
    sc = Scenario(history=HistoryMode.PAGINATED)
    for provider in ("codex", "claude", "codex"):
        sc.run(provider)
    c1, _ = sc.state.providerThreads
    decision = sc.rollback(2)
    assert decision.providerThreadStatuses == {c1.id: ProviderThreadStatus.DIVERGENT}
    codex = sc.decide("codex")
    assert codex.strategy is StartStrategy.FULL_HANDOFF_NEW_THREAD
    assert codex.handoffs[0].covered == Ranges.span(1, 2)


def test_a_handoff_injected_into_a_surviving_run_stays() -> None:
    sc = probe()
    sc.run("claude")  # run 4: a delta of run 3 into the claude thread
    by_run = {sc.runs[h.targetRunId or ""].ordinal: h.id for h in sc.handoffs.values()}
    decision = sc.rollback(3)
    assert decision.supersededHandoffIds == [by_run[4]]
    ready = {h.id for h in sc.handoffs.values() if h.status is HandoffStatus.READY}
    assert ready == {by_run[2], by_run[3]}  # injected into runs 2 and 3, still history


def test_a_failed_handoff_is_not_taken_by_its_runs_rollback() -> None:
    sc = probe()
    c1, _ = sc.state.providerThreads
    [delta] = [h for h in sc.handoffs.values() if h.toProviderThreadId == c1.id]
    sc.handoffs[delta.id] = delta.model_copy(update={"status": HandoffStatus.FAILED})
    assert sc.rollback(2).supersededHandoffIds == []


# ---- a fork's inherited context ---------------------------------------------------


def source(provider: str) -> Scenario:
    sc = Scenario(history=HistoryMode.LEGACY)
    for _ in range(3):
        sc.run(provider)
    return sc


def test_a_fork_without_runs_or_a_provider_thread_starts_with_its_inherited_context() -> None:
    fork = Scenario.fork_of(source("codex"), at=2)
    first = fork.decide("claude")
    assert (first.strategy, first.providerAction) == (
        StartStrategy.PORTABLE_CONTEXT,
        ProviderAction.CREATE,
    )
    [context] = first.handoffs
    assert context.sourceThreadId == "t" and context.covered == Ranges.span(1, 2)


def test_inherited_context_is_sent_again_on_create_after_its_run_is_rolled_back() -> None:
    fork = Scenario.fork_of(source("codex"), at=2)
    fork.run("claude")  # portable context into a new claude thread
    [received] = fork.handoffs.values()
    decision = fork.rollback(0)
    assert decision.supersededHandoffIds == [received.id]
    [l1] = fork.state.providerThreads
    assert decision.providerThreadStatuses == {l1.id: ProviderThreadStatus.DIVERGENT}

    again = fork.decide("claude")
    assert (again.strategy, again.providerAction) == (
        StartStrategy.PORTABLE_CONTEXT,
        ProviderAction.CREATE,
    )
    [context] = again.handoffs
    assert (context.sourceThreadId, context.kind) == ("t", HandoffKind.PORTABLE_CONTEXT)
    assert context.covered == Ranges.span(1, 2)
    assert fork.origin is not None and fork.origin.status.value == "CONSUMED"
    assert again.transfers == []  # the fork's transfer was consumed by its first run


def test_inherited_context_is_sent_again_on_resume_after_its_run_is_rolled_back() -> None:
    fork = Scenario.fork_of(source("claude"), at=2)
    fork.run("codex")  # the source ran claude: portable context into a new codex thread
    [p1] = fork.state.providerThreads
    fork.rollback(0)
    assert fork.state.providerThreads[0].status is ProviderThreadStatus.ROLLED_BACK

    again = fork.decide("codex")
    assert (again.strategy, again.providerAction) == (
        StartStrategy.PORTABLE_CONTEXT,
        ProviderAction.RESUME,
    )
    assert again.providerThread is not None and again.providerThread.id == p1.id
    [context] = again.handoffs
    assert context.sourceThreadId == "t" and context.covered == Ranges.span(1, 2)
    assert context.strategy is HandoffStrategy.FULL_THREAD_SUMMARY

    fork.run("codex")  # it is received again, and held from then on
    later = fork.decide("codex")
    assert later.strategy is StartStrategy.NO_HANDOFF and later.handoffs == []


def test_inherited_context_goes_beside_the_threads_own_runs_on_resume() -> None:
    fork = Scenario.fork_of(source("claude"), at=2)
    fork.run("codex")  # run 1: inherited context into P1
    fork.run("claude")  # run 2: a new claude thread, inherited context and run 1
    fork.run("codex")  # run 3: P1 resumed with a delta of run 2
    fork.rollback(0)
    fork.run("claude")  # run 4 on a new claude thread (L1 diverged)
    resumed = fork.decide("codex")
    assert resumed.strategy is StartStrategy.DELTA_HANDOFF_EXISTING_THREAD
    assert [(h.sourceThreadId, h.covered) for h in resumed.handoffs] == [
        ("t", Ranges.span(1, 2)),  # inherited first (root first, then the thread's own)
        ("f", Ranges.span(4, 4)),
    ]


def test_inherited_context_whose_run_survives_is_not_sent_again() -> None:
    fork = Scenario.fork_of(source("claude"), at=2)
    fork.run("codex")
    fork.run("codex")
    fork.rollback(1)
    after = fork.decide("codex")
    assert (after.strategy, after.providerAction) == (
        StartStrategy.NO_HANDOFF,
        ProviderAction.CONTINUE,
    )


def test_a_native_fork_holds_its_inherited_context_natively() -> None:
    fork = Scenario.fork_of(source("codex"), at=2)
    first = fork.run("codex")
    assert first.strategy is StartStrategy.NATIVE_FORK and not first.handoffs
    fork.rollback(0)
    again = fork.decide("codex")
    assert (again.strategy, again.providerAction) == (
        StartStrategy.NO_HANDOFF,
        ProviderAction.RESUME,
    )


def test_a_fork_of_a_fork_gets_every_ancestors_context_again_root_first() -> None:
    fork = Scenario.fork_of(source("codex"), at=2)
    fork.run("claude")  # portable context of t into a claude thread
    grand = Scenario.fork_of(fork, at=1, thread_id="g")
    first = grand.run("codex")  # f ran claude: portable context of t and f
    assert [h.sourceThreadId for h in first.handoffs] == ["t", "f"]
    grand.rollback(0)
    again = grand.decide("codex")
    assert (again.strategy, again.providerAction) == (
        StartStrategy.PORTABLE_CONTEXT,
        ProviderAction.RESUME,
    )
    assert [(h.sourceThreadId, h.covered) for h in again.handoffs] == [
        ("t", Ranges.span(1, 2)),
        ("f", Ranges.span(1, 1)),
    ]
