"""How much context a start may inject: a budget from the target model's window, what the
native thread already holds, and a reserve (docs/MODEL.md, "Context that fits").

- window: the native thread's latest reported window (REPORTED), else the model's window
  from the providers file (MODEL), else the provider's default (PROVIDER);
- used: the native thread's latest reported context tokens; 0 for a new native thread;
  for one that never reported, an estimate of what Threadline knows it holds;
- reserve: max(min_reserve_tokens, window / 4);
- budget: max(0, min(the provider's cap on one handoff, window - used - reserve)).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from graph.models import ContextBudget, ContextUsage, ContextWindowSource
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


def fitted(handoffs: Sequence[PlannedHandoff], budget: ContextBudget) -> list[PlannedHandoff]:
    """The handoffs of one start sharing its budget, in injection order: each fills what
    the ones before it left, and a local summary larger than that is made again to fit.
    A text no one has written yet (a provider's, the configured summarizer's) is asked
    to fit the same share."""
    left = budget.budgetTokens
    shared: list[PlannedHandoff] = []
    for handoff in handoffs:
        if handoff.summary.tokenEstimate > left and handoff.material is not None:
            handoff = handoff.model_copy(update={"summary": handoff.material.local(left)})
        shared.append(handoff.model_copy(update={"allowedTokens": left}))
        left = max(0, left - handoff.summary.tokenEstimate)
    return shared
