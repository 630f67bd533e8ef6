"""Builds ThreadSnapshots for the pure decisions by replaying their outcomes.

This is input construction for `resolvers/`, not a store: it records what a
decision says to write so the next decision sees it, the way the real store
does in tests/integration.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count

from graph.models import (
    HandoffStatus,
    HistoryMode,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunItem,
    RunNode,
    RunStatus,
    ThreadNode,
    ThreadSnapshot,
)
from resolvers.policy import StalenessPolicy
from resolvers.providers import ProviderRegistry, registry_from_toml
from resolvers.rollback import decide_rollback
from resolvers.start import StartDecision, StartRequest, decide_start

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Scenario:
    def __init__(
        self,
        registry: ProviderRegistry | None = None,
        policy: StalenessPolicy | None = None,
        history: HistoryMode = HistoryMode.LEGACY,
    ) -> None:
        self.registry = registry or registry_from_toml(None)
        self.policy = policy or StalenessPolicy()
        self.history = history
        self._ids = count(1)
        self.snapshot = ThreadSnapshot(
            thread=ThreadNode(id="t", workspace="w", createdAt=T0, rootId="t"),
            runs=[],
            providerThreads=[],
            handoffs=[],
        )

    def _now(self) -> datetime:
        return T0 + timedelta(seconds=next(self._ids))

    def decide(self, provider: str, runtime_mode: str | None = None) -> StartDecision:
        request = StartRequest(provider=provider, input="x", runtimeMode=runtime_mode)
        return decide_start(self.snapshot, request, self.registry, self.policy)

    def run(
        self,
        provider: str,
        *items: RunItem,
        runtime_mode: str | None = None,
        status: RunStatus = RunStatus.COMPLETED,
    ) -> StartDecision:
        """Start, attach and finish one run; returns the start decision."""
        decision = self.decide(provider, runtime_mode)
        now = self._now()
        snap = self.snapshot
        pts = [
            pt.model_copy(update={"status": ProviderThreadStatus.STALE})
            if pt.id in decision.staleProviderThreadIds
            else pt
            for pt in snap.providerThreads
        ]
        pt = decision.providerThread
        if pt is None:
            pt = ProviderThreadNode(
                id=f"pt{next(self._ids)}",
                threadId="t",
                provider=provider,
                status=ProviderThreadStatus.ACTIVE,
                nativeRef="native",
                runtimeMode=runtime_mode,
                historyMode=self.history,
                createdAt=now,
                lastUsedAt=now,
            )
            pts.append(pt)
        else:
            pts = [
                p.model_copy(update={"lastUsedAt": now, "status": ProviderThreadStatus.ACTIVE})
                if p.id == pt.id
                else p
                for p in pts
            ]
        handoffs = [
            plan.to_node(f"h{next(self._ids)}", "t", pt.id, now) for plan in decision.handoffs
        ]
        ordinal = snap.thread.lastOrdinal + 1
        new_run = RunNode(
            id=f"r{ordinal}",
            threadId="t",
            ordinal=ordinal,
            provider=provider,
            status=status,
            input=f"run {ordinal}",
            providerThreadId=pt.id,
            startedAt=now,
            items=list(items),
            consumedHandoffIds=[h.id for h in handoffs],
        )
        self.snapshot = snap.model_copy(
            update={
                "thread": snap.thread.model_copy(
                    update={"lastOrdinal": ordinal, "cleanContextRequested": False}
                ),
                "runs": [*snap.runs, new_run],
                "providerThreads": pts,
                "handoffs": [*snap.handoffs, *handoffs],
            }
        )
        return decision

    def rollback(self, to: int) -> None:
        decision = decide_rollback(self.snapshot, to, self.registry)
        snap = self.snapshot
        rolled = set(decision.rolledBackRunIds)
        superseded = set(decision.supersededHandoffIds)
        self.snapshot = snap.model_copy(
            update={
                "runs": [
                    r.model_copy(update={"status": RunStatus.ROLLED_BACK}) if r.id in rolled else r
                    for r in snap.runs
                ],
                "handoffs": [
                    h.model_copy(update={"status": HandoffStatus.SUPERSEDED})
                    if h.id in superseded
                    else h
                    for h in snap.handoffs
                ],
                "providerThreads": [
                    p.model_copy(update={"status": decision.providerThreadStatuses[p.id]})
                    if p.id in decision.providerThreadStatuses
                    else p
                    for p in snap.providerThreads
                ],
            }
        )

    def request_clean_context(self) -> None:
        snap = self.snapshot
        self.snapshot = snap.model_copy(
            update={"thread": snap.thread.model_copy(update={"cleanContextRequested": True})}
        )
