"""Usage limits: a provider account that ran out, per workspace.

What a report and a clear write, what a start on a limited provider meets, and the order
in which the providers that could take a thread are suggested. docs/MODEL.md, "Usage
limits", states the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from graph.errors import ErrorCode, ThreadlineError
from graph.models import HandoffStrategy, ProviderLimitNode
from graph.plan import LimitChange
from resolvers.draft import Draft


def report(
    draft: Draft,
    workspace: str,
    provider: str,
    reason: str,
    resets_at: datetime | None,
    in_force: Sequence[ProviderLimitNode],
    run_id: str | None = None,
) -> ProviderLimitNode:
    """A new limit of `provider`; the newest report is the account's state, so the
    provider's limit in force before it ends now. A `resets_at` already past is recorded
    as given, and is inactive from the start."""
    for earlier in in_force:
        if earlier.provider == provider:
            draft.change(LimitChange(id=earlier.id, endedAt=draft.at))
    limit = ProviderLimitNode(
        id=draft.new_id("lim"),
        workspace=workspace,
        provider=provider,
        reason=reason,
        resetsAt=resets_at,
        reportedAt=draft.at,
        runId=run_id,
    )
    draft.limit(limit)
    return limit


def clear(
    draft: Draft, provider: str, in_force: Sequence[ProviderLimitNode]
) -> ProviderLimitNode | None:
    """The limit of `provider` in force, ended now (None when there is none). Two reports
    that raced may both be in force: both end, the newer is answered."""
    ended = [limit for limit in in_force if limit.provider == provider]
    for limit in ended:
        draft.change(LimitChange(id=limit.id, endedAt=draft.at))
    newest = limit_of(provider, ended)
    return draft.updated(newest) if newest else None


def limit_of(provider: str, in_force: Sequence[ProviderLimitNode]) -> ProviderLimitNode | None:
    """The newest of `provider`'s limits in force (reports of one provider that raced may
    leave two; the newer speaks for the account)."""
    mine = [limit for limit in in_force if limit.provider == provider]
    return max(mine, key=lambda limit: (limit.reportedAt, limit.id), default=None)


def available(providers: Sequence[str], in_force: Sequence[ProviderLimitNode]) -> list[str]:
    """The providers (of `providers`, in their order) with no limit in force."""
    limited = {limit.provider for limit in in_force}
    return [name for name in providers if name not in limited]


def require_available(
    provider: str,
    in_force: Sequence[ProviderLimitNode],
    providers: Sequence[str],
) -> None:
    """A start on `provider` while it is limited is PROVIDER_LIMITED (startRun's
    `ignoreLimit` skips this check: the account may be topped up before anyone clears it)."""
    limit = limit_of(provider, in_force)
    if limit is None:
        return
    until = f"until {limit.resetsAt.isoformat()}" if limit.resetsAt else "until it is cleared"
    others = available(providers, in_force)
    elsewhere = f" Available now: {', '.join(others)}." if others else " No provider is available."
    raise ThreadlineError(
        ErrorCode.PROVIDER_LIMITED,
        f"Provider {provider!r} is limited ({limit.reason}) {until}.{elsewhere} "
        "Pass ignoreLimit: true to start on it anyway.",
        resetsAt=limit.resetsAt.isoformat() if limit.resetsAt else None,
        availableProviders=others,
    )


class Candidate(BaseModel):
    """A provider that could take the thread, with what its start would carry."""

    model_config = ConfigDict(frozen=True)

    provider: str
    limit: ProviderLimitNode | None  # in force now
    handoffStrategies: list[HandoffStrategy]
    tokenEstimate: int

    @property
    def available(self) -> bool:
        return self.limit is None


C = TypeVar("C", bound=Candidate)


def context_cost(strategies: Sequence[HandoffStrategy]) -> int:
    """0: no handoff; 1: deltas only; 2: anything that summarizes the whole thread."""
    if not strategies:
        return 0
    if all(s is HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN for s in strategies):
        return 1
    return 2


def ranked(candidates: Sequence[C]) -> list[C]:
    """Available providers first; among equals, the cheapest context first (no handoff,
    then a delta, then a full summary; then fewer tokens); then by name."""
    return sorted(
        candidates,
        key=lambda c: (
            not c.available,
            context_cost(c.handoffStrategies),
            c.tokenEstimate,
            c.provider,
        ),
    )
