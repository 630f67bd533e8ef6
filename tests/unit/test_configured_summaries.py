"""A summary written by someone else, as plans without a database: the configured
summarizer's answer stored (or the local summary standing in, saying why), and a summary
that failed replaced by the local one while its run waits."""

from __future__ import annotations

from graph.models import HandoffStatus, RunStatus, SummarySource
from resolvers.draft import Draft
from resolvers.handoffs import awaited
from resolvers.handoffs.requests import SummaryRequest, SummaryResult
from resolvers.handoffs.sources import Assignment
from resolvers.start import summary_failures, transfers
from resolvers.start.writes import StartOutcome
from tests.support.scenario import Scenario, waiting_start

TEXT = "## Goals\n- carry on with the checkout fix\n"


def configured_wait() -> tuple[Scenario, SummaryRequest]:
    scenario, outcome = waiting_start(SummarySource.CONFIGURED)
    [request] = outcome.requests
    return scenario, request


def test_an_answer_that_fits_is_the_text_and_says_who_wrote_it() -> None:
    scenario, request = configured_wait()
    result = SummaryResult(key=request.key, text=TEXT, createdBy="gpt", model="m1", generationMs=9)
    filled = scenario.apply(
        lambda draft: awaited.fill_configured(draft, scenario.state, request, result)
    )
    assert filled is not None
    stored = scenario.handoffs[request.handoffId]
    assert (stored.status, stored.summaryText, stored.model, stored.summaryKey) == (
        HandoffStatus.READY,
        TEXT,
        "m1",
        request.key,
    )
    assert stored.fallbackReason is None and stored.generationMs == 9


def test_an_oversized_answer_gives_way_to_the_local_summary_which_says_why() -> None:
    scenario, request = configured_wait()
    huge = "word " * (request.maxTokens * 4)
    result = SummaryResult(key=request.key, text=huge, generationMs=3)
    scenario.apply(lambda draft: awaited.fill_configured(draft, scenario.state, request, result))
    stored = scenario.handoffs[request.handoffId]
    assert stored.status is HandoffStatus.READY
    assert stored.summaryText == request.material.local(request.maxTokens).text
    assert (stored.fallbackReason or "").startswith("oversized:")


def test_a_handoff_no_longer_waiting_is_left_as_it_is() -> None:
    scenario, request = configured_wait()
    result = SummaryResult(key=request.key, text=TEXT)
    scenario.apply(lambda draft: awaited.fill_configured(draft, scenario.state, request, result))
    again = scenario.apply(
        lambda draft: awaited.fill_configured(draft, scenario.state, request, result)
    )
    assert again is None


def test_a_failed_summary_keeps_its_record_and_the_local_one_replaces_it() -> None:
    scenario, outcome = waiting_start(SummarySource.LEAVING_PROVIDER)
    [pending] = outcome.handoffs
    run = scenario.runs[outcome.run_id]
    state = scenario.state
    provider = scenario.registry.get(run.provider)
    replan = transfers.replan(pending, None, state, {}, provider, scenario.content())
    local = Assignment(source=SummarySource.LOCAL)

    def fail(draft: Draft) -> StartOutcome:
        return summary_failures.summary_failed(
            draft, state, {}, run, [pending], [replan], [local], {}, "codex timed out", provider
        )

    answer = scenario.apply(fail)
    old = scenario.handoffs[pending.id]
    [new] = answer.handoffs
    assert (old.status, old.failureReason, old.supersededById) == (
        HandoffStatus.FAILED,
        "codex timed out",
        new.id,
    )
    assert (new.status, new.summarySource) == (HandoffStatus.READY, SummarySource.LEAVING_PROVIDER)
    assert "summary failed: codex timed out" in (new.fallbackReason or "")
    assert new.id in scenario.runs[run.id].consumedHandoffIds
    assert answer.run.status is RunStatus.STARTING  # its provider thread is not attached yet
    assert answer.context_text == new.summaryText
