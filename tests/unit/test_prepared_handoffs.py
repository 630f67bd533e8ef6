"""Prepared handoffs, decided without a database: what prepareHandoff writes, which start
injects one as it is, and which supersedes it because its plan moved."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.models import HandoffStatus, StartStrategy, SummarySource
from resolvers.handoffs.replacement import submitted
from resolvers.start import prepared
from tests.support.scenario import Scenario


def two_codex_runs() -> Scenario:
    scenario = Scenario()
    scenario.run("codex")
    scenario.run("codex")
    return scenario


def test_prepare_writes_the_handoff_the_next_start_would_inject() -> None:
    scenario = two_codex_runs()
    expected = scenario.decide("claude")
    node = scenario.prepare("claude")
    [own] = expected.handoffs
    assert node.status is HandoffStatus.READY and node.summarySource is SummarySource.LOCAL
    assert (node.preparedFor, node.preparedInto) == ("claude", None)
    assert node.targetRunId is None and node.toProviderThreadId is None and node.prepared
    assert (node.coveredFrom, node.coveredTo) == (own.coveredFrom, own.coveredTo)
    assert node.summaryText == own.summary.text
    assert [h.id for h in scenario.state.prepared] == [node.id]


def test_a_start_whose_plan_has_not_moved_injects_it_as_it_is_and_says_so() -> None:
    scenario = two_codex_runs()
    node = scenario.prepare("claude")
    decision = scenario.decide("claude")
    assert decision.preparedHandoffId == node.id and decision.supersededPrepared == {}
    [planned] = decision.handoffs
    assert planned.preparedId == node.id and planned.summary.text == node.summaryText
    assert any(f"prepared handoff {node.id}" in line for line in decision.explanation)
    scenario.run("claude")
    injected = scenario.handoffs[node.id]
    run = max(scenario.runs.values(), key=lambda r: r.ordinal)
    assert injected.targetRunId == run.id and injected.toProviderThreadId == run.providerThreadId
    assert injected.status is HandoffStatus.READY and node.id in run.consumedHandoffIds
    assert scenario.state.prepared == []
    # Written once, when it was prepared: the start wrote no new handoff of runs 1-2.
    assert [h.id for h in scenario.handoffs.values() if h.coveredTo == 2] == [node.id]


def test_another_provider_is_not_offered_it() -> None:
    scenario = two_codex_runs()
    scenario.prepare("claude")
    decision = scenario.decide("codex")
    assert decision.preparedHandoffId is None and decision.supersededPrepared == {}


def test_a_new_run_moves_the_plan_and_the_start_supersedes_it() -> None:
    scenario = two_codex_runs()
    node = scenario.prepare("claude")
    scenario.run("codex")
    decision = scenario.decide("claude")
    assert decision.preparedHandoffId is None
    assert list(decision.supersededPrepared) == [node.id]
    assert "runs 1-2" in decision.supersededPrepared[node.id]
    [fresh] = decision.handoffs
    assert fresh.preparedId is None and (fresh.coveredFrom, fresh.coveredTo) == (1, 3)
    scenario.run("claude")
    gone = scenario.handoffs[node.id]
    assert gone.status is HandoffStatus.SUPERSEDED and gone.targetRunId is None
    built = next(h for h in scenario.handoffs.values() if h.coveredTo == 3)
    assert gone.supersededById == built.id


def test_a_second_prepare_supersedes_the_first() -> None:
    scenario = two_codex_runs()
    first = scenario.prepare("claude")
    second = scenario.prepare("claude")
    assert scenario.handoffs[first.id].status is HandoffStatus.SUPERSEDED
    assert scenario.handoffs[first.id].supersededById == second.id
    assert [h.id for h in scenario.state.prepared] == [second.id]


def test_nothing_to_prepare_is_a_conflict() -> None:
    scenario = Scenario()
    with pytest.raises(ThreadlineError) as empty:
        scenario.prepare("claude")
    assert empty.value.code is ErrorCode.CONFLICT
    scenario = two_codex_runs()
    assert scenario.decide("codex").strategy is StartStrategy.NO_HANDOFF
    with pytest.raises(ThreadlineError) as covered:
        scenario.prepare("codex")
    assert covered.value.code is ErrorCode.CONFLICT and "codex" in covered.value.message


def test_moved_names_what_changed() -> None:
    scenario = two_codex_runs()
    node = scenario.prepare("claude")
    [own] = scenario.decide("claude").handoffs
    assert prepared.moved(node, own.model_copy(update={"preparedId": None}), None) is None
    assert "none of the thread's own runs" in (prepared.moved(node, None, None) or "")
    wider = own.model_copy(update={"coveredTo": 3})
    assert "runs 1-3" in (prepared.moved(node, wider, None) or "")
    pt = next(iter(scenario.provider_threads.values()))
    assert "another provider thread" in (prepared.moved(node, own, pt) or "")


def test_a_person_s_text_is_person_sourced_and_a_provider_s_is_theirs() -> None:
    scenario = two_codex_runs()
    node = scenario.prepare("claude")
    at = datetime(2026, 2, 1, tzinfo=UTC)
    assert submitted(node, "claude", None, at).summarySource is SummarySource.PERSON
    assert submitted(node, "claude", None, at).createdByProvider is None
    assert submitted(node, "claude", "claude", at).summarySource is (
        SummarySource.ENTERING_PROVIDER
    )
    assert submitted(node, "claude", "codex", at).summarySource is SummarySource.LEAVING_PROVIDER
