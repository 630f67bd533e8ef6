"""A write plan: everything one command writes, as data.

Decisions in `resolvers/` build it; `graph.repo.apply` writes it in one statement, in
the command's one transaction. Because it is data, a test can assert exactly what a
command will write, and the store needs no rules of its own: edges follow from the ids
the plan names, property values are the plan's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NewType

from pydantic import Field, SerializeAsAny

from graph.events import EventType, Payload
from graph.models import (
    CheckpointNode,
    ContextBudget,
    ContextUsage,
    HandoffEntry,
    HandoffNode,
    HandoffQuality,
    HandoffSection,
    HandoffStatus,
    HistoryMode,
    Node,
    OmittedItem,
    ProviderAction,
    ProviderLimitNode,
    ProviderThreadNode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunDigest,
    RunItem,
    RunNode,
    RunStatus,
    StalenessSignal,
    StartStrategy,
    SummarySource,
    ThreadNode,
    TransferNode,
    TransferStatus,
)


class NodeChange(Node):
    """New values of some properties of the node with this id: only the fields a change
    sets are written (a field set to None writes nothing). One typed model per kind of
    node, so a misspelt property is a type error, not a silent new property."""

    id: str

    @property
    def props(self) -> dict[str, Any]:
        """The properties this change sets, as values (not dumped: nested models stay)."""
        return {name: getattr(self, name) for name in self.model_fields_set if name != "id"}


class ThreadChange(NodeChange):
    cleanContextRequested: bool | None = None
    lastOrdinal: int | None = None
    rolledBack: list[int] | None = None  # flattened Ranges


class RunChange(NodeChange):
    status: RunStatus | None = None
    providerThreadId: str | None = None
    deltaChain: int | None = None
    startStrategy: StartStrategy | None = None
    providerAction: ProviderAction | None = None
    rolledBackTo: int | None = None
    nativeTurnRef: str | None = None
    failureReason: str | None = None
    completedAt: datetime | None = None
    digest: RunDigest | None = None
    digestVersion: int | None = None  # what the digest keeps (summarizer.DIGEST_VERSION)


class ProviderThreadChange(NodeChange):
    status: ProviderThreadStatus | None = None
    staleSignals: list[StalenessSignal] | None = None
    model: str | None = None
    lastUsedAt: datetime | None = None
    failureReason: str | None = None
    nativeRef: str | None = None
    historyMode: HistoryMode | None = None
    nativeRanges: list[int] | None = None  # flattened Ranges
    contextUsage: ContextUsage | None = None
    heldTokens: int | None = None


class HandoffChange(NodeChange):
    status: HandoffStatus | None = None
    # A prepared handoff a start injects: its run and the provider thread it goes into.
    targetRunId: str | None = None
    toProviderThreadId: str | None = None
    supersededById: str | None = None
    updatedAt: datetime | None = None
    failureReason: str | None = None
    summaryText: str | None = None
    sections: list[HandoffSection] | None = None
    entries: list[HandoffEntry] | None = None
    omitted: list[OmittedItem] | None = None
    quality: HandoffQuality | None = None
    qualityScore: float | None = None
    qualityFidelity: float | None = None
    tokenEstimate: int | None = None
    createdByProvider: str | None = None
    summarySource: SummarySource | None = None
    model: str | None = None
    generationMs: float | None = None
    fallbackReason: str | None = None
    summaryKey: str | None = None
    budget: ContextBudget | None = None


class TransferChange(NodeChange):
    status: TransferStatus | None = None
    resolutionStrategy: ResolutionStrategy | None = None
    resolvedProviderThreadId: str | None = None
    handoffId: str | None = None
    consumedAt: datetime | None = None
    consumedByRunId: str | None = None


class LimitChange(NodeChange):
    endedAt: datetime | None = None


class NewThread(Node):
    thread: ThreadNode
    sourceRunOrdinal: int | None = None  # on the lineage edge from its parent
    sourceItemIndex: int | None = None  # a fork at an item: the item, on the same edge


class RunMove(Node):
    """A run in progress moves to another provider thread and consumes more handoffs."""

    runId: str
    providerThreadId: str
    handoffIds: list[str] = Field(default_factory=list)


class RunContent(Node):
    """What a completed run reported."""

    runId: str
    items: list[RunItem] = Field(default_factory=list)
    checkpoint: CheckpointNode | None = None


class NewEvent(Node):
    id: str
    threadId: str
    at: datetime
    runId: str | None = None
    payload: SerializeAsAny[Payload]

    @property
    def type(self) -> EventType:
        return self.payload.kind


# A commandId that passed the rule of `api.commands.receipts.command_key`: never blank, bounded.
# Receipt lookups take only this type, so a receipt stored under a blank id (as earlier
# versions did) cannot be reached by any command.
CommandId = NewType("CommandId", str)


class Receipt(Node):
    """A command with a commandId: what it was and what it answered (JSON)."""

    commandId: CommandId
    mutation: str
    argsHash: str
    result: str
    createdAt: datetime


class WritePlan(Node):
    at: datetime | None = None  # when the command happens: the time of its history entries
    threads: list[NewThread] = Field(default_factory=list)
    providerThreads: list[ProviderThreadNode] = Field(default_factory=list)
    handoffs: list[HandoffNode] = Field(default_factory=list)
    runs: list[RunNode] = Field(default_factory=list)
    runMoves: list[RunMove] = Field(default_factory=list)
    runContents: list[RunContent] = Field(default_factory=list)
    transfers: list[TransferNode] = Field(default_factory=list)
    threadChanges: list[ThreadChange] = Field(default_factory=list)
    providerThreadChanges: list[ProviderThreadChange] = Field(default_factory=list)
    runChanges: list[RunChange] = Field(default_factory=list)
    handoffChanges: list[HandoffChange] = Field(default_factory=list)
    transferChanges: list[TransferChange] = Field(default_factory=list)
    limits: list[ProviderLimitNode] = Field(default_factory=list)
    limitChanges: list[LimitChange] = Field(default_factory=list)
    events: list[NewEvent] = Field(default_factory=list)
