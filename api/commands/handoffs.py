"""regenerateHandoff, submitHandoffSummary and prepareHandoff."""

from __future__ import annotations

from dataclasses import dataclass

from api.commands.caller import Caller, decided, locked
from api.commands.receipts import Written
from api.commands.runs import start_decision
from graph import events, repo
from graph.errors import not_found
from graph.models import HandoffNode, RunDigest, TransferNode
from graph.thread_state import ThreadState
from graph.tx import Tx
from resolvers.handoffs import preparing, replacement
from resolvers.handoffs.budget import refitted
from resolvers.handoffs.fields import TextFields
from resolvers.handoffs.planning import PlannedHandoff
from resolvers.providers import ProviderCapabilities
from resolvers.start import transfers
from resolvers.start.decision import StartRequest


async def regenerate_handoff(tx: Tx, caller: Caller, handoff_id: str) -> Written[str]:
    found = await _replanned(tx, caller, handoff_id)
    plan = found.plan
    draft = caller.draft()
    ident = replacement.replace(
        draft,
        found.state,
        found.handoff,
        TextFields.of_summary(plan.summary, found.covered),
        replacement.regenerated(found.handoff, plan.generationMs),
        events.HandoffRegenerated,
    )
    return Written(ident, draft.build())


async def submit_handoff_summary(
    tx: Tx, caller: Caller, handoff_id: str, summary_text: str, created_by_provider: str | None
) -> Written[str]:
    """`created_by_provider` None: a person wrote the text (summarySource PERSON)."""
    if created_by_provider is not None:
        caller.providers.get(created_by_provider)
    # What the text covers, to grade it by: the material a regeneration would summarise.
    found = await _replanned(tx, caller, handoff_id)
    replacement.check_submitted(summary_text, found.provider, found.plan.allowedTokens)
    draft = caller.draft()
    ident = replacement.replace(
        draft,
        found.state,
        found.handoff,
        TextFields.of_text(summary_text, found.covered),
        replacement.submitted(found.handoff, found.provider.kind, created_by_provider, draft.at),
        events.HandoffSubmitted,
    )
    return Written(ident, draft.build())


async def prepare_handoff(
    tx: Tx, caller: Caller, thread_id: str, request: StartRequest
) -> Written[str]:
    """The handoff of the thread's own runs the next start on the request's provider would
    inject, written now (docs/MODEL.md "Prepared handoffs"). Decided as that start would
    be, but never with a handoff prepared before: this one replaces it."""
    state, related = await locked(tx, caller, thread_id, related=True, trimmed=True)
    caller.providers.get(request.provider)
    fresh = state.model_copy(update={"prepared": []})
    decision = await start_decision(tx, caller, fresh, related, request)
    draft = caller.draft()
    node = preparing.prepare(draft, state, decision)
    return Written(node.id, draft.build())


@dataclass(frozen=True)
class Replanned:
    """A handoff about to be written again, and the plan that would build it now."""

    state: ThreadState
    handoff: HandoffNode
    provider: ProviderCapabilities  # the entering provider: of its target, or prepared for
    plan: PlannedHandoff

    @property
    def covered(self) -> list[RunDigest]:
        return self.plan.material.runs if self.plan.material is not None else []


async def _replanned(tx: Tx, caller: Caller, handoff_id: str) -> Replanned:
    state, related, handoff, transfer = await _handoff(tx, caller, handoff_id)
    target = replacement.target_of(handoff, state)
    provider = caller.providers.get(replacement.target_provider(handoff, target))
    plan = await decided(
        tx,
        caller,
        lambda content: transfers.replan(handoff, transfer, state, related, provider, content),
    )
    return Replanned(state, handoff, provider, refitted(plan, handoff, state.handoffs))


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
    return state, related, replacement.replaceable(handoff), transfer
