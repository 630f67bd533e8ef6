"""What the decisions on one thread read in one round trip (cypher/thread/state.cypher)."""

from __future__ import annotations

from pydantic import Field

from graph.models import (
    IN_PROGRESS,
    HandoffHead,
    HandoffNode,
    Node,
    ProviderLimitNode,
    ProviderThreadNode,
    RunNode,
    ThreadNode,
    TransferNode,
)
from graph.ranges import Ranges


class ThreadState(Node):
    """What the decisions on one thread read: a bounded number of rows, whatever the
    thread's length. Which runs are history, what each provider thread ran and what its
    handoffs cover are ranges of ordinals; run content comes separately, as digests, and
    only for the runs a handoff summarises."""

    thread: ThreadNode
    lastRun: RunNode | None = None  # the latest ordinal: the run in progress, if any
    providerThreads: list[ProviderThreadNode] = Field(default_factory=list)
    # READY or PENDING handoffs delivered to this thread's provider threads that may be
    # used again (not STALE, FAILED or DIVERGENT), without their text.
    handoffs: list[HandoffHead] = Field(default_factory=list)
    # Those of them the run in progress consumes, with their text: its answer injects them.
    runHandoffs: list[HandoffNode] = Field(default_factory=list)
    # Incoming: pending ones, the thread's origin (fork or spawn), those the last run consumed.
    transfers: list[TransferNode] = Field(default_factory=list)
    outgoingTransfers: list[TransferNode] = Field(default_factory=list)  # pending
    deltaChains: dict[str, int] = Field(default_factory=dict)  # provider thread → its chain
    latestCompleted: RunNode | None = None
    latestStable: RunNode | None = None  # the latest completed run with a checkpoint
    # The workspace's usage limits in force, when the reader asked (a start does).
    limitsInForce: list[ProviderLimitNode] = Field(default_factory=list)
    # READY handoffs prepared for the thread's next start on a provider, not injected yet
    # (at most one a provider), with their text: a start may inject one as it is.
    prepared: list[HandoffNode] = Field(default_factory=list)

    @property
    def run_in_progress(self) -> RunNode | None:
        run = self.lastRun
        return run if run is not None and run.status in IN_PROGRESS else None

    @property
    def history(self) -> Ranges:
        """Ordinals of the runs that are history: not rolled back, not in progress."""
        busy = self.run_in_progress
        live = self.thread.not_rolled_back
        return live - Ranges.span(busy.ordinal, busy.ordinal) if busy else live

    def provider_thread(self, ident: str | None) -> ProviderThreadNode | None:
        return next((pt for pt in self.providerThreads if pt.id == ident), None)
