"""reportStartFailure on a run that still waits for a summary: the summary failed.

The caller acts on the provider only once every handoff of the start is READY, so a
failure reported while one is PENDING is the summary's, not the provider's. The pending
handoffs become FAILED and keep their record (`failureReason`, and `supersededBy` the
handoff that replaces each); new handoffs over the same runs take their place, written
by the local summarizer (a fallback, with its reason) unless the call asks for another
source; the run stays on its provider thread with the strategy and action it started
with. Nothing happens to the provider thread: it never got the chance to fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graph.models import (
    HandoffHead,
    HandoffNode,
    ProviderAction,
    ProviderThreadNode,
    RunNode,
    StartStrategy,
)
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.draft import Draft
from resolvers.handoffs import awaited
from resolvers.handoffs.budget import ContextPolicy, budget_into, fitted
from resolvers.handoffs.planning import PlannedHandoff
from resolvers.handoffs.requests import SummaryRequest
from resolvers.handoffs.sources import Assignment
from resolvers.providers import ProviderCapabilities
from resolvers.start import injection
from resolvers.start.decision import StartDecision
from resolvers.start.writes import StartOutcome


def summary_failed(
    draft: Draft,
    state: ThreadState,
    related: Mapping[str, ThreadState],
    run: RunNode,
    pending: Sequence[HandoffHead],
    replans: Sequence[PlannedHandoff],
    assignments: Sequence[Assignment],
    cached: Mapping[str, HandoffNode],
    reason: str,
    provider: ProviderCapabilities,
) -> StartOutcome:
    pt = state.provider_thread(run.providerThreadId)
    if pt is None:  # a run in progress always has its provider thread
        raise AssertionError(f"run {run.id} has no provider thread")
    thread_id = state.thread.id
    replacements: list[HandoffNode] = []
    requests: list[SummaryRequest] = []
    for old, plan, assignment in zip(pending, replans, assignments, strict=True):
        node = plan.to_node(draft.new_id("hnd"), thread_id, pt.id, draft.at).model_copy(
            update={"targetRunId": run.id}
        )
        if assignment.request is None:
            node = node.model_copy(
                update={
                    "summarySource": old.summarySource,
                    "fallbackReason": f"the {old.summarySource} summary failed: {reason}",
                }
            )
        else:
            node, asked = awaited.sourced(node, assignment, cached)
            requests.extend([asked] if asked else [])
        draft.handoff(node)
        transitions.fail_handoff(draft, thread_id, run.id, old.id, reason, replaced_by=node.id)
        awaited.created_event(draft, thread_id, run.id, node)
        replacements.append(node)
    new_ids = [node.id for node in replacements]
    draft.move(run.id, pt.id, new_ids)
    failed = {h.id for h in pending}
    kept = [h for h in state.runHandoffs if h.targetRunId == run.id and h.id not in failed]
    handoffs = injection.ordered([*kept, *replacements], state, related)
    transitions.run_waits_or_runs(draft, run.id, awaited.run_status(pt, handoffs))
    moved = run.model_copy(update={"consumedHandoffIds": [*run.consumedHandoffIds, *new_ids]})
    return StartOutcome(
        run=draft.updated(moved),
        provider_thread=pt,
        handoffs=handoffs,
        transfers=[],
        decision=awaited.explained(
            _as_started(run, pt, provider, replans, pending, reason), requests
        ),
        requests=requests,
    )


def _as_started(
    run: RunNode,
    pt: ProviderThreadNode,
    provider: ProviderCapabilities,
    replans: Sequence[PlannedHandoff],
    pending: Sequence[HandoffHead],
    reason: str,
) -> StartDecision:
    """The decision the run started with, told again: only its summaries changed."""
    action = run.providerAction or (
        ProviderAction.RESUME if pt.nativeRef else ProviderAction.CREATE
    )
    strategy = run.startStrategy or (
        StartStrategy.FULL_HANDOFF_EXISTING_THREAD
        if pt.nativeRef
        else StartStrategy.FULL_HANDOFF_NEW_THREAD
    )
    names = ", ".join(f"{h.id} ({h.summarySource})" for h in pending)
    # The start's own budget, as its handoffs keep it (one made before budgets: anew).
    kept = next((h.budget for h in pending if h.budget is not None), None)
    budget = kept or budget_into(provider, pt, run.model, ContextPolicy())
    explanation = [
        f"The summary of handoff {names} failed ({reason}); it is FAILED and a new "
        "handoff over the same runs replaces it.",
        f"The run stays on provider thread {pt.id}: {action.value.lower()} it as the "
        "start said, once every handoff is READY.",
    ]
    handoffs = fitted(replans, budget)
    return StartDecision.of(strategy, action, provider, explanation, handoffs, pt=pt, budget=budget)
