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
"""

from __future__ import annotations

import asyncio

from api.commands import summaries
from api.context import Context
from graph.errors import ErrorCode, ThreadlineError
from graph.store import Tx, deadline_in
from resolvers.run_plans import StartOutcome
from resolvers.summary_requests import SummaryRequest, SummaryResult
from resolvers.summary_sources import URL_SETTING


async def finish(context: Context, outcome: StartOutcome, command_id: str | None) -> StartOutcome:
    """`outcome` with its configured summaries fetched and stored (unchanged without any)."""
    asked = outcome.configured_requests
    if not asked:
        return outcome
    results = await asyncio.gather(*(_summary(context, request) for request in asked))
    caller = context.caller
    answered = list(zip(asked, results, strict=True))
    key = context.command_key(command_id)

    async def store(tx: Tx) -> StartOutcome:
        return await summaries.store_summaries(tx, caller, outcome, answered, key)

    try:
        with deadline_in(context.settings.db_timeout_s):
            # Idempotent: it fills only handoffs that still wait, so a retry is harmless.
            return await context.store.write(store, idempotent=True)
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


async def _summary(context: Context, request: SummaryRequest) -> SummaryResult:
    summarizer = context.services.summarizer
    if summarizer is None:  # the setting went away since the start was asked
        return SummaryResult(key=request.key, fallbackReason=f"not configured: {URL_SETTING}")
    return await summarizer.summarize(request)
