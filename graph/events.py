"""Every kind of ThreadEvent and the payload it carries, one model per kind.

A payload holds the fields its command gave, no others: the stored JSON of an event is
`payload.model_dump(exclude_unset=True)`, so an event written before a field existed
reads back with that field unset (None). docs/MODEL.md, "Events", lists them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from graph.models import (
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderAction,
    ProviderThreadStatus,
    ResolutionStrategy,
    StartStrategy,
    SummarySource,
    TransferStatus,
    TransferType,
)


class EventType(StrEnum):
    THREAD_CREATED = "thread.created"
    THREAD_FORKED = "thread.forked"
    THREAD_CLEAN_CONTEXT_REQUESTED = "thread.cleanContextRequested"
    THREAD_ROLLED_BACK = "thread.rolledBack"
    RUN_STARTED = "run.started"
    RUN_START_FAILED = "run.startFailed"
    RUN_RESTARTED = "run.restarted"
    RUN_COMPLETED = "run.completed"
    RUN_FAILED = "run.failed"
    RUN_INTERRUPTED = "run.interrupted"
    PROVIDER_THREAD_CREATED = "providerThread.created"
    PROVIDER_THREAD_ATTACHED = "providerThread.attached"
    PROVIDER_THREAD_STATUS = "providerThread.status"
    PROVIDER_THREAD_USAGE = "providerThread.usage"
    HANDOFF_CREATED = "handoff.created"
    HANDOFF_REGENERATED = "handoff.regenerated"
    HANDOFF_SUBMITTED = "handoff.submitted"
    HANDOFF_SUPERSEDED = "handoff.superseded"
    HANDOFF_SUMMARIZED = "handoff.summarized"
    HANDOFF_FAILED = "handoff.failed"
    HANDOFF_PREPARED = "handoff.prepared"
    TRANSFER_CREATED = "transfer.created"
    TRANSFER_RESOLVED = "transfer.resolved"
    TRANSFER_CONSUMED = "transfer.consumed"
    TRANSFER_SUPERSEDED = "transfer.superseded"
    SUBAGENT_SPAWNED = "subagent.spawned"
    SUBAGENT_RECORDED = "subagent.recorded"
    SESSION_IMPORTED = "session.imported"


class Payload(BaseModel):
    """What an event of `kind` says (stored as JSON: enums as their values)."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    kind: ClassVar[EventType]

    def stored(self) -> dict[str, Any] | None:
        """The JSON object kept on the event (None for a payload with no fields)."""
        return self.model_dump(mode="json", exclude_unset=True) or None


class RunEvent(Payload):
    """What happened to one run of the event's thread: its ordinal."""

    ordinal: int


class ProviderThreadEvent(Payload):
    providerThreadId: str


class HandoffEvent(Payload):
    handoffId: str


class TransferEvent(Payload):
    transferId: str


class Superseded(Payload):
    """Why a handoff or transfer was superseded, and by which one (when one replaced it).
    Listed after the subject's id, so first among the bases of a payload."""

    reason: str | None = None
    supersededBy: str | None = None


class ThreadCreated(Payload):
    """A root thread (its title) or a fork or subagent (its parent and transfer)."""

    kind = EventType.THREAD_CREATED
    title: str | None = None
    parentId: str | None = None
    relationship: TransferType | None = None
    transferId: str | None = None


class ChildOpened(Payload):
    """On the parent, a fork or subagent thread made from one of its runs."""

    childThreadId: str
    transferId: str
    nativeRef: str | None = None  # a subagent the provider spawned itself


class ThreadForked(ChildOpened):
    kind = EventType.THREAD_FORKED


class SubagentSpawned(ChildOpened):
    kind = EventType.SUBAGENT_SPAWNED


class SubagentRecorded(ChildOpened):
    kind = EventType.SUBAGENT_RECORDED


class CleanContextRequested(Payload):
    kind = EventType.THREAD_CLEAN_CONTEXT_REQUESTED


class ThreadRolledBack(Payload):
    kind = EventType.THREAD_ROLLED_BACK
    toRunOrdinal: int
    rolledBackRuns: int


class RunStarted(RunEvent):
    kind = EventType.RUN_STARTED
    provider: str
    strategy: StartStrategy
    providerAction: ProviderAction


class RunStartFailed(Payload):
    kind = EventType.RUN_START_FAILED
    providerThreadId: str | None = None
    reason: str


class RunRestarted(RunEvent):
    """The run moved to a new provider thread (`providerAction` since it was recorded:
    older events lack it, and the run's own field says it)."""

    kind = EventType.RUN_RESTARTED
    strategy: StartStrategy
    providerAction: ProviderAction | None = None


class RunCompleted(RunEvent):
    kind = EventType.RUN_COMPLETED
    items: int
    checkpointId: str | None = None


class RunFailed(RunEvent):
    kind = EventType.RUN_FAILED
    reason: str


class RunInterrupted(RunEvent):
    """A usage limit of the run's provider stopped it; `items`: the partial items kept."""

    kind = EventType.RUN_INTERRUPTED
    provider: str
    reason: str
    items: int
    limitId: str
    resetsAt: datetime | None = None


class ProviderThreadCreated(ProviderThreadEvent):
    kind = EventType.PROVIDER_THREAD_CREATED
    provider: str


class ProviderThreadAttached(ProviderThreadEvent):
    kind = EventType.PROVIDER_THREAD_ATTACHED
    nativeRef: str
    historyMode: HistoryMode


class ProviderThreadStatusChanged(ProviderThreadEvent):
    kind = EventType.PROVIDER_THREAD_STATUS
    status: ProviderThreadStatus


class ProviderThreadUsage(ProviderThreadEvent):
    """Its provider reported what the native thread holds (with a run's completion, or
    on its own, after a native compaction say)."""

    kind = EventType.PROVIDER_THREAD_USAGE
    contextTokens: int
    contextWindowTokens: int | None = None


class HandoffCreated(HandoffEvent):
    kind = EventType.HANDOFF_CREATED
    strategy: HandoffStrategy
    covered: list[int]  # [from, to]
    source: SummarySource
    status: HandoffStatus
    fallbackReason: str | None = None
    cachedFrom: str | None = None


class HandoffPrepared(HandoffEvent):
    """A handoff written ahead of the next start on `provider`, for a person to read and
    edit (`supersedes`: the one prepared before it for that provider)."""

    kind = EventType.HANDOFF_PREPARED
    provider: str
    strategy: HandoffStrategy
    covered: list[int]  # [from, to]
    supersedes: str | None = None


class HandoffReplaced(HandoffEvent):
    """A handoff's text written again: into itself when it was PENDING (`filled`), else
    into a new handoff that `supersedes` it."""

    filled: bool | None = None
    supersedes: str | None = None


class HandoffRegenerated(HandoffReplaced):
    kind = EventType.HANDOFF_REGENERATED


class HandoffSubmitted(HandoffReplaced):
    kind = EventType.HANDOFF_SUBMITTED


class HandoffSuperseded(Superseded, HandoffEvent):
    kind = EventType.HANDOFF_SUPERSEDED


class HandoffSummarized(HandoffEvent):
    kind = EventType.HANDOFF_SUMMARIZED
    source: SummarySource
    model: str | None = None
    generationMs: float | None = None
    fallbackReason: str | None = None


class HandoffFailed(HandoffEvent):
    kind = EventType.HANDOFF_FAILED
    reason: str
    replacedBy: str | None = None


class TransferCreated(TransferEvent):
    kind = EventType.TRANSFER_CREATED
    type: TransferType
    sourceThreadId: str | None = None
    targetThreadId: str | None = None
    status: TransferStatus | None = None


class TransferResolved(TransferEvent):
    kind = EventType.TRANSFER_RESOLVED
    status: TransferStatus
    strategy: ResolutionStrategy


class TransferConsumed(TransferEvent):
    kind = EventType.TRANSFER_CONSUMED


class TransferSuperseded(Superseded, TransferEvent):
    kind = EventType.TRANSFER_SUPERSEDED


class SessionImported(ProviderThreadEvent):
    """Runs of a provider's session file joined the thread (`covered`: their ordinals)."""

    kind = EventType.SESSION_IMPORTED
    sessionId: str
    importedRuns: int
    skippedRuns: int
    covered: list[int] | None = None  # [from, to]; None when nothing was new


def _models(base: type[Payload]) -> Iterator[type[Payload]]:
    for model in base.__subclasses__():
        yield model
        yield from _models(model)


# Every concrete payload model (one that names its kind), by kind.
PAYLOADS: dict[EventType, type[Payload]] = {
    model.kind: model for model in _models(Payload) if "kind" in vars(model)
}


def payload_of(kind: EventType | str, stored: dict[str, Any] | None) -> Payload:
    """A stored event's payload as its model (`kind` as stored: the type's value)."""
    return PAYLOADS[EventType(kind)].model_validate(stored or {})
