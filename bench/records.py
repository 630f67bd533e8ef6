"""What happened to a generated family, as plain facts: the simulator's output.

These are the generator's own records, not the service's models: the harness must not
depend on internals that change with the write path. Their statuses, strategies, kinds
and types are the product's enums (`graph.models`, the contract's names), so a value the
product renames or drops fails the type check here. `bench/model.py` turns them into the
node properties and links the service would have written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bench.content import Item
from graph.models import (
    Actor,
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderAction,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunStatus,
    StalenessSignal,
    StartStrategy,
    SummarySource,
    ThreadRelationship,
    TransferStatus,
    TransferType,
)


@dataclass
class EventRecord:
    id: str
    type: str
    at: datetime
    run_id: str | None
    payload: dict[str, Any]


@dataclass
class ReceiptRecord:
    command_id: str
    mutation: str
    args_hash: str
    result: str
    at: datetime


@dataclass
class CheckpointRecord:
    id: str
    run_id: str
    ref: str | None
    diff_summary: list[dict[str, Any]]
    created_at: datetime


@dataclass
class RunRecord:
    id: str
    thread_id: str
    ordinal: int
    provider: str
    model: str | None
    status: RunStatus
    input: str
    provider_thread_id: str
    started_at: datetime
    native_turn_ref: str | None = None
    failure_reason: str | None = None
    completed_at: datetime | None = None
    items: list[Item] = field(default_factory=list)
    checkpoint: CheckpointRecord | None = None
    # The decision it started with, as the service keeps it.
    start_strategy: StartStrategy | None = None
    provider_action: ProviderAction | None = None
    rolled_back_to: int | None = None  # when ROLLED_BACK: the ordinal its thread went back to
    rolled_back_at: datetime | None = None


@dataclass
class ProviderThreadRecord:
    id: str
    thread_id: str
    provider: str
    status: ProviderThreadStatus
    model: str | None
    history_mode: HistoryMode
    created_at: datetime
    last_used_at: datetime
    native_ref: str | None = None
    forked_from_id: str | None = None
    stale_signals: list[StalenessSignal] | None = None
    held_tokens: int = 0  # what the service counts it holds (ProviderThread.heldTokens)


@dataclass
class HandoffRecord:
    id: str
    thread_id: str
    source_thread_id: str
    to_provider_thread_id: str
    from_provider_thread_ids: list[str]
    covered_from: int
    covered_to: int
    covered_run_ids: list[str]
    strategy: HandoffStrategy
    kind: HandoffKind
    summary_text: str
    sections: list[dict[str, Any]]
    status: HandoffStatus
    created_at: datetime
    updated_at: datetime
    transfer_id: str | None = None
    target_run_id: str | None = None
    # The generator writes every summary locally, as the demo does.
    summary_source: SummarySource = SummarySource.LOCAL
    budget: dict[str, Any] | None = None  # the start's ContextBudget, as the service stores it
    quality: dict[str, Any] | None = None  # its HandoffQuality, graded as the service grades


@dataclass
class TransferRecord:
    id: str
    type: TransferType
    status: TransferStatus
    source_thread_id: str
    target_thread_id: str
    source_point: dict[str, Any]
    created_by: Actor
    created_at: datetime
    base_point: dict[str, Any] | None = None
    source_provider: str | None = None
    target_provider: str | None = None
    resolution_strategy: ResolutionStrategy | None = None
    resolved_provider_thread_id: str | None = None
    handoff_id: str | None = None
    consumed_at: datetime | None = None
    consumed_by_run_id: str | None = None
    payload: str | None = None
    spawned_by_run_id: str | None = None


@dataclass
class ThreadRecord:
    id: str
    title: str | None
    created_by: Actor
    created_at: datetime
    root_id: str
    parent_id: str | None = None
    relationship: ThreadRelationship | None = None
    source_run_ordinal: int | None = None  # on the lineage edge from the parent
    depth: int = 0  # distance from the family's root
    last_ordinal: int = 0
    version: int = 0
    events: list[EventRecord] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    provider_threads: list[ProviderThreadRecord] = field(default_factory=list)
    handoffs: list[HandoffRecord] = field(default_factory=list)  # consumed by this thread


@dataclass
class Family:
    """One root thread and its forks and subagents, everything they wrote."""

    root_id: str
    threads: list[ThreadRecord] = field(default_factory=list)
    transfers: list[TransferRecord] = field(default_factory=list)
    receipts: list[ReceiptRecord] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return max(thread.depth for thread in self.threads)

    def runs(self) -> int:
        return sum(len(thread.runs) for thread in self.threads)
