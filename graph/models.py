"""Pydantic models of the graph's nodes, as the store reads and writes them.

These are plain data: the API shapes them for GraphQL and `resolvers/` decides
over them. Enum values equal the GraphQL contract's names.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from graph.ranges import Ranges


class Actor(StrEnum):
    USER = "USER"
    AGENT = "AGENT"
    SYSTEM = "SYSTEM"


class ThreadRelationship(StrEnum):
    FORK = "FORK"
    SUBAGENT = "SUBAGENT"
    SIDE = "SIDE"  # a fork for a side question: never merged back, left out of lineage


class SessionFormat(StrEnum):
    CLAUDE_CODE_JSONL = "CLAUDE_CODE_JSONL"
    CODEX_ROLLOUT_JSONL = "CODEX_ROLLOUT_JSONL"
    GEMINI_CLI_JSON = "GEMINI_CLI_JSON"


class RunStatus(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    INTERRUPTED = "INTERRUPTED"
    ROLLED_BACK = "ROLLED_BACK"


# The status sets every rule asks about, beside the statuses they group.
IN_PROGRESS = frozenset({RunStatus.STARTING, RunStatus.RUNNING})
# A run that ended and stays history (a rolled-back run is not history).
ENDED = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.INTERRUPTED})


class ProviderThreadStatus(StrEnum):
    PENDING = "PENDING"
    ACTIVE = "ACTIVE"
    DIVERGENT = "DIVERGENT"
    ROLLED_BACK = "ROLLED_BACK"
    STALE = "STALE"
    FAILED = "FAILED"


# A provider thread that is never continued again.
SETTLED = frozenset(
    {ProviderThreadStatus.STALE, ProviderThreadStatus.FAILED, ProviderThreadStatus.DIVERGENT}
)
# A provider thread a start may continue as it is.
REUSABLE = frozenset({ProviderThreadStatus.ACTIVE, ProviderThreadStatus.ROLLED_BACK})
# A provider thread whose native fork cannot be trusted as a source.
WEAK = frozenset({ProviderThreadStatus.DIVERGENT, ProviderThreadStatus.FAILED})


class HistoryMode(StrEnum):
    LEGACY = "LEGACY"
    PAGINATED = "PAGINATED"
    UNKNOWN = "UNKNOWN"


class TransferType(StrEnum):
    FORK = "FORK"
    PROVIDER_HANDOFF = "PROVIDER_HANDOFF"
    MERGE_BACK = "MERGE_BACK"
    SUBAGENT_SPAWN = "SUBAGENT_SPAWN"
    SUBAGENT_RESULT = "SUBAGENT_RESULT"


class TransferStatus(StrEnum):
    PENDING = "PENDING"
    RESOLVED_NATIVE = "RESOLVED_NATIVE"
    RESOLVED_PORTABLE = "RESOLVED_PORTABLE"
    FAILED = "FAILED"
    CONSUMED = "CONSUMED"
    SUPERSEDED = "SUPERSEDED"


# A transfer that carried (or still carries) context; a superseded one never did.
CARRYING = frozenset({TransferStatus.PENDING, TransferStatus.CONSUMED})


class ResolutionStrategy(StrEnum):
    NATIVE_FORK = "NATIVE_FORK"
    PORTABLE_CONTEXT = "PORTABLE_CONTEXT"
    DELTA_CONTEXT = "DELTA_CONTEXT"
    CHECKPOINT_CONTEXT = "CHECKPOINT_CONTEXT"


class HandoffStrategy(StrEnum):
    DELTA_SINCE_TARGET_LAST_SEEN = "DELTA_SINCE_TARGET_LAST_SEEN"
    FULL_THREAD_SUMMARY = "FULL_THREAD_SUMMARY"
    CHECKPOINT_SUMMARY = "CHECKPOINT_SUMMARY"
    MANUAL_CONTEXT = "MANUAL_CONTEXT"


class HandoffKind(StrEnum):
    PORTABLE_CONTEXT = "PORTABLE_CONTEXT"
    DELTA_CONTEXT = "DELTA_CONTEXT"
    CHECKPOINT_CONTEXT = "CHECKPOINT_CONTEXT"


class HandoffStatus(StrEnum):
    PENDING = "PENDING"
    READY = "READY"
    FAILED = "FAILED"
    SUPERSEDED = "SUPERSEDED"


# A handoff still waiting to be, or able to be, injected (a FAILED one never was).
LIVE_HANDOFF = frozenset({HandoffStatus.READY, HandoffStatus.PENDING})


class SummarySource(StrEnum):
    """Who writes a handoff's summary (docs/MODEL.md, "Summary sources")."""

    LOCAL = "LOCAL"  # the local deterministic summarizer
    LEAVING_PROVIDER = "LEAVING_PROVIDER"  # the provider of the latest covered run
    ENTERING_PROVIDER = "ENTERING_PROVIDER"  # the provider the run starts on
    CONFIGURED = "CONFIGURED"  # the OpenAI-compatible summarizer the service calls
    PERSON = "PERSON"  # a person's text, submitted without createdByProvider


class StartStrategy(StrEnum):
    NO_HANDOFF = "NO_HANDOFF"
    DELTA_HANDOFF_EXISTING_THREAD = "DELTA_HANDOFF_EXISTING_THREAD"
    FULL_HANDOFF_EXISTING_THREAD = "FULL_HANDOFF_EXISTING_THREAD"
    FULL_HANDOFF_NEW_THREAD = "FULL_HANDOFF_NEW_THREAD"
    NATIVE_FORK = "NATIVE_FORK"
    PORTABLE_CONTEXT = "PORTABLE_CONTEXT"
    UNSUPPORTED = "UNSUPPORTED"


class ProviderAction(StrEnum):
    CREATE = "CREATE"
    RESUME = "RESUME"
    CONTINUE = "CONTINUE"
    NATIVE_FORK = "NATIVE_FORK"


class ContextWindowSource(StrEnum):
    """Where a context window figure came from: the native thread's own report, the
    providers file's model table, or the provider's default."""

    REPORTED = "REPORTED"
    MODEL = "MODEL"
    PROVIDER = "PROVIDER"


class InjectionMode(StrEnum):
    PREAMBLE = "PREAMBLE"
    SYSTEM = "SYSTEM"
    DEVELOPER = "DEVELOPER"
    SYNTHETIC_USER = "SYNTHETIC_USER"


class RunItemKind(StrEnum):
    USER_GOAL = "USER_GOAL"
    CONSTRAINT = "CONSTRAINT"
    DECISION = "DECISION"
    FILE_CHANGE = "FILE_CHANGE"
    COMMAND = "COMMAND"
    TEST = "TEST"
    PLAN = "PLAN"
    TODO = "TODO"
    APPROVAL = "APPROVAL"
    QUESTION = "QUESTION"
    FAILURE = "FAILURE"
    SUBAGENT_RESULT = "SUBAGENT_RESULT"
    ASSISTANT_MESSAGE = "ASSISTANT_MESSAGE"
    TOOL_OUTPUT = "TOOL_OUTPUT"
    REASONING = "REASONING"
    PROTOCOL = "PROTOCOL"


class StalenessSignal(StrEnum):
    TOO_MANY_OFF_PROVIDER_RUNS = "TOO_MANY_OFF_PROVIDER_RUNS"
    TOO_MANY_CHAINED_HANDOFFS = "TOO_MANY_CHAINED_HANDOFFS"
    INCOMPATIBLE_SETTINGS = "INCOMPATIBLE_SETTINGS"
    RESUME_FAILED = "RESUME_FAILED"
    ROLLED_BACK_OR_DIVERGENT = "ROLLED_BACK_OR_DIVERGENT"
    CLEAN_CONTEXT_REQUESTED = "CLEAN_CONTEXT_REQUESTED"
    EXCEEDS_CONTEXT_POLICY = "EXCEEDS_CONTEXT_POLICY"


class LineageDirection(StrEnum):
    ANCESTORS = "ANCESTORS"
    DESCENDANTS = "DESCENDANTS"
    BOTH = "BOTH"


class Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ThreadNode(Node):
    id: str
    workspace: str
    title: str | None = None
    createdBy: Actor = Actor.USER
    createdAt: datetime
    parentId: str | None = None
    relationshipToParent: ThreadRelationship | None = None
    rootId: str
    cleanContextRequested: bool = False
    lastOrdinal: int = 0
    rolledBack: list[int] = Field(default_factory=list)  # flattened Ranges

    @property
    def rolled_back(self) -> Ranges:
        return Ranges.unflatten(self.rolledBack)

    @property
    def not_rolled_back(self) -> Ranges:
        """Ordinals of runs that exist and were not rolled back (in progress included)."""
        return Ranges.span(1, self.lastOrdinal) - self.rolled_back


class RunItem(Node):
    kind: RunItemKind
    text: str
    key: str | None = None
    path: str | None = None
    attributes: dict[str, Any] | None = None


class DigestItem(RunItem):
    """An item as a run's digest keeps it: its position in the run, for what a handoff
    leaves out to point at (`Thread.items` answers the same index), its text whole (control
    characters removed, white space folded within each line) and what its forms cost."""

    index: int
    tokens: int = 0  # its whole form (a FILE_CHANGE's: its path and stats line)
    cutTokens: int = 0  # its shortened form; 0 when it has none (short enough whole)


class ItemPlace(Node):
    """Where an item sits in a thread: its run and its position in that run."""

    runOrdinal: int
    index: int
    kind: RunItemKind
    key: str | None = None
    path: str | None = None


class OmittedItem(ItemPlace):
    """An item of a handoff's covered runs that its text does not show whole (`index` -1:
    the run's input, which `Thread.items` answers as that run's item -1)."""

    tokenEstimate: int
    cut: bool = False  # a shortened form is in the text


class HandoffEntry(Node):
    """One line of a handoff's text (an item whose text holds line breaks is one entry),
    with the heading it stands under and the item it shows, if any."""

    section: str
    text: str
    runOrdinal: int | None = None
    index: int | None = None
    kind: RunItemKind | None = None
    cut: bool = False


class QualityFacet(Node):
    kind: RunItemKind
    kept: int
    total: int
    missing: list[str] = Field(default_factory=list)


class HandoffQuality(Node):
    """How much of the material that must survive a handoff its text carries, by kind."""

    score: float
    facets: list[QualityFacet] = Field(default_factory=list)
    # The share, by tokens, of the covered material the text shows whole; None for a
    # handoff graded before fidelity was measured (it is measured again when read).
    fidelity: float | None = None


class ThreadItem(ItemPlace):
    """An item of a thread's active runs, as the pull path answers it."""

    runId: str
    text: str
    attributes: dict[str, Any] | None = None


class FileDiffStat(Node):
    path: str
    additions: int
    deletions: int
    changeKind: str


class CheckpointNode(Node):
    id: str
    runId: str
    ref: str | None = None
    diffSummary: list[FileDiffStat] = Field(default_factory=list)
    createdAt: datetime


class RunNode(Node):
    id: str
    threadId: str
    ordinal: int
    provider: str
    model: str | None = None
    runtimeMode: str | None = None
    status: RunStatus
    input: str
    providerThreadId: str | None = None
    nativeTurnRef: str | None = None
    failureReason: str | None = None
    startedAt: datetime
    completedAt: datetime | None = None
    # Runs before this one on its provider thread that each started with a delta handoff,
    # counting this one (0 when this one did not): the provider thread's delta chain.
    deltaChain: int = 0
    rolledBackTo: int | None = None  # when ROLLED_BACK: the ordinal its thread went back to
    # The decision the run started (or was restarted) with: what reportStartFailure
    # answers again when only a summary failed.
    startStrategy: StartStrategy | None = None
    providerAction: ProviderAction | None = None
    items: list[RunItem] = Field(default_factory=list)
    checkpoint: CheckpointNode | None = None
    consumedHandoffIds: list[str] = Field(default_factory=list)
    importKey: str | None = None  # an imported run: its fingerprint in the session file


# Bumped when a digest keeps something new; older digests are read from their runs.
DIGEST_VERSION = 4


class RunDigest(Node):
    """What a summary reads of one history run: written when the run ends, so a handoff
    never re-reads the run's items (SEMANTICS "Handoff content")."""

    ordinal: int
    status: RunStatus
    input: str
    inputTokens: int = 0
    inputCutTokens: int = 0
    failureReason: str | None = None
    providerThreadId: str | None = None
    items: list[DigestItem] = Field(default_factory=list)
    checkpointRef: str | None = None
    diffSummary: list[FileDiffStat] | None = None  # None: the run has no checkpoint


class ProviderLimitNode(Node):
    """A workspace's account for `provider` ran out (docs/SEMANTICS.md, "Usage limits"): one node
    per report; the newest report of a provider replaces an earlier active one."""

    id: str
    workspace: str
    provider: str
    reason: str
    resetsAt: datetime | None = None  # None: until cleared
    reportedAt: datetime
    endedAt: datetime | None = None  # cleared, or replaced by a newer report
    runId: str | None = None  # the run it interrupted, if any

    def active(self, now: datetime) -> bool:
        """In force at `now`: not ended, and its reset (if any) still ahead."""
        return self.endedAt is None and (self.resetsAt is None or self.resetsAt > now)


class UsageReport(Node):
    """What a native thread holds, as its provider reported it."""

    contextTokens: int = Field(ge=0)  # tokens in the native context after the last turn
    contextWindowTokens: int | None = Field(default=None, ge=1)  # the window, when reported
    inputTokens: int | None = Field(default=None, ge=0)
    outputTokens: int | None = Field(default=None, ge=0)


class ContextUsage(UsageReport):
    """The latest usage report of a native thread, and when it came."""

    reportedAt: datetime


class ContextBudget(Node):
    """How many tokens of handoff a start may inject into its native thread: the window,
    less what the thread already holds and a reserve for the model's own work, at most
    the provider's cap on one handoff."""

    windowTokens: int
    windowSource: ContextWindowSource
    usedTokens: int
    reserveTokens: int
    capTokens: int
    budgetTokens: int


class ProviderThreadNode(Node):
    id: str
    threadId: str
    provider: str
    nativeRef: str | None = None
    status: ProviderThreadStatus
    model: str | None = None
    runtimeMode: str | None = None
    historyMode: HistoryMode = HistoryMode.UNKNOWN
    createdAt: datetime
    lastUsedAt: datetime
    forkedFromId: str | None = None
    failureReason: str | None = None  # when FAILED
    staleSignals: list[StalenessSignal] | None = None  # when STALE: the signals that retired it
    nativeRanges: list[int] = Field(default_factory=list)  # flattened Ranges
    contextUsage: ContextUsage | None = None  # the latest usage its provider reported
    # About how many tokens it holds by Threadline's records: the handoffs injected into it
    # and its native runs' inputs and items. A budget's "used" when it never reported usage.
    heldTokens: int = 0
    sessionKey: str | None = None  # an imported session: "<provider>:<session id>"

    @property
    def native(self) -> Ranges:
        """Ordinals of the history runs that ran on this provider thread."""
        return Ranges.unflatten(self.nativeRanges)


class HandoffSection(Node):
    title: str
    lines: list[str]


class HandoffHead(Node):
    """A handoff without its text: what decisions read of handoffs they do not inject
    (ranges, status, target, provenance). A full summary runs to its token budget, so a
    thread's state carries text only for the run in progress (`ThreadState.runHandoffs`)."""

    id: str
    threadId: str
    sourceThreadId: str
    transferId: str | None = None
    targetRunId: str | None = None
    toProviderThreadId: str | None = None
    fromProviderThreadIds: list[str] = Field(default_factory=list)
    coveredFrom: int
    coveredTo: int
    strategy: HandoffStrategy
    kind: HandoffKind
    tokenEstimate: int
    status: HandoffStatus
    createdByProvider: str | None = None
    supersededById: str | None = None
    createdAt: datetime
    updatedAt: datetime
    # Provenance of the summary (docs/MODEL.md "Summary sources").
    summarySource: SummarySource = SummarySource.LOCAL
    model: str | None = None  # the model that wrote the text, when known
    generationMs: float | None = None  # how long writing it took; None while PENDING
    fallbackReason: str | None = None  # why the local summarizer wrote it instead
    failureReason: str | None = None  # when FAILED: why the summary never came
    summaryKey: str | None = None  # the cache key of a configured summary
    cachedFromId: str | None = None  # the handoff whose configured summary it reuses
    budget: ContextBudget | None = None  # the start's budget; None before budgets existed
    # A prepared handoff (prepareHandoff): the provider whose next start it waits for, and
    # the provider thread that start would resume (None: it would create one). It has no
    # target run until a start injects it.
    preparedFor: str | None = None
    preparedInto: str | None = None

    @property
    def prepared(self) -> bool:
        """Prepared, and not yet injected by a start."""
        return self.preparedFor is not None and self.targetRunId is None

    @property
    def covered(self) -> Ranges:
        """The ordinals its range spans (of its source thread; history or not)."""
        return Ranges.span(self.coveredFrom, self.coveredTo)


class HandoffNode(HandoffHead):
    """A handoff with the text it injects."""

    summaryText: str
    sections: list[HandoffSection] = Field(default_factory=list)
    # The text's lines and the items they show; empty for a handoff written before
    # entries were kept (read from its text then).
    entries: list[HandoffEntry] = Field(default_factory=list)
    # The covered material the text does not show whole, whoever wrote it.
    omitted: list[OmittedItem] = Field(default_factory=list)
    # How much of what must survive it the text carries; None while PENDING, and for
    # handoffs written before quality was recorded. The score alone is kept for Cypher.
    quality: HandoffQuality | None = None
    qualityScore: float | None = None
    qualityFidelity: float | None = None


class SourcePoint(Node):
    threadId: str
    runId: str | None = None
    runOrdinal: int | None = None
    checkpointId: str | None = None
    turnItemId: str | None = None
    providerThreadRef: str | None = None
    providerTurnRef: str | None = None
    providerThreadId: str | None = None
    atCheckpoint: bool = False  # chosen by checkpoint (or latest stable): checkpoint summary
    # A fork at an item: the last item of the run it inherits (-1: the run's input only);
    # None: the whole run. `turnItemId` is then that item's key (a native message id).
    itemIndex: int | None = None


class NamedRun(Node):
    """A run a fork names (by its id or its checkpoint's), how many items it reported, and
    its item at the index the fork asked for (None: no such item, or none asked)."""

    run: RunNode
    itemCount: int = 0
    item: RunItem | None = None


class TransferNode(Node):
    id: str
    type: TransferType
    sourceThreadId: str
    targetThreadId: str
    sourcePoint: SourcePoint
    basePoint: SourcePoint | None = None
    sourceProvider: str | None = None
    targetProvider: str | None = None
    status: TransferStatus
    resolutionStrategy: ResolutionStrategy | None = None
    resolvedProviderThreadId: str | None = None
    handoffId: str | None = None
    createdBy: Actor = Actor.USER
    createdAt: datetime
    consumedAt: datetime | None = None
    consumedByRunId: str | None = None
    failureReason: str | None = None
    payload: str | None = None  # the task of a spawn, the result of a subagent
    spawnedByRunId: str | None = None


class EventNode(Node):
    id: str
    seq: int
    type: str
    at: datetime
    threadId: str
    runId: str | None = None
    payload: dict[str, Any] | None = None


class LineageEdge(Node):
    from_: str = Field(alias="from")
    to: str
    relationship: ThreadRelationship
    sourceRunOrdinal: int | None = None
    sourceItemIndex: int | None = None  # a fork at an item: the last item it inherits


class LineageNode(Node):
    thread: ThreadNode
    depth: int


class Lineage(Node):
    nodes: list[LineageNode]
    edges: list[LineageEdge]
