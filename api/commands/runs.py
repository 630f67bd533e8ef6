"""Threads and runs: create, start, report a start failure, attach, complete, fail,
roll back, request clean context."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from api.commands.caller import Caller, assigned, decided, locked
from api.commands.configured_summaries import SummaryStep
from api.commands.receipts import Written
from api.commands.steps import InSteps
from graph import repo
from graph.errors import conflict, not_found
from graph.models import (
    FileDiffStat,
    HandoffHead,
    HistoryMode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    SummarySource,
    ThreadNode,
    UsageReport,
)
from graph.thread_state import ThreadState
from graph.tx import Tx
from resolvers import limits, runs
from resolvers.handoffs import awaited, sources
from resolvers.lineage import rollback
from resolvers.past import as_of, replay
from resolvers.past.as_of import Instant
from resolvers.providers import ProviderCapabilities
from resolvers.start import summary_failures, transfers, writes
from resolvers.start.decision import StartDecision, StartRequest, decide_start
from resolvers.start.writes import StartOutcome


async def create_thread(
    tx: Tx, caller: Caller, title: str | None, ident: str | None
) -> Written[ThreadNode]:
    draft = caller.draft()
    thread = runs.create_thread(draft, caller.workspace, title, ident)
    return Written(thread, draft.build())


async def request_clean_context(tx: Tx, caller: Caller, thread_id: str) -> Written[str]:
    state, _ = await locked(tx, caller, thread_id)
    draft = caller.draft()
    runs.request_clean_context(draft, state)
    return Written(thread_id, draft.build())


def start_run(
    thread_id: str,
    request: StartRequest,
    asked: SummarySource | None,
    summaries: SummaryStep,
    *,
    ignore_limit: bool = False,
) -> InSteps[StartOutcome]:
    """startRun, in two steps:
    1. `start` decides and writes the start: one write transaction, which leaves the
       handoffs the configured summarizer owes PENDING and the run STARTING;
    2. `summaries` then fetch those outside any transaction and store them in a second
       (api/commands/configured_summaries.py); without any, it answers the start as it is.
    """

    async def transaction(tx: Tx, caller: Caller) -> Written[StartOutcome]:
        return await start(tx, caller, thread_id, request, asked, ignore_limit=ignore_limit)

    return InSteps(transaction, summaries)


async def start(
    tx: Tx,
    caller: Caller,
    thread_id: str,
    request: StartRequest,
    asked: SummarySource | None = None,
    *,
    ignore_limit: bool = False,
) -> Written[StartOutcome]:
    """The start's transaction. `asked`: the summary source the call names (else the
    provider's, else the default). A provider with a usage limit in force is
    PROVIDER_LIMITED unless `ignore_limit`."""
    state, related = await locked(
        tx,
        caller,
        thread_id,
        ends=True,
        related=True,
        trimmed=True,
        limits_at=None if ignore_limit else caller.clock(),
    )
    if not ignore_limit:
        names = [provider.kind for provider in caller.providers.all()]
        limits.require_available(request.provider, state.limitsInForce, names)
    source = _source(caller, asked, caller.providers.get(request.provider))
    decision = await start_decision(tx, caller, state, related, request)
    assignments, cached = await assigned(
        tx, caller, decision.handoffs, source, decision.provider, state, related
    )
    draft = caller.draft()
    outcome = writes.start(draft, state, request, decision, assignments=assignments, cached=cached)
    return Written(outcome, draft.build())


def _source(
    caller: Caller, asked: SummarySource | None, entering: ProviderCapabilities
) -> SummarySource:
    source = sources.chosen(asked, entering, caller.summaries)
    sources.require_available(source, caller.summaries)
    return source


async def explain_start(
    tx: Tx, caller: Caller, thread_id: str, request: StartRequest
) -> tuple[StartDecision, ThreadState]:
    """The decision startRun would take now; nothing is locked or written."""
    found = await repo.states(tx, caller.workspace, thread_id=thread_id, lock=False, related=True)
    if found is None:
        raise not_found("thread", thread_id)
    state, related = found
    return await start_decision(tx, caller, state, related, request), state


async def explain_start_then(
    tx: Tx, caller: Caller, thread_id: str, request: StartRequest, at: datetime
) -> replay.Explained:
    """The decision startRun would have taken at `at` (on what was committed before it),
    beside the one a run recorded at that instant, if any: a constant number of reads."""
    found = await repo.timelines(tx, caller.workspace, [thread_id])
    timeline = found.get(thread_id)
    before = as_of.past(timeline, Instant(at, before=True)) if timeline else None
    if timeline is None or before is None:
        raise not_found("thread", thread_id)
    busy = before.state.run_in_progress
    if busy is not None:
        raise conflict(f"Run {busy.ordinal} was in progress then; no run could start.")
    others = await repo.timelines(tx, caller.workspace, timeline.relatedIds)
    related = {
        key: then.state
        for key, other in others.items()
        if (then := as_of.past(other, Instant(at, before=True))) is not None
    }
    decision = await start_decision(tx, caller, before.state, related, request)
    event = await repo.start_event_at(tx, caller.workspace, thread_id, at)
    after = as_of.past(timeline, Instant(at))
    record = replay.recorded(event, after) if event and after else None
    if record is not None and record.run.provider != request.provider:
        record = None  # another question than the one asked
    return replay.explained(decision, before.state, record)


def report_start_failure(
    run_id: str, reason: str, asked: SummarySource | None, summaries: SummaryStep
) -> InSteps[StartOutcome]:
    """reportStartFailure, in the same two steps as startRun: `restart`'s transaction, then
    the configured summaries it asked for."""

    async def transaction(tx: Tx, caller: Caller) -> Written[StartOutcome]:
        return await restart(tx, caller, run_id, reason, asked)

    return InSteps(transaction, summaries)


async def restart(
    tx: Tx, caller: Caller, run_id: str, reason: str, asked: SummarySource | None = None
) -> Written[StartOutcome]:
    """The provider action failed: the run moves to a new provider thread. While the run
    still waits for a summary, the summary failed instead (`_summary_failed`)."""
    state, related, run = await run_in_progress(
        tx, caller, run_id, "report a start failure", related=True, ends=True
    )
    provider = caller.providers.get(run.provider)
    pending = awaited.pending_of(state, run.id)
    if pending:
        return await _summary_failed(tx, caller, state, related, run, pending, reason, asked)
    source = _source(caller, asked, provider)
    request = StartRequest(
        provider=run.provider, input=run.input, model=run.model, runtimeMode=run.runtimeMode
    )
    decision = await start_decision(tx, caller, state, related, request, restart=run)
    assignments, cached = await assigned(
        tx, caller, decision.handoffs, source, provider, state, related
    )
    draft = caller.draft()
    outcome = writes.start(
        draft,
        state,
        request,
        decision,
        restart=run,
        reason=reason,
        assignments=assignments,
        cached=cached,
    )
    return Written(outcome, draft.build())


async def _summary_failed(
    tx: Tx,
    caller: Caller,
    state: ThreadState,
    related: dict[str, ThreadState],
    run: RunNode,
    pending: list[HandoffHead],
    reason: str,
    asked: SummarySource | None,
) -> Written[StartOutcome]:
    """New handoffs for the ones whose summary failed: the local summary, unless the call
    asks another provider or the configured summarizer to try."""
    source = asked if asked is not None else SummarySource.LOCAL
    sources.require_available(source, caller.summaries)
    provider = caller.providers.get(run.provider)
    made_for = {x.id: x for x in state.transfers}
    replans = await decided(
        tx,
        caller,
        lambda content: [
            transfers.replan(h, made_for.get(h.transferId or ""), state, related, provider, content)
            for h in pending
        ],
    )
    assignments, cached = await assigned(tx, caller, replans, source, provider, state, related)
    draft = caller.draft()
    outcome = summary_failures.summary_failed(
        draft, state, related, run, pending, replans, assignments, cached, reason, provider
    )
    return Written(outcome, draft.build())


async def start_decision(
    tx: Tx,
    caller: Caller,
    state: ThreadState,
    related: dict[str, ThreadState],
    request: StartRequest,
    restart: RunNode | None = None,
) -> StartDecision:
    """decide_start, with the run content it asks for loaded (prepareHandoff decides the
    same way)."""
    return await decided(
        tx,
        caller,
        lambda content: decide_start(
            state,
            request,
            caller.providers,
            caller.policy,
            content,
            restart=restart,
            threads=related,
            context=caller.context,
        ),
    )


async def attach_native_thread(
    tx: Tx, caller: Caller, provider_thread_id: str, native_ref: str, history_mode: HistoryMode
) -> Written[ProviderThreadNode]:
    state, _ = await locked(
        tx, caller, provider_thread_id=provider_thread_id, trimmed=True, run_handoffs_only=True
    )
    pt = state.provider_thread(provider_thread_id)
    if pt is None:
        raise not_found("provider thread", provider_thread_id)
    draft = caller.draft()
    attached = runs.attach(draft, state, pt, native_ref, history_mode)
    return Written(attached, draft.build())


async def complete_run(
    tx: Tx,
    caller: Caller,
    run_id: str,
    native_turn_ref: str | None,
    items: Sequence[RunItem],
    checkpoint_ref: str | None,
    diff_summary: Sequence[FileDiffStat] | None,
    usage: UsageReport | None = None,
) -> Written[RunNode]:
    state, _, run = await run_in_progress(
        tx, caller, run_id, "complete", related=False, run_handoffs_only=True
    )
    draft = caller.draft()
    done = runs.complete(
        draft, state, run, native_turn_ref, items, checkpoint_ref, diff_summary, usage
    )
    return Written(done, draft.build())


async def report_context_usage(
    tx: Tx, caller: Caller, provider_thread_id: str, usage: UsageReport
) -> Written[ProviderThreadNode]:
    state, _ = await locked(tx, caller, provider_thread_id=provider_thread_id, trimmed=True)
    pt = state.provider_thread(provider_thread_id)
    if pt is None:
        raise not_found("provider thread", provider_thread_id)
    draft = caller.draft()
    reported = runs.report_usage(draft, state, pt, usage)
    return Written(reported, draft.build())


async def fail_run(tx: Tx, caller: Caller, run_id: str, reason: str) -> Written[RunNode]:
    state, _, run = await run_in_progress(
        tx, caller, run_id, "fail", related=False, run_handoffs_only=True
    )
    draft = caller.draft()
    failed = runs.fail(draft, state, run, reason)
    return Written(failed, draft.build())


async def rollback_thread(
    tx: Tx, caller: Caller, thread_id: str, to_ordinal: int
) -> Written[rollback.RollbackDecision]:
    state, _ = await locked(tx, caller, thread_id, ends=True)
    rollback.check_rollback(state, to_ordinal)
    read = await repo.rollback_inputs(tx, caller.workspace, thread_id, to_ordinal)
    inputs = rollback.RollbackInputs.model_validate({**read, "toOrdinal": to_ordinal})
    decision = rollback.decide_rollback(state, inputs, caller.providers)
    draft = caller.draft()
    rollback.record(draft, state, decision, to_ordinal)
    return Written(decision, draft.build())


async def run_in_progress(
    tx: Tx,
    caller: Caller,
    run_id: str,
    verb: str,
    *,
    related: bool,
    ends: bool = False,
    points: bool = False,
    run_handoffs_only: bool = False,
) -> tuple[ThreadState, dict[str, ThreadState], RunNode]:
    """The run's thread, locked, and the run, which must be in progress."""
    state, others = await locked(
        tx,
        caller,
        run_id=run_id,
        ends=ends,
        related=related,
        points=points,
        trimmed=not points,
        run_handoffs_only=run_handoffs_only,
    )
    run = state.lastRun if state.lastRun and state.lastRun.id == run_id else None
    if run is None:  # not the latest run, so not in progress: read it for the error
        owner = await repo.run_owner(tx, caller.workspace, run_id)
        if owner is None:
            raise not_found("run", run_id)
        run = owner[1]
    return state, others, runs.in_progress(state, run, verb)
