"""regenerateHandoff and submitHandoffSummary."""

from __future__ import annotations

from api.commands.caller import Caller, decided, locked
from api.commands.receipts import Written
from graph import events, repo
from graph.errors import not_found
from graph.models import HandoffNode, ThreadState, TransferNode
from graph.store import Tx
from resolvers.handoffs import replacement as handoff_plans
from resolvers.start import transfers


async def regenerate_handoff(tx: Tx, caller: Caller, handoff_id: str) -> Written[str]:
    state, related, handoff, transfer = await _handoff(tx, caller, handoff_id)
    provider = caller.providers.get(handoff_plans.target_of(handoff, state).provider)
    plan = await decided(
        tx,
        caller,
        lambda content: transfers.replan(handoff, transfer, state, related, provider, content),
    )
    draft = caller.draft()
    ident = handoff_plans.replace(
        draft,
        state,
        handoff,
        plan.summary.text,
        plan.summary.sections,
        plan.summary.omitted,
        plan.material.runs if plan.material is not None else [],
        handoff_plans.regenerated(handoff, plan.generationMs),
        events.HandoffRegenerated,
    )
    return Written(ident, draft.build())


async def submit_handoff_summary(
    tx: Tx, caller: Caller, handoff_id: str, summary_text: str, created_by_provider: str
) -> Written[str]:
    caller.providers.get(created_by_provider)
    state, related, handoff, transfer = await _handoff(tx, caller, handoff_id)
    target_pt = handoff_plans.target_of(handoff, state)
    provider = caller.providers.get(target_pt.provider)
    handoff_plans.check_submitted(summary_text, provider)
    # What the text covers, to grade it by: the material a regeneration would summarise.
    covers = await decided(
        tx,
        caller,
        lambda content: transfers.replan(handoff, transfer, state, related, provider, content),
    )
    draft = caller.draft()
    ident = handoff_plans.replace(
        draft,
        state,
        handoff,
        summary_text,
        handoff_plans.submitted_sections(summary_text),
        [],
        covers.material.runs if covers.material is not None else [],
        handoff_plans.submitted(handoff, target_pt, created_by_provider, draft.at),
        events.HandoffSubmitted,
    )
    return Written(ident, draft.build())


async def _handoff(
    tx: Tx, caller: Caller, handoff_id: str
) -> tuple[ThreadState, dict[str, ThreadState], HandoffNode, TransferNode | None]:
    """The handoff's thread, locked, with the threads it may summarise, and the handoff and
    its transfer as they are once the lock is held."""
    owner = await repo.handoff_owner(tx, caller.workspace, handoff_id)
    if owner is None:
        raise not_found("handoff", handoff_id)
    thread_id, first_read, _ = owner
    state, related = await locked(
        tx, caller, thread_id, related=True, extra=[first_read.sourceThreadId]
    )
    fresh = await repo.handoff_owner(tx, caller.workspace, handoff_id)
    if fresh is None:
        raise not_found("handoff", handoff_id)
    _, handoff, transfer = fresh
    return state, related, handoff_plans.replaceable(handoff), transfer
