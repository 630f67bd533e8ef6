"""explainStartContext as of a start: the replay, or the run's record where they differ."""

from __future__ import annotations

from graph.models import HandoffStatus, StartStrategy
from graph.thread_state import ThreadState
from resolvers.past.replay import Recorded, explained
from resolvers.start.decision import StartRequest, decide_start
from resolvers.start.staleness import StalenessPolicy
from tests.support.scenario import Scenario


def canonical_then_run_9() -> tuple[Scenario, ThreadState, Recorded]:
    """The canonical example; the state just before run 9 and what run 9 recorded."""
    sc = Scenario()
    for provider in ["codex"] * 5 + ["claude"] * 3:
        sc.run(provider)
    before = sc.state
    decision = sc.run("codex")
    run = next(r for r in sc.runs.values() if r.ordinal == 9)
    record = Recorded(
        run=run,
        strategy=decision.strategy,
        providerAction=decision.providerAction,
        providerThreadId=run.providerThreadId,
        handoffs=[h for h in sc.handoffs.values() if h.targetRunId == run.id],
    )
    return sc, before, record


def test_the_same_decision_is_the_replay_with_its_run_named() -> None:
    sc, state, record = canonical_then_run_9()
    replay = decide_start(
        state, StartRequest(provider="codex", input=""), sc.registry, sc.policy, sc.content()
    )
    found = explained(replay, state, record)
    assert not found.differsFromRecord and found.recordedRun == record.run
    assert found.strategy is StartStrategy.DELTA_HANDOFF_EXISTING_THREAD
    assert found.covered == [6, 7, 8] and found.providerThreadId == record.providerThreadId
    assert found.explanation[:-1] == replay.explanation


def test_where_the_replay_differs_the_record_wins_and_says_so() -> None:
    sc, state, record = canonical_then_run_9()
    strict = StalenessPolicy(max_off_provider_runs=2)
    replay = decide_start(
        state, StartRequest(provider="codex", input=""), sc.registry, strict, sc.content()
    )
    assert replay.strategy is StartStrategy.FULL_HANDOFF_NEW_THREAD
    found = explained(replay, state, record)
    assert found.differsFromRecord
    assert (found.strategy, found.providerThreadId) == (record.strategy, record.providerThreadId)
    assert found.tokenEstimate == sum(h.tokenEstimate for h in record.handoffs)
    assert found.covered == [6, 7, 8]
    assert "FULL_HANDOFF_NEW_THREAD" in found.explanation[-1]
    assert all(h.status is HandoffStatus.READY for h in record.handoffs)
