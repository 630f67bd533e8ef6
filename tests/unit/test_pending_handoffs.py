"""PENDING → READY | FAILED on the pure plans, replayed without a database."""

from __future__ import annotations

import pytest

from graph import events
from graph.errors import ErrorCode, ThreadlineError
from graph.models import HandoffStatus, HistoryMode, RunStatus, SummarySource
from resolvers import runs as run_plans
from resolvers.handoffs import replacement as handoff_plans
from resolvers.handoffs.fields import TextFields
from tests.support.scenario import waiting_start


def test_a_pending_handoff_holds_its_run_until_it_is_filled() -> None:
    scenario, outcome = waiting_start(SummarySource.LEAVING_PROVIDER)
    [waiting] = outcome.handoffs
    assert (waiting.status, waiting.summaryText, waiting.generationMs) == (
        HandoffStatus.PENDING,
        "",
        None,
    )
    [asked] = outcome.requests
    assert (asked.handoffId, asked.provider) == (waiting.id, "codex")
    assert outcome.context_text is None and outcome.waiting_requests == [asked]
    run = scenario.runs[outcome.run_id]
    with pytest.raises(ThreadlineError) as refused:
        scenario.apply(
            lambda draft: run_plans.complete(draft, scenario.state, run, None, [], None, None)
        )
    assert refused.value.code is ErrorCode.CONFLICT

    pt = scenario.provider_threads[outcome.provider_thread_id]
    scenario.apply(
        lambda draft: run_plans.attach(draft, scenario.state, pt, "native", HistoryMode.LEGACY)
    )
    assert scenario.runs[run.id].status is RunStatus.STARTING  # attached, still waiting

    target = scenario.provider_threads[pt.id]
    scenario.apply(
        lambda draft: handoff_plans.replace(
            draft,
            scenario.state,
            waiting,
            TextFields.of_text("by codex", []),
            handoff_plans.submitted(waiting, target, "codex", draft.at),
            events.HandoffSubmitted,
        )
    )
    filled = scenario.handoffs[waiting.id]
    assert (filled.status, filled.createdByProvider, filled.summarySource) == (
        HandoffStatus.READY,
        "codex",
        SummarySource.LEAVING_PROVIDER,
    )
    assert scenario.runs[run.id].status is RunStatus.RUNNING


def test_failing_a_waiting_run_fails_its_pending_handoffs() -> None:
    scenario, outcome = waiting_start(SummarySource.ENTERING_PROVIDER)
    run = scenario.runs[outcome.run_id]
    scenario.apply(lambda draft: run_plans.fail(draft, scenario.state, run, "gave up"))
    [handoff] = outcome.handoffs
    failed = scenario.handoffs[handoff.id]
    assert failed.status is HandoffStatus.FAILED and "gave up" in (failed.failureReason or "")
    assert scenario.state.handoffs == []  # nothing is left waiting


def test_a_local_start_is_what_it_was() -> None:
    _, outcome = waiting_start(SummarySource.LOCAL)
    [made] = outcome.handoffs
    assert made.status is HandoffStatus.READY and made.summarySource is SummarySource.LOCAL
    assert outcome.requests == [] and outcome.context_text == made.summaryText
    assert outcome.run.startStrategy is not None and outcome.run.providerAction is not None
