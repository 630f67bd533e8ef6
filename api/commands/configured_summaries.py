"""A start whose summaries the configured summarizer writes: two transactions and a call.

1. The start's transaction commits with those handoffs PENDING (a summary of the same
   material already paid for is reused there and then: no call, one transaction).
2. The service calls the summarizer for each, outside any transaction and with the
   thread's lock released, bounded by SUMMARIZER_TIMEOUT_S per attempt and
   SUMMARIZER_RETRIES; other writes, to this thread too, go on meanwhile.
3. A second transaction, with a DB_TIMEOUT_S of its own, stores each answer or the local
   summary and why it stands in; the answer then has every handoff READY.

A crash between 1 and 3 leaves the handoffs PENDING and the run STARTING. A replay of
the same commandId finds them so and does 2 and 3 again. Without one, the caller (or
anyone) settles them: reportStartFailure falls back to the local summary (or asks
another source), regenerateHandoff fills one with the local summary, submitHandoffSummary
with a provider's.

The second transaction stores each answer (or the local summary and why it stands in) in
the handoff that still waits for it, lets the run run, and rewrites the command's receipt,
so a replay answers what the client got. A handoff filled or replaced meanwhile is left
as it is, so running it twice is harmless.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from api.commands import receipts
from api.commands.caller import Caller, locked
from api.commands.summarizer_client import ConfiguredSummarizer
from graph import repo
from graph.errors import ErrorCode, ThreadlineError
from graph.models import HandoffNode
from graph.plan import CommandId
from graph.store import Store, deadline_in
from graph.thread_state import ThreadState
from graph.tx import Tx
from resolvers.draft import Draft
from resolvers.handoffs import awaited
from resolvers.handoffs.requests import SummaryRequest, SummaryResult
from resolvers.handoffs.sources import URL_SETTING
from resolvers.start.writes import StartOutcome


@dataclass(frozen=True)
class SummaryStep:
    """The step after a start's transaction: its configured summaries fetched and stored
    (`finish`), with the service's store, summarizer and bound on the second transaction."""

    store: Store
    summarizer: ConfiguredSummarizer | None
    db_timeout_s: float

    async def __call__(
        self, caller: Caller, outcome: StartOutcome, command_id: CommandId | None
    ) -> StartOutcome:
        return await finish(
            self.store, caller, self.summarizer, outcome, command_id, self.db_timeout_s
        )


async def finish(
    store: Store,
    caller: Caller,
    summarizer: ConfiguredSummarizer | None,
    outcome: StartOutcome,
    command_id: CommandId | None,
    db_timeout_s: float,
) -> StartOutcome:
    """`outcome` with its configured summaries fetched and stored (unchanged without any)."""
    asked = outcome.configured_requests
    if not asked:
        return outcome
    results = await asyncio.gather(*(_summary(summarizer, request) for request in asked))
    answered = list(zip(asked, results, strict=True))

    async def second(tx: Tx) -> StartOutcome:
        return await store_summaries(tx, caller, outcome, answered, command_id)

    try:
        with deadline_in(db_timeout_s):
            # Idempotent: it fills only handoffs that still wait, so a retry is harmless.
            return await store.write(second, idempotent=True)
    except ThreadlineError as error:
        if error.code is not ErrorCode.UNAVAILABLE:
            raise
        raise ThreadlineError(
            ErrorCode.UNAVAILABLE,
            f"Run {outcome.run.ordinal} was started, but its configured summary could not be "
            "stored (the graph database went away): retry with the same commandId, or settle "
            "the pending handoff with reportStartFailure.",
            outcome="COMMITTED",
        ) from error


async def _summary(
    summarizer: ConfiguredSummarizer | None, request: SummaryRequest
) -> SummaryResult:
    if summarizer is None:  # the setting went away since the start was asked
        return SummaryResult(key=request.key, fallbackReason=f"not configured: {URL_SETTING}")
    return await summarizer.summarize(request)


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
        node = awaited.fill_configured(draft, state, request, result)
        if node is not None:
            filled[node.id] = node
    awaited.settle(draft, state, outcome.run.id, set(filled))
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
    said = [awaited.written(node) for node in filled.values()]
    decision = outcome.decision
    return StartOutcome(
        run=draft.updated(run),
        provider_thread=pt,
        handoffs=[known.get(h.id, h) for h in outcome.handoffs],
        transfers=outcome.transfers,
        decision=decision.model_copy(update={"explanation": [*decision.explanation, *said]}),
        requests=outcome.requests,
    )
