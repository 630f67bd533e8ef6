"""What regenerateHandoff and submitHandoffSummary write (SEMANTICS "Handoff content"):
a READY handoff is superseded by a new one, never changed; a PENDING one is filled."""

from __future__ import annotations

from graph.errors import conflict, invalid
from graph.models import HandoffNode, HandoffSection, HandoffStatus, ProviderThreadNode, ThreadState
from graph.plan import EventType
from resolvers.draft import Draft
from resolvers.providers import ProviderCapabilities
from resolvers.summarizer import token_estimate


def replaceable(handoff: HandoffNode) -> HandoffNode:
    if handoff.status is HandoffStatus.SUPERSEDED:
        raise conflict(
            f"Handoff {handoff.id} is superseded by {handoff.supersededById}; act on that one."
        )
    return handoff


def target_of(handoff: HandoffNode, state: ThreadState) -> ProviderThreadNode:
    pt = state.provider_thread(handoff.toProviderThreadId)
    if pt is None:
        raise conflict(f"Handoff {handoff.id} has no target.")
    return pt


def check_submitted(summary_text: str, target: ProviderCapabilities) -> None:
    estimate = token_estimate(summary_text)
    if estimate > target.max_handoff_tokens:
        raise invalid(
            f"The summary is about {estimate} tokens; the target provider accepts at most "
            f"{target.max_handoff_tokens}."
        )


def submitted_sections(summary_text: str) -> list[HandoffSection]:
    return [HandoffSection(title="Summary", lines=summary_text.splitlines())]


def replace(
    draft: Draft,
    state: ThreadState,
    old: HandoffNode,
    text: str,
    sections: list[HandoffSection],
    created_by: str | None,
    event: EventType,
) -> str:
    """Fill a pending handoff in place; supersede a ready one with a new one. The id of
    the handoff that now holds the text."""
    content = {
        "summaryText": text,
        "sections": sections,
        "tokenEstimate": token_estimate(text),
        "createdByProvider": created_by,
        "updatedAt": draft.at,
    }
    thread_id = state.thread.id
    if old.status is not HandoffStatus.READY:
        draft.change("handoff", old.id, **content, status=HandoffStatus.READY)
        draft.event(thread_id, event, old.targetRunId, handoffId=old.id, filled=True)
        return old.id
    new = old.model_copy(
        update={
            **content,
            "id": draft.new_id("hnd"),
            "status": HandoffStatus.READY,
            "createdAt": draft.at,
            "supersededById": None,
        }
    )
    draft.handoff(new)
    draft.change(
        "handoff",
        old.id,
        status=HandoffStatus.SUPERSEDED,
        supersededById=new.id,
        updatedAt=draft.at,
    )
    draft.event(thread_id, event, old.targetRunId, handoffId=new.id, supersedes=old.id)
    draft.event(
        thread_id,
        EventType.HANDOFF_SUPERSEDED,
        old.targetRunId,
        handoffId=old.id,
        supersededBy=new.id,
    )
    return new.id
