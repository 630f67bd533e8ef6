"""Usage limits: report one (interrupting the run it stopped), clear one, and the
providers a thread could go on with now."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel

from api.commands.caller import Caller, decided, states
from api.commands.receipts import Written
from api.commands.runs import run_in_progress
from graph import repo
from graph.errors import ErrorCode, ThreadlineError
from graph.models import ProviderLimitNode, RunItem
from graph.tx import Tx
from resolvers import limits, runs
from resolvers.content import Content
from resolvers.past.replay import Explained, explained
from resolvers.start.decision import StartRequest, decide_start

# A provider whose start would fail with one of these cannot take the thread: it is left
# out of the suggestions rather than failing them.
CANNOT_TAKE = frozenset({ErrorCode.UNSUPPORTED_TRANSFER, ErrorCode.CONTEXT_TOO_LARGE})


async def report_provider_limit(
    tx: Tx,
    caller: Caller,
    provider: str,
    reason: str,
    resets_at: datetime | None,
    run_id: str | None,
    partial_items: Sequence[RunItem],
) -> Written[ProviderLimitNode]:
    """The limit, and with `run_id` that run interrupted, in one transaction."""
    caller.providers.get(provider)  # an unknown provider is INVALID_INPUT
    if run_id is None and partial_items:
        raise ThreadlineError(
            ErrorCode.INVALID_INPUT, "partialItems belong to a run: pass the runId they came from."
        )
    found = None
    if run_id is not None:
        state, _, run = await run_in_progress(
            tx, caller, run_id, "be interrupted", related=False, run_handoffs_only=True
        )
        found = (state, run)
    draft = caller.draft()
    in_force = await repo.active_limits(tx, caller.workspace, draft.at)
    limit = limits.report(draft, caller.workspace, provider, reason, resets_at, in_force, run_id)
    if found is not None:
        runs.interrupt(draft, found[0], found[1], limit, partial_items)
    return Written(limit, draft.build())


class Cleared(BaseModel):
    """What clearProviderLimit ended (None: there was no limit in force)."""

    limit: ProviderLimitNode | None


async def clear_provider_limit(tx: Tx, caller: Caller, provider: str) -> Written[Cleared]:
    caller.providers.get(provider)
    draft = caller.draft()
    in_force = await repo.active_limits(tx, caller.workspace, draft.at)
    return Written(Cleared(limit=limits.clear(draft, provider, in_force)), draft.build())


async def provider_limits(tx: Tx, caller: Caller) -> tuple[list[ProviderLimitNode], datetime]:
    """The latest limit of each provider, in force first, and the instant that says so."""
    now = caller.clock()
    latest = await repo.latest_limits(tx, caller.workspace)
    return sorted(latest, key=lambda limit: (not limit.active(now), limit.provider)), now


class Suggestion(limits.Candidate):
    plan: Explained


async def suggest_providers(tx: Tx, caller: Caller, thread_id: str) -> list[Suggestion]:
    """Every configured provider that could take the thread, ranked (`limits.ranked`),
    each with the plan explainStartContext would give; nothing is written."""
    state, related = await states(
        tx, caller, thread_id, lock=False, related=True, limits_at=caller.clock()
    )
    in_force = state.limitsInForce
    names = [provider.kind for provider in caller.providers.all()]

    def plan(name: str, content: Content) -> Explained | None:
        request = StartRequest(provider=name, input="")
        try:
            decision = decide_start(
                state,
                request,
                caller.providers,
                caller.policy,
                content,
                threads=related,
                context=caller.context,
            )
        except ThreadlineError as error:
            if error.code in CANNOT_TAKE:
                return None
            raise
        return explained(decision, state)

    plans = await decided(tx, caller, lambda content: [plan(name, content) for name in names])
    return _ranked(names, plans, in_force)


def _ranked(
    names: Sequence[str],
    plans: Sequence[Explained | None],
    in_force: Sequence[ProviderLimitNode],
) -> list[Suggestion]:
    suggestions = [
        Suggestion(
            provider=name,
            limit=limits.limit_of(name, in_force),
            handoffStrategies=plan.handoffStrategies,
            tokenEstimate=plan.tokenEstimate,
            plan=plan,
        )
        for name, plan in zip(names, plans, strict=True)
        if plan is not None
    ]
    return limits.ranked(suggestions)
