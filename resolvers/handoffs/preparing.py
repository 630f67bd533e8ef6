"""What prepareHandoff writes (docs/MODEL.md "Prepared handoffs"): now, the handoff of the
thread's own runs that the next start on a provider would inject, READY with no target
run, for a person to read and replace (submitHandoffSummary) before that start. Which
start injects it, and which supersedes it, is `resolvers.start.prepared`."""

from __future__ import annotations

from graph import events
from graph.errors import conflict
from graph.models import HandoffNode, SummarySource
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.draft import Draft
from resolvers.start import prepared
from resolvers.start.decision import StartDecision


def prepare(draft: Draft, state: ThreadState, decision: StartDecision) -> HandoffNode:
    """The handoff of `decision` (the next start on its provider, decided without any
    prepared handoff) about the thread's own runs, written by the local summarizer; it
    supersedes the one prepared before for the same provider."""
    provider = decision.provider.kind
    index = prepared.own_index(decision.handoffs, state.thread.id)
    if index is None:
        why = decision.explanation[0] if decision.explanation else ""
        raise conflict(
            f"Nothing to prepare: the next start of thread {state.thread.id} on {provider} "
            f"({decision.strategy.value}) injects no handoff of the thread's own runs. {why}"
        )
    plan = decision.handoffs[index]
    into = decision.providerThread
    node = plan.to_node(draft.new_id("hnd"), state.thread.id, None, draft.at).model_copy(
        update={
            "budget": decision.budget,
            "summarySource": SummarySource.LOCAL,
            "preparedFor": provider,
            "preparedInto": into.id if into is not None else None,
        }
    )
    draft.handoff(node)
    before = [h.id for h in state.prepared if h.preparedFor == provider]
    draft.event(
        state.thread.id,
        events.HandoffPrepared(
            handoffId=node.id,
            provider=provider,
            strategy=node.strategy,
            covered=[node.coveredFrom, node.coveredTo],
            **transitions.given(supersedes=before[-1] if before else None),
        ),
    )
    for old in before:
        transitions.supersede_handoff(draft, state.thread.id, old, by=node.id)
    return node
