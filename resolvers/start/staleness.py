"""Staleness: when a provider thread is no longer reused, and the thresholds that say so.

A signal retires the provider thread a start would otherwise reuse; the ladder then
creates a new one with a full summary (docs/SEMANTICS.md, "Staleness signals")."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph.models import (
    LIVE_HANDOFF,
    REUSABLE,
    ProviderThreadNode,
    ProviderThreadStatus,
    StalenessSignal,
)
from graph.thread_state import ThreadState
from resolvers.content import Content
from resolvers.coverage import coverage
from resolvers.handoffs.planning import own_heading
from resolvers.handoffs.summarizer import summarize


class StalenessPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    max_off_provider_runs: int = Field(default=25, ge=0)
    max_chained_handoffs: int = Field(default=6, ge=1)
    max_delta_chain: int = Field(default=3, ge=1)


def reusable(pt: ProviderThreadNode) -> bool:
    return pt.status in REUSABLE or (
        pt.status is ProviderThreadStatus.PENDING and bool(pt.nativeRef)
    )


def status_signals(pt: ProviderThreadNode) -> list[StalenessSignal]:
    if pt.status is ProviderThreadStatus.FAILED:
        return [StalenessSignal.RESUME_FAILED]
    if pt.status is ProviderThreadStatus.DIVERGENT:
        return [StalenessSignal.ROLLED_BACK_OR_DIVERGENT]
    return []


def signals(
    state: ThreadState,
    pt: ProviderThreadNode,
    runtime_mode: str | None,
    room: int,
    policy: StalenessPolicy,
    content: Content,
) -> list[StalenessSignal]:
    """Every staleness signal that holds for `pt`, in the contract's order. `room`: the
    budget of a start into it (EXCEEDS_CONTEXT_POLICY when the protected items of what it
    missed do not fit)."""
    found: list[StalenessSignal] = []
    cov = coverage(pt, state.history, state.handoffs)
    # Every history run after the provider thread's last native run ran elsewhere.
    off_provider = state.history.after(cov.native.last or 0)
    if len(off_provider) > policy.max_off_provider_runs:
        found.append(StalenessSignal.TOO_MANY_OFF_PROVIDER_RUNS)
    received = [
        h for h in state.handoffs if h.toProviderThreadId == pt.id and h.status in LIVE_HANDOFF
    ]
    if len(received) >= policy.max_chained_handoffs:
        found.append(StalenessSignal.TOO_MANY_CHAINED_HANDOFFS)
    if runtime_mode is not None and runtime_mode != pt.runtimeMode:
        found.append(StalenessSignal.INCOMPATIBLE_SETTINGS)
    found.extend(status_signals(pt))
    if state.thread.cleanContextRequested:
        found.append(StalenessSignal.CLEAN_CONTEXT_REQUESTED)
    if cov.missing:
        # The same measure as the budget's (`budget.fits`): the least text the delta can be.
        runs = sorted(content.runs(state.thread.id, cov.missing), key=lambda run: run.ordinal)
        delta = summarize(runs, title=own_heading(runs), max_tokens=room)
        if delta.leastTokens > room:
            found.append(StalenessSignal.EXCEEDS_CONTEXT_POLICY)
    return found
