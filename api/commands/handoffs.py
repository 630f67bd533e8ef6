"""regenerateHandoff and submitHandoffSummary."""

from __future__ import annotations

from dataclasses import dataclass

from api.commands.caller import Caller, decided, locked
from api.commands.receipts import Written
from graph import events, repo
from graph.errors import not_found
from graph.models import HandoffNode, ProviderThreadNode, RunDigest, ThreadState, TransferNode
from graph.store import Tx
from resolvers.handoffs import replacement as handoff_plans
from resolvers.handoffs.budget import refitted
from resolvers.handoffs.fields import TextFields
from resolvers.handoffs.planning import PlannedHandoff
from resolvers.providers import ProviderCapabilities
from resolvers.start import transfers


async def regenerate_handoff(tx: Tx, caller: Caller, handoff_id: str) -> Written[str]:
    found = await _replanned(tx, caller, handoff_id)
    plan = found.plan
    draft = caller.draft()
    ident = handoff_plans.replace(
        draft,
        found.state,
        found.handoff,
        TextFields.of_summary(plan.summary, found.covered),
        handoff_plans.regenerated(found.handoff, plan.generationMs),
        events.HandoffRegenerated,
    )
    return Written(ident, draft.build())


async def submit_handoff_summary(
    tx: Tx, caller: Caller, handoff_id: str, summary_text: str, created_by_provider: str
) -> Written[str]:
    caller.providers.get(created_by_provider)
    # What the text covers, to grade it by: the material a regeneration would summarise.
    found = await _replanned(tx, caller, handoff_id)
    handoff_plans.check_submitted(summary_text, found.provider, found.plan.allowedTokens)
    draft = caller.draft()
    ident = handoff_plans.replace(
        draft,
        found.state,
        found.handoff,
        TextFields.of_text(summary_text, found.covered),
        handoff_plans.submitted(found.handoff, found.target, created_by_provider, draft.at),
        events.HandoffSubmitted,
    )
    return Written(ident, draft.build())


@dataclass(frozen=True)
class Replanned:
    """A handoff about to be written again, and the plan that would build it now."""

    state: ThreadState
    handoff: HandoffNode
    target: ProviderThreadNode
    provider: ProviderCapabilities
    plan: PlannedHandoff

    @property
    def covered(self) -> list[RunDigest]:
        return self.plan.material.runs if self.plan.material is not None else []


async def _replanned(tx: Tx, caller: Caller, handoff_id: str) -> Replanned:
    state, related, handoff, transfer = await _handoff(tx, caller, handoff_id)
    target = handoff_plans.target_of(handoff, state)
    provider = caller.providers.get(target.provider)
    plan = await decided(
        tx,
        caller,
        lambda content: transfers.replan(handoff, transfer, state, related, provider, content),
    )
    return Replanned(state, handoff, target, provider, refitted(plan, handoff, state.handoffs))


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
