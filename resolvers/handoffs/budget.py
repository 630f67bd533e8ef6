"""How much context a start may inject: a budget from the target model's window, what the
native thread already holds, and a reserve (docs/MODEL.md, "Context that fits").

- window: the native thread's latest reported window (REPORTED), else the model's window
  from the providers file (MODEL: the model the start names, else the one the native
  thread was recorded with: `budget_into`), else the provider's default (PROVIDER);
- used: the native thread's latest reported context tokens; 0 for a new native thread;
  for one that never reported, an estimate of what Threadline knows it holds;
- reserve: max(min_reserve_tokens, window / 4);
- budget: max(0, min(the provider's cap on one handoff, window - used - reserve)).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    ContextBudget,
    ContextUsage,
    ContextWindowSource,
    HandoffHead,
    HandoffStatus,
    ProviderThreadNode,
)
from resolvers.handoffs.planning import PlannedHandoff
from resolvers.providers import ProviderCapabilities

MIN_RESERVE_TOKENS = 16_000


class ContextPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    min_reserve_tokens: int = Field(default=MIN_RESERVE_TOKENS, ge=0)


def context_budget(
    provider: ProviderCapabilities,
    model: str | None,
    usage: ContextUsage | None,
    estimated_used: int,
    policy: ContextPolicy,
) -> ContextBudget:
    """The budget of a start into a native thread that reported `usage` (None: it never
    did, and holds about `estimated_used` tokens; 0 for a new one)."""
    if usage is not None and usage.contextWindowTokens is not None:
        window, source = usage.contextWindowTokens, ContextWindowSource.REPORTED
    else:
        window, source = provider.window(model)
    used = usage.contextTokens if usage is not None else estimated_used
    reserve = max(policy.min_reserve_tokens, window // 4)
    cap = provider.max_handoff_tokens
    return ContextBudget(
        windowTokens=window,
        windowSource=source,
        usedTokens=used,
        reserveTokens=reserve,
        capTokens=cap,
        budgetTokens=max(0, min(cap, window - used - reserve)),
    )


def budget_into(
    provider: ProviderCapabilities,
    target: ProviderThreadNode | None,
    model: str | None,
    policy: ContextPolicy,
) -> ContextBudget:
    """The budget of a start into the native thread `target` (None: a new one, which holds
    nothing). An existing one holds what its provider last reported, else what Threadline
    sent it; a start that names no `model` runs on the one `target` was recorded with."""
    if target is None:
        return context_budget(provider, model, None, 0, policy)
    chosen = model or target.model
    return context_budget(provider, chosen, target.contextUsage, target.heldTokens, policy)


def explained(budget: ContextBudget) -> str:
    """One line saying where the figures came from, for a start's explanation."""
    whence = {
        ContextWindowSource.REPORTED: "as the native thread reported it",
        ContextWindowSource.MODEL: "the model's, from the providers file",
        ContextWindowSource.PROVIDER: "the provider's default",
    }[budget.windowSource]
    return (
        f"Context budget {budget.budgetTokens} tokens: window {budget.windowTokens} "
        f"({whence}), {budget.usedTokens} used, {budget.reserveTokens} kept in reserve, "
        f"at most {budget.capTokens} per handoff."
    )


def too_large(budget: ContextBudget, handoffs: Sequence[PlannedHandoff]) -> ThreadlineError:
    """CONTEXT_TOO_LARGE: what must be injected does not fit even this budget."""
    least = least_tokens(handoffs)
    return ThreadlineError(
        ErrorCode.CONTEXT_TOO_LARGE,
        f"The context to inject does not fit: even with only its protected items, each "
        f"shortened where it can be, it takes about {least} tokens, and the budget is "
        f"{budget.budgetTokens} (window {budget.windowTokens}, {budget.usedTokens} used, "
        f"{budget.reserveTokens} reserved, at most {budget.capTokens} per handoff).",
    )


def least_tokens(handoffs: Sequence[PlannedHandoff]) -> int:
    """The fewest tokens a start's handoffs can take together: the one measure of what fits,
    for the ladder (`resolvers.start.staleness`) and the budget alike."""
    return sum(handoff.summary.leastTokens for handoff in handoffs)


def fits(handoffs: Sequence[PlannedHandoff], budget: ContextBudget) -> bool:
    """Whether a start's handoffs can be made to fit its budget together."""
    return least_tokens(handoffs) <= budget.budgetTokens


def fitted(handoffs: Sequence[PlannedHandoff], budget: ContextBudget) -> list[PlannedHandoff]:
    """The handoffs of one start sharing its budget: each keeps room for its least text, and
    what is left over goes to them in injection order, each filling what the ones before it
    left. A local summary larger than its share is made again to fit; a text no one has
    written yet (a provider's, the configured summarizer's) is asked to fit the same
    share."""
    spare = budget.budgetTokens - least_tokens(handoffs)
    shared: list[PlannedHandoff] = []
    for handoff in handoffs:
        allowed = handoff.summary.leastTokens + max(0, spare)
        if handoff.summary.tokenEstimate > allowed and handoff.material is not None:
            handoff = handoff.model_copy(update={"summary": handoff.material.local(allowed)})
        shared.append(handoff.model_copy(update={"allowedTokens": allowed}))
        spare -= handoff.summary.tokenEstimate - handoff.summary.leastTokens
    return shared


def refitted(
    plan: PlannedHandoff, handoff: HandoffHead, handoffs: Sequence[HandoffHead]
) -> PlannedHandoff:
    """`plan`, the handoff made again (regenerated, or the material a submitted text is
    graded by), fitted to the share of its start's budget it may take: the budget less what
    the other READY handoffs that start injects hold. A handoff made before budgets keeps
    the provider's cap alone."""
    if handoff.budget is None:
        return plan
    # A handoff no run took yet (a pending delivery) shares its budget with none.
    run = handoff.targetRunId
    others = sum(
        other.tokenEstimate
        for other in handoffs
        if run and other.targetRunId == run and other.id != handoff.id
        if other.status is HandoffStatus.READY
    )
    left = max(0, handoff.budget.budgetTokens - others)
    [fitted_plan] = fitted([plan], handoff.budget.model_copy(update={"budgetTokens": left}))
    return fitted_plan
