from .async_base_client import AsyncBaseClient
from .attach_native_thread import (
    AttachNativeThread,
    AttachNativeThreadAttachNativeThread,
)
from .base_model import BaseModel, Upload
from .client import ThreadlineClient
from .complete_run import (
    CompleteRun,
    CompleteRunCompleteRun,
    CompleteRunCompleteRunProviderThread,
    CompleteRunCompleteRunProviderThreadContextUsage,
)
from .complete_subagent import CompleteSubagent, CompleteSubagentCompleteSubagent
from .create_thread import CreateThread, CreateThreadCreateThread
from .enums import (
    Actor,
    ContextWindowSource,
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    InjectionMode,
    LineageDirection,
    ProviderAction,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunItemKind,
    RunStatus,
    SessionFormat,
    StalenessSignal,
    StartStrategy,
    SummarySource,
    ThreadRelationship,
    TransferStatus,
    TransferType,
)
from .exceptions import (
    GraphQLClientError,
    GraphQLClientGraphQLError,
    GraphQLClientGraphQLMultiError,
    GraphQLClientHttpError,
    GraphQLClientInvalidResponseError,
)
from .fork_thread import ForkThread, ForkThreadForkThread
from .fragments import (
    Opened,
    OpenedIncomingTransfers,
    Started,
    StartedConsumedTransfers,
    StartedHandoffs,
    StartedProviderThread,
    StartedRun,
)
from .import_session import (
    ImportSession,
    ImportSessionImportSession,
    ImportSessionImportSessionThread,
)
from .input_types import (
    CheckpointInput,
    ContextUsageInput,
    FileDiffStatInput,
    RunItemInput,
    SourcePointInput,
)
from .merge_back import MergeBack, MergeBackMergeBack
from .record_native_subagent import (
    RecordNativeSubagent,
    RecordNativeSubagentRecordNativeSubagent,
    RecordNativeSubagentRecordNativeSubagentProviderThreads,
)
from .report_start_failure import (
    ReportStartFailure,
    ReportStartFailureReportStartFailure,
)
from .rollback_thread import (
    RollbackThread,
    RollbackThreadRollbackThread,
    RollbackThreadRollbackThreadRolledBackRuns,
)
from .spawn_subagent import SpawnSubagent, SpawnSubagentSpawnSubagent
from .start_run import StartRun, StartRunStartRun
from .thread_items import (
    ThreadItems,
    ThreadItemsThread,
    ThreadItemsThreadItems,
    ThreadItemsThreadItemsEdges,
    ThreadItemsThreadItemsEdgesNode,
    ThreadItemsThreadItemsPageInfo,
)

__all__ = [
    "Actor",
    "AsyncBaseClient",
    "AttachNativeThread",
    "AttachNativeThreadAttachNativeThread",
    "BaseModel",
    "CheckpointInput",
    "CompleteRun",
    "CompleteRunCompleteRun",
    "CompleteRunCompleteRunProviderThread",
    "CompleteRunCompleteRunProviderThreadContextUsage",
    "CompleteSubagent",
    "CompleteSubagentCompleteSubagent",
    "ContextUsageInput",
    "ContextWindowSource",
    "CreateThread",
    "CreateThreadCreateThread",
    "FileDiffStatInput",
    "ForkThread",
    "ForkThreadForkThread",
    "GraphQLClientError",
    "GraphQLClientGraphQLError",
    "GraphQLClientGraphQLMultiError",
    "GraphQLClientHttpError",
    "GraphQLClientInvalidResponseError",
    "HandoffKind",
    "HandoffStatus",
    "HandoffStrategy",
    "HistoryMode",
    "ImportSession",
    "ImportSessionImportSession",
    "ImportSessionImportSessionThread",
    "InjectionMode",
    "LineageDirection",
    "MergeBack",
    "MergeBackMergeBack",
    "Opened",
    "OpenedIncomingTransfers",
    "ProviderAction",
    "ProviderThreadStatus",
    "RecordNativeSubagent",
    "RecordNativeSubagentRecordNativeSubagent",
    "RecordNativeSubagentRecordNativeSubagentProviderThreads",
    "ReportStartFailure",
    "ReportStartFailureReportStartFailure",
    "ResolutionStrategy",
    "RollbackThread",
    "RollbackThreadRollbackThread",
    "RollbackThreadRollbackThreadRolledBackRuns",
    "RunItemInput",
    "RunItemKind",
    "RunStatus",
    "SessionFormat",
    "SourcePointInput",
    "SpawnSubagent",
    "SpawnSubagentSpawnSubagent",
    "StalenessSignal",
    "StartRun",
    "StartRunStartRun",
    "StartStrategy",
    "Started",
    "StartedConsumedTransfers",
    "StartedHandoffs",
    "StartedProviderThread",
    "StartedRun",
    "SummarySource",
    "ThreadItems",
    "ThreadItemsThread",
    "ThreadItemsThreadItems",
    "ThreadItemsThreadItemsEdges",
    "ThreadItemsThreadItemsEdgesNode",
    "ThreadItemsThreadItemsPageInfo",
    "ThreadRelationship",
    "ThreadlineClient",
    "TransferStatus",
    "TransferType",
    "Upload",
]
