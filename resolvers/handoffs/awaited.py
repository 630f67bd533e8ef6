"""What the summary sources write: handoffs that wait for a summary, and what fills them.

A handoff another summarizer writes is created PENDING, with no text yet, and its run
stays STARTING until every handoff it consumes is READY or replaced. A provider fills it
with submitHandoffSummary; the configured summarizer's answer (or, when that failed, the
local summary and why) fills it in the start's second transaction. A READY handoff is
never changed: it is superseded. So PENDING handoffs only ever belong to a run in
progress: completeRun waits for them, failRun marks them FAILED.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from graph import events
from graph.errors import conflict
from graph.models import (
    HandoffHead,
    HandoffNode,
    HandoffStatus,
    ProviderThreadNode,
    RunNode,
    RunStatus,
    SummarySource,
)
from graph.plan import HandoffChange
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.draft import Draft
from resolvers.handoffs.fields import WAITING, TextFields
from resolvers.handoffs.requests import SummaryRequest, SummaryResult, refusal
from resolvers.handoffs.sources import Assignment
from resolvers.start.decision import StartDecision
from resolvers.transitions import given


def sourced(
    node: HandoffNode, assignment: Assignment, cached: Mapping[str, HandoffNode]
) -> tuple[HandoffNode, SummaryRequest | None]:
    """`node` (built with the local summary) as its source has it: unchanged when that
    source is LOCAL, READY with a cached configured summary, else PENDING with the
    request that will fill it."""
    request = assignment.request
    if request is None:
        return node, None
    request = request.model_copy(update={"handoffId": node.id})
    hit = cached.get(request.key) if assignment.configured else None
    if hit is not None:
        return _from_cache(node, hit, request), None
    waiting = node.model_copy(
        update={
            "status": HandoffStatus.PENDING,
            "summarySource": assignment.source,
            **WAITING,
            "generationMs": None,
        }
    )
    return waiting, request


def _from_cache(node: HandoffNode, hit: HandoffNode, request: SummaryRequest) -> HandoffNode:
    """The configured summary of the same material, paid for once: nothing generated now."""
    return node.model_copy(
        update={
            "summarySource": SummarySource.CONFIGURED,
            **TextFields.of_text(hit.summaryText, request.material.runs).fields,
            "createdByProvider": hit.createdByProvider,
            "model": hit.model,
            "generationMs": 0.0,
            "summaryKey": request.key,
            "cachedFromId": hit.id,
        }
    )


def explained(decision: StartDecision, requests: Iterable[SummaryRequest]) -> StartDecision:
    """The decision, saying which summaries the caller must have a provider write (the
    configured summarizer's are fetched before the start answers)."""
    said = [
        f"Handoff {r.handoffId} waits for its summary from {r.provider} ({r.source}): run "
        "its summarization request there and submit the text with submitHandoffSummary "
        "before acting on the provider."
        for r in requests
        if r.source is not SummarySource.CONFIGURED
    ]
    if not said:
        return decision
    return decision.model_copy(update={"explanation": [*decision.explanation, *said]})


def written(handoff: HandoffNode) -> str:
    """What a configured summary's answer says about it."""
    if handoff.fallbackReason is not None:
        return (
            f"The configured summary of handoff {handoff.id} failed ({handoff.fallbackReason}); "
            "the local summary stands in."
        )
    return f"Handoff {handoff.id} was summarised by {handoff.createdByProvider} ({handoff.model})."


def run_status(pt: ProviderThreadNode, handoffs: Iterable[HandoffHead]) -> RunStatus:
    """A run is RUNNING once its provider thread has a native ref and no handoff it
    consumes still waits for its summary."""
    waiting = any(h.status is HandoffStatus.PENDING for h in handoffs)
    return RunStatus.RUNNING if pt.nativeRef and not waiting else RunStatus.STARTING


def pending_of(state: ThreadState, run_id: str) -> list[HandoffHead]:
    return [
        h for h in state.handoffs if h.targetRunId == run_id and h.status is HandoffStatus.PENDING
    ]


def require_settled(state: ThreadState, run: RunNode) -> None:
    """completeRun waits until no handoff of the run waits for its summary."""
    waiting = pending_of(state, run.id)
    if waiting:
        names = ", ".join(f"{h.id} ({h.summarySource})" for h in waiting)
        raise conflict(
            f"Run {run.ordinal} still waits for the summary of handoff {names}: submit it "
            "with submitHandoffSummary, or reportStartFailure to fall back to the local "
            "summary, before completing the run."
        )


def settle(draft: Draft, state: ThreadState, run_id: str | None, filled: set[str]) -> None:
    """After `filled` handoffs got their text, their run may run."""
    run = state.run_in_progress
    if run is None or run.id != run_id or run.status is not RunStatus.STARTING:
        return
    pt = state.provider_thread(run.providerThreadId)
    still = [h for h in pending_of(state, run.id) if h.id not in filled]
    if pt is not None and run_status(pt, still) is RunStatus.RUNNING:
        transitions.run_running(draft, run.id)


def fill_configured(
    draft: Draft, state: ThreadState, request: SummaryRequest, result: SummaryResult
) -> HandoffNode | None:
    """The configured summarizer's answer, or the local summary and why, in the handoff
    that waits for it; None when it no longer waits (filled or replaced meanwhile)."""
    handoff = next((h for h in state.runHandoffs if h.id == request.handoffId), None)
    if (
        handoff is None
        or handoff.status is not HandoffStatus.PENDING
        or handoff.summarySource is not SummarySource.CONFIGURED
    ):
        return None
    text = (result.text or "").strip() + "\n"
    reason = result.fallbackReason or refusal(text, request.maxTokens)
    runs = request.material.runs
    if reason is None:
        content = HandoffChange(
            id=handoff.id,
            **TextFields.of_text(text, runs).fields,
            createdByProvider=result.createdBy,
            model=result.model,
            summaryKey=result.key,
        )
    else:
        local = request.material.local(request.maxTokens)
        content = HandoffChange(
            id=handoff.id, **TextFields.of_summary(local, runs).fields, fallbackReason=reason
        )
    draft.change(content)
    transitions.ready_handoff(
        draft,
        state.thread.id,
        handoff.targetRunId,
        handoff.id,
        events.HandoffSummarized(
            handoffId=handoff.id,
            source=SummarySource.CONFIGURED,
            model=content.model,
            generationMs=result.generationMs,
            fallbackReason=reason,
        ),
        generation_ms=result.generationMs,
    )
    return draft.updated(handoff)


def fail_pending(draft: Draft, state: ThreadState, run: RunNode, reason: str) -> None:
    """failRun: the summaries the run waited for will never be used."""
    for handoff in pending_of(state, run.id):
        why = f"run {run.ordinal} failed before its summary arrived: {reason}"
        transitions.fail_handoff(draft, state.thread.id, run.id, handoff.id, why)


def created_event(draft: Draft, thread_id: str, run_id: str, handoff: HandoffNode) -> None:
    draft.event(
        thread_id,
        events.HandoffCreated(
            handoffId=handoff.id,
            strategy=handoff.strategy,
            covered=[handoff.coveredFrom, handoff.coveredTo],
            source=handoff.summarySource,
            status=handoff.status,
            **given(fallbackReason=handoff.fallbackReason, cachedFrom=handoff.cachedFromId),
        ),
        run_id,
    )
