"""A write plan: everything one command writes, as data.

Decisions in `resolvers/` build it; `graph.repo.apply` writes it in one statement, in
the command's one transaction. Because it is data, a test can assert exactly what a
command will write, and the store needs no rules of its own: edges follow from the ids
the plan names, property values are the plan's.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, NewType

from pydantic import Field

from graph.models import (
    CheckpointNode,
    HandoffNode,
    Node,
    ProviderThreadNode,
    RunItem,
    RunNode,
    ThreadNode,
    TransferNode,
)


class EventType(StrEnum):
    """Every kind of ThreadEvent (docs/MODEL.md lists them with their payloads)."""

    THREAD_CREATED = "thread.created"
    THREAD_FORKED = "thread.forked"
    THREAD_CLEAN_CONTEXT_REQUESTED = "thread.cleanContextRequested"
    THREAD_ROLLED_BACK = "thread.rolledBack"
    RUN_STARTED = "run.started"
    RUN_START_FAILED = "run.startFailed"
    RUN_RESTARTED = "run.restarted"
    RUN_COMPLETED = "run.completed"
    RUN_FAILED = "run.failed"
    PROVIDER_THREAD_CREATED = "providerThread.created"
    PROVIDER_THREAD_ATTACHED = "providerThread.attached"
    PROVIDER_THREAD_STATUS = "providerThread.status"
    HANDOFF_CREATED = "handoff.created"
    HANDOFF_REGENERATED = "handoff.regenerated"
    HANDOFF_SUBMITTED = "handoff.submitted"
    HANDOFF_SUPERSEDED = "handoff.superseded"
    HANDOFF_SUMMARIZED = "handoff.summarized"
    HANDOFF_FAILED = "handoff.failed"
    TRANSFER_CREATED = "transfer.created"
    TRANSFER_RESOLVED = "transfer.resolved"
    TRANSFER_CONSUMED = "transfer.consumed"
    TRANSFER_SUPERSEDED = "transfer.superseded"
    SUBAGENT_SPAWNED = "subagent.spawned"
    SUBAGENT_RECORDED = "subagent.recorded"


class Change(Node):
    """New values of some properties of the node with this id."""

    id: str
    props: dict[str, Any]


class NewThread(Node):
    thread: ThreadNode
    sourceRunOrdinal: int | None = None  # on the lineage edge from its parent


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
    type: EventType
    at: datetime
    runId: str | None = None
    payload: dict[str, Any] | None = None


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
    threadChanges: list[Change] = Field(default_factory=list)
    providerThreadChanges: list[Change] = Field(default_factory=list)
    runChanges: list[Change] = Field(default_factory=list)
    handoffChanges: list[Change] = Field(default_factory=list)
    transferChanges: list[Change] = Field(default_factory=list)
    events: list[NewEvent] = Field(default_factory=list)
