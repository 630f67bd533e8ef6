"""Threads and runs: create, start, report a start failure, attach, complete, fail,
roll back, request clean context."""

from __future__ import annotations

from collections.abc import Sequence

from api.commands.caller import Caller, apply, cached_summaries, decided, locked
from graph import repo
from graph.errors import not_found
from graph.models import (
    FileDiffStat,
    HandoffNode,
    HistoryMode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    SummarySource,
    ThreadNode,
    ThreadState,
)
from graph.store import Tx
from resolvers import rollback as rollbacks
from resolvers import run_plans, summary_failures, summary_plans, summary_sources, transfers
from resolvers.providers import ProviderCapabilities
from resolvers.run_plans import StartOutcome
from resolvers.start import StartDecision, StartRequest, decide_start


async def create_thread(tx: Tx, caller: Caller, title: str | None, ident: str | None) -> ThreadNode:
    draft = caller.draft()
    thread = run_plans.create_thread(draft, caller.workspace, title, ident)
    await apply(tx, caller, draft.build())
    return thread


async def request_clean_context(tx: Tx, caller: Caller, thread_id: str) -> str:
    state, _ = await locked(tx, caller, thread_id)
    draft = caller.draft()
    run_plans.request_clean_context(draft, state)
    await apply(tx, caller, draft.build())
    return thread_id


async def start_run(
    tx: Tx,
    caller: Caller,
    thread_id: str,
    request: StartRequest,
    asked: SummarySource | None = None,
) -> StartOutcome:
    """`asked`: the summary source the call names (else the provider's, else the default)."""
    state, related = await locked(tx, caller, thread_id, related=True)
    source = _source(caller, asked, caller.providers.get(request.provider))
    decision = await decided(
        tx,
        caller,
        lambda content: decide_start(
            state, request, caller.providers, caller.policy, content, threads=related
        ),
    )
    assignments = summary_sources.assign(
        decision.handoffs,
        source,
        decision.provider,
        {thread_id: state, **related},
        caller.summaries,
    )
    cached = await cached_summaries(tx, caller, assignments)
    draft = caller.draft()
    outcome = run_plans.start(
        draft, state, request, decision, assignments=assignments, cached=cached
    )
    await apply(tx, caller, draft.build())
    return outcome


def _source(
    caller: Caller, asked: SummarySource | None, entering: ProviderCapabilities
) -> SummarySource:
    source = summary_sources.chosen(asked, entering, caller.summaries)
    summary_sources.require_available(source, caller.summaries)
    return source


async def explain_start(
    tx: Tx, caller: Caller, thread_id: str, request: StartRequest
) -> tuple[StartDecision, ThreadState]:
    """The decision startRun would take now; nothing is locked or written."""
    found = await repo.states(tx, caller.workspace, thread_id, lock=False, related=True)
    if found is None:
        raise not_found("thread", thread_id)
    state, related = found
    decision = await decided(
        tx,
        caller,
        lambda content: decide_start(
            state, request, caller.providers, caller.policy, content, threads=related
        ),
    )
    return decision, state


async def report_start_failure(
    tx: Tx, caller: Caller, run_id: str, reason: str, asked: SummarySource | None = None
) -> StartOutcome:
    """The provider action failed: the run moves to a new provider thread. While the run
    still waits for a summary, the summary failed instead (`_summary_failed`)."""
    state, related, run = await run_in_progress(
        tx, caller, run_id, "report a start failure", related=True
    )
    provider = caller.providers.get(run.provider)
    pending = summary_plans.pending_of(state, run.id)
    if pending:
        return await _summary_failed(tx, caller, state, related, run, pending, reason, asked)
    source = _source(caller, asked, provider)
    request = StartRequest(
        provider=run.provider, input=run.input, model=run.model, runtimeMode=run.runtimeMode
    )
    decision = await decided(
        tx,
        caller,
        lambda content: decide_start(
            state, request, caller.providers, caller.policy, content, restart=run, threads=related
        ),
    )
    assignments = summary_sources.assign(
        decision.handoffs, source, provider, {state.thread.id: state, **related}, caller.summaries
    )
    cached = await cached_summaries(tx, caller, assignments)
    draft = caller.draft()
    outcome = run_plans.start(
        draft,
        state,
        request,
        decision,
        restart=run,
        reason=reason,
        assignments=assignments,
        cached=cached,
    )
    await apply(tx, caller, draft.build())
    return outcome


async def _summary_failed(
    tx: Tx,
    caller: Caller,
    state: ThreadState,
    related: dict[str, ThreadState],
    run: RunNode,
    pending: list[HandoffNode],
    reason: str,
    asked: SummarySource | None,
) -> StartOutcome:
    """New handoffs for the ones whose summary failed: the local summary, unless the call
    asks another provider or the configured summarizer to try."""
    source = asked if asked is not None else SummarySource.LOCAL
    summary_sources.require_available(source, caller.summaries)
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
    assignments = summary_sources.assign(
        replans, source, provider, {state.thread.id: state, **related}, caller.summaries
    )
    cached = await cached_summaries(tx, caller, assignments)
    draft = caller.draft()
    outcome = summary_failures.summary_failed(
        draft, state, related, run, pending, replans, assignments, cached, reason, provider
    )
    await apply(tx, caller, draft.build())
    return outcome


async def attach_native_thread(
    tx: Tx, caller: Caller, provider_thread_id: str, native_ref: str, history_mode: HistoryMode
) -> ProviderThreadNode:
    thread_id = await repo.thread_of(
        tx, "provider_thread/thread_of", caller.workspace, providerThreadId=provider_thread_id
    )
    if thread_id is None:
        raise not_found("provider thread", provider_thread_id)
    state, _ = await locked(tx, caller, thread_id)
    pt = state.provider_thread(provider_thread_id)
    if pt is None:
        raise not_found("provider thread", provider_thread_id)
    draft = caller.draft()
    attached = run_plans.attach(draft, state, pt, native_ref, history_mode)
    await apply(tx, caller, draft.build())
    return attached


async def complete_run(
    tx: Tx,
    caller: Caller,
    run_id: str,
    native_turn_ref: str | None,
    items: Sequence[RunItem],
    checkpoint_ref: str | None,
    diff_summary: Sequence[FileDiffStat] | None,
) -> RunNode:
    state, _, run = await run_in_progress(tx, caller, run_id, "complete", related=False)
    draft = caller.draft()
    done = run_plans.complete(
        draft, state, run, native_turn_ref, items, checkpoint_ref, diff_summary
    )
    await apply(tx, caller, draft.build())
    return done


async def fail_run(tx: Tx, caller: Caller, run_id: str, reason: str) -> RunNode:
    state, _, run = await run_in_progress(tx, caller, run_id, "fail", related=False)
    draft = caller.draft()
    failed = run_plans.fail(draft, state, run, reason)
    await apply(tx, caller, draft.build())
    return failed


async def rollback_thread(
    tx: Tx, caller: Caller, thread_id: str, to_ordinal: int
) -> rollbacks.RollbackDecision:
    state, _ = await locked(tx, caller, thread_id)
    rollbacks.check_rollback(state, to_ordinal)
    runs, affected = await repo.rollback_inputs(tx, caller.workspace, thread_id, to_ordinal)
    inputs = rollbacks.RollbackInputs(
        toOrdinal=to_ordinal,
        rolledRuns=runs,
        affected=[rollbacks.AffectedHandoff.model_validate(a) for a in affected],
    )
    decision = rollbacks.decide_rollback(state, inputs, caller.providers)
    draft = caller.draft()
    run_plans.rollback(draft, state, decision, to_ordinal)
    await apply(tx, caller, draft.build())
    return decision


async def run_in_progress(
    tx: Tx, caller: Caller, run_id: str, verb: str, *, related: bool
) -> tuple[ThreadState, dict[str, ThreadState], RunNode]:
    """The run's thread, locked, and the run, which must be in progress."""
    owner = await repo.run_owner(tx, caller.workspace, run_id)
    if owner is None:
        raise not_found("run", run_id)
    state, others = await locked(tx, caller, owner[0], related=related)
    run = state.lastRun if state.lastRun and state.lastRun.id == run_id else None
    if run is None:
        fresh = await repo.run_owner(tx, caller.workspace, run_id)  # after the lock
        run = fresh[1] if fresh else owner[1]
    return state, others, run_plans.in_progress(state, run, verb)
