"""The second transaction of a start whose summaries the configured summarizer writes.

The start committed with those handoffs PENDING and the thread's lock released; the
service then called the summarizer outside any transaction. This stores each answer (or
the local summary and why it stands in) in the handoff that still waits for it, lets the
run run, and rewrites the command's receipt, so a replay answers what the client got.
A handoff filled or replaced meanwhile is left as it is, so running this twice is
harmless.
"""

from __future__ import annotations

from collections.abc import Sequence

from api import receipts
from api.commands.caller import Caller, locked
from graph import repo
from graph.models import HandoffNode, ThreadState
from graph.plan import CommandId
from graph.store import Tx
from resolvers import summary_plans
from resolvers.draft import Draft
from resolvers.run_plans import StartOutcome
from resolvers.summary_requests import SummaryRequest, SummaryResult

Answered = Sequence[tuple[SummaryRequest, SummaryResult]]


async def store_summaries(
    tx: Tx,
    caller: Caller,
    outcome: StartOutcome,
    answered: Answered,
    command_id: CommandId | None,
) -> StartOutcome:
    state, _ = await locked(tx, caller, outcome.run.threadId)
    draft = caller.draft()
    filled: dict[str, HandoffNode] = {}
    for request, result in answered:
        node = summary_plans.fill_configured(draft, state, request, result)
        if node is not None:
            filled[node.id] = node
    summary_plans.settle(draft, state, outcome.run.id, set(filled))
    await repo.apply(tx, caller.workspace, draft.build())
    answer = await _as_now(tx, caller, state, draft, outcome, filled)
    if command_id is not None:
        await receipts.rewrite(tx, caller.workspace, command_id, answer)
    return answer


async def _as_now(
    tx: Tx,
    caller: Caller,
    state: ThreadState,
    draft: Draft,
    outcome: StartOutcome,
    filled: dict[str, HandoffNode],
) -> StartOutcome:
    """The start's answer with its run and handoffs as they are now."""
    known = {h.id: h for h in state.runHandoffs} | filled
    gone = [h.id for h in outcome.handoffs if h.id not in known]
    if gone:  # replaced meanwhile (reportStartFailure): answer with what replaced them
        replaced = await repo.handoffs_by_ids(tx, caller.workspace, gone)
        known |= {ident: known.get(h.supersededById or "", h) for ident, h in replaced.items()}
    run = state.lastRun if state.lastRun and state.lastRun.id == outcome.run.id else outcome.run
    pt = state.provider_thread(outcome.provider_thread.id) or outcome.provider_thread
    said = [summary_plans.written(node) for node in filled.values()]
    decision = outcome.decision
    return StartOutcome(
        run=draft.updated("run", run),
        provider_thread=pt,
        handoffs=[known.get(h.id, h) for h in outcome.handoffs],
        transfers=outcome.transfers,
        decision=decision.model_copy(update={"explanation": [*decision.explanation, *said]}),
        requests=outcome.requests,
    )
