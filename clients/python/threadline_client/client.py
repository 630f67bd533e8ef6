from typing import Any, Optional, Union

from .async_base_client import AsyncBaseClient
from .attach_native_thread import AttachNativeThread
from .base_model import UNSET, UnsetType
from .complete_run import CompleteRun
from .complete_subagent import CompleteSubagent
from .create_thread import CreateThread
from .enums import HistoryMode, RunItemKind, SessionFormat
from .fork_thread import ForkThread
from .import_session import ImportSession
from .input_types import (
    CheckpointInput,
    ContextUsageInput,
    RunItemInput,
    SourcePointInput,
)
from .merge_back import MergeBack
from .record_native_subagent import RecordNativeSubagent
from .report_start_failure import ReportStartFailure
from .rollback_thread import RollbackThread
from .search import Search
from .spawn_subagent import SpawnSubagent
from .start_run import StartRun
from .thread_items import ThreadItems


def gql(q: str) -> str:
    return q


class ThreadlineClient(AsyncBaseClient):
    async def create_thread(
        self,
        title: Union[Optional[str], UnsetType] = UNSET,
        id: Union[Optional[str], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CreateThread:
        query = gql("""
            mutation CreateThread($title: String, $id: ID, $commandId: String) {
              createThread(title: $title, id: $id, commandId: $commandId) {
                id
                title
              }
            }
            """)
        variables: dict[str, object] = {
            "title": title,
            "id": id,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="CreateThread", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CreateThread.model_validate(data)

    async def start_run(
        self,
        thread_id: str,
        provider: str,
        input: str,
        runtime_mode: Union[Optional[str], UnsetType] = UNSET,
        model: Union[Optional[str], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        ignore_limit: Union[Optional[bool], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> StartRun:
        query = gql("""
            mutation StartRun($threadId: ID!, $provider: String!, $input: String!, $runtimeMode: String, $model: String, $commandId: String, $ignoreLimit: Boolean) {
              startRun(
                threadId: $threadId
                provider: $provider
                input: $input
                runtimeMode: $runtimeMode
                model: $model
                commandId: $commandId
                ignoreLimit: $ignoreLimit
              ) {
                ...Started
              }
            }

            fragment Started on StartContextResolution {
              run {
                id
                ordinal
              }
              strategy
              providerAction
              stalenessSignals
              contextText
              injectionMode
              explanation
              providerThread {
                id
                nativeRef
              }
              handoffs {
                id
                kind
                strategy
                tokenEstimate
                omitted {
                  runOrdinal
                  index
                  kind
                  key
                  path
                  tokenEstimate
                }
                quality {
                  score
                  facets {
                    kind
                    kept
                    total
                    missing
                  }
                }
              }
              consumedTransfers {
                id
                type
                resolutionStrategy
              }
              budget {
                windowTokens
                windowSource
                usedTokens
                reserveTokens
                capTokens
                budgetTokens
              }
            }
            """)
        variables: dict[str, object] = {
            "threadId": thread_id,
            "provider": provider,
            "input": input,
            "runtimeMode": runtime_mode,
            "model": model,
            "commandId": command_id,
            "ignoreLimit": ignore_limit,
        }
        response = await self.execute(
            query=query, operation_name="StartRun", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return StartRun.model_validate(data)

    async def report_start_failure(
        self,
        run_id: str,
        reason: str,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ReportStartFailure:
        query = gql("""
            mutation ReportStartFailure($runId: ID!, $reason: String!, $commandId: String) {
              reportStartFailure(runId: $runId, reason: $reason, commandId: $commandId) {
                ...Started
              }
            }

            fragment Started on StartContextResolution {
              run {
                id
                ordinal
              }
              strategy
              providerAction
              stalenessSignals
              contextText
              injectionMode
              explanation
              providerThread {
                id
                nativeRef
              }
              handoffs {
                id
                kind
                strategy
                tokenEstimate
                omitted {
                  runOrdinal
                  index
                  kind
                  key
                  path
                  tokenEstimate
                }
                quality {
                  score
                  facets {
                    kind
                    kept
                    total
                    missing
                  }
                }
              }
              consumedTransfers {
                id
                type
                resolutionStrategy
              }
              budget {
                windowTokens
                windowSource
                usedTokens
                reserveTokens
                capTokens
                budgetTokens
              }
            }
            """)
        variables: dict[str, object] = {
            "runId": run_id,
            "reason": reason,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query,
            operation_name="ReportStartFailure",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return ReportStartFailure.model_validate(data)

    async def attach_native_thread(
        self,
        provider_thread_id: str,
        native_ref: str,
        history_mode: Union[Optional[HistoryMode], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> AttachNativeThread:
        query = gql("""
            mutation AttachNativeThread($providerThreadId: ID!, $nativeRef: String!, $historyMode: HistoryMode, $commandId: String) {
              attachNativeThread(
                providerThreadId: $providerThreadId
                nativeRef: $nativeRef
                historyMode: $historyMode
                commandId: $commandId
              ) {
                id
                status
              }
            }
            """)
        variables: dict[str, object] = {
            "providerThreadId": provider_thread_id,
            "nativeRef": native_ref,
            "historyMode": history_mode,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query,
            operation_name="AttachNativeThread",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return AttachNativeThread.model_validate(data)

    async def complete_run(
        self,
        run_id: str,
        native_turn_ref: Union[Optional[str], UnsetType] = UNSET,
        items: Union[Optional[list[RunItemInput]], UnsetType] = UNSET,
        checkpoint: Union[Optional[CheckpointInput], UnsetType] = UNSET,
        usage: Union[Optional[ContextUsageInput], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CompleteRun:
        query = gql("""
            mutation CompleteRun($runId: ID!, $nativeTurnRef: String, $items: [RunItemInput!], $checkpoint: CheckpointInput, $usage: ContextUsageInput, $commandId: String) {
              completeRun(
                runId: $runId
                nativeTurnRef: $nativeTurnRef
                items: $items
                checkpoint: $checkpoint
                usage: $usage
                commandId: $commandId
              ) {
                id
                status
                providerThread {
                  contextUsage {
                    contextTokens
                  }
                }
              }
            }
            """)
        variables: dict[str, object] = {
            "runId": run_id,
            "nativeTurnRef": native_turn_ref,
            "items": items,
            "checkpoint": checkpoint,
            "usage": usage,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="CompleteRun", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return CompleteRun.model_validate(data)

    async def fork_thread(
        self,
        source_thread_id: str,
        at: SourcePointInput,
        title: Union[Optional[str], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ForkThread:
        query = gql("""
            mutation ForkThread($sourceThreadId: ID!, $at: SourcePointInput!, $title: String, $commandId: String) {
              forkThread(
                sourceThreadId: $sourceThreadId
                at: $at
                title: $title
                commandId: $commandId
              ) {
                ...Opened
              }
            }

            fragment Opened on Thread {
              id
              incomingTransfers {
                id
              }
            }
            """)
        variables: dict[str, object] = {
            "sourceThreadId": source_thread_id,
            "at": at,
            "title": title,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="ForkThread", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ForkThread.model_validate(data)

    async def merge_back(
        self,
        fork_thread_id: str,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> MergeBack:
        query = gql("""
            mutation MergeBack($forkThreadId: ID!, $commandId: String) {
              mergeBack(forkThreadId: $forkThreadId, commandId: $commandId) {
                id
              }
            }
            """)
        variables: dict[str, object] = {
            "forkThreadId": fork_thread_id,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="MergeBack", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return MergeBack.model_validate(data)

    async def spawn_subagent(
        self,
        parent_run_id: str,
        task: str,
        provider: Union[Optional[str], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> SpawnSubagent:
        query = gql("""
            mutation SpawnSubagent($parentRunId: ID!, $task: String!, $provider: String, $commandId: String) {
              spawnSubagent(
                parentRunId: $parentRunId
                task: $task
                provider: $provider
                commandId: $commandId
              ) {
                ...Opened
              }
            }

            fragment Opened on Thread {
              id
              incomingTransfers {
                id
              }
            }
            """)
        variables: dict[str, object] = {
            "parentRunId": parent_run_id,
            "task": task,
            "provider": provider,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="SpawnSubagent", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return SpawnSubagent.model_validate(data)

    async def record_native_subagent(
        self,
        parent_run_id: str,
        provider: str,
        native_ref: str,
        title: Union[Optional[str], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> RecordNativeSubagent:
        query = gql("""
            mutation RecordNativeSubagent($parentRunId: ID!, $provider: String!, $nativeRef: String!, $title: String, $commandId: String) {
              recordNativeSubagent(
                parentRunId: $parentRunId
                provider: $provider
                nativeRef: $nativeRef
                title: $title
                commandId: $commandId
              ) {
                ...Opened
                providerThreads {
                  id
                }
              }
            }

            fragment Opened on Thread {
              id
              incomingTransfers {
                id
              }
            }
            """)
        variables: dict[str, object] = {
            "parentRunId": parent_run_id,
            "provider": provider,
            "nativeRef": native_ref,
            "title": title,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query,
            operation_name="RecordNativeSubagent",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return RecordNativeSubagent.model_validate(data)

    async def complete_subagent(
        self,
        child_thread_id: str,
        result: str,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> CompleteSubagent:
        query = gql("""
            mutation CompleteSubagent($childThreadId: ID!, $result: String!, $commandId: String) {
              completeSubagent(
                childThreadId: $childThreadId
                result: $result
                commandId: $commandId
              ) {
                id
              }
            }
            """)
        variables: dict[str, object] = {
            "childThreadId": child_thread_id,
            "result": result,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query,
            operation_name="CompleteSubagent",
            variables=variables,
            **kwargs,
        )
        data = self.get_data(response)
        return CompleteSubagent.model_validate(data)

    async def rollback_thread(
        self,
        thread_id: str,
        to_run_ordinal: int,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> RollbackThread:
        query = gql("""
            mutation RollbackThread($threadId: ID!, $toRunOrdinal: Int!, $commandId: String) {
              rollbackThread(
                threadId: $threadId
                toRunOrdinal: $toRunOrdinal
                commandId: $commandId
              ) {
                rolledBackRuns {
                  ordinal
                }
              }
            }
            """)
        variables: dict[str, object] = {
            "threadId": thread_id,
            "toRunOrdinal": to_run_ordinal,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="RollbackThread", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return RollbackThread.model_validate(data)

    async def import_session(
        self,
        content: str,
        format: Union[Optional[SessionFormat], UnsetType] = UNSET,
        thread_id: Union[Optional[str], UnsetType] = UNSET,
        title: Union[Optional[str], UnsetType] = UNSET,
        command_id: Union[Optional[str], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ImportSession:
        query = gql("""
            mutation ImportSession($format: SessionFormat, $content: String!, $threadId: ID, $title: String, $commandId: String) {
              importSession(
                format: $format
                content: $content
                threadId: $threadId
                title: $title
                commandId: $commandId
              ) {
                thread {
                  id
                }
                importedRuns
                skippedRuns
              }
            }
            """)
        variables: dict[str, object] = {
            "format": format,
            "content": content,
            "threadId": thread_id,
            "title": title,
            "commandId": command_id,
        }
        response = await self.execute(
            query=query, operation_name="ImportSession", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ImportSession.model_validate(data)

    async def thread_items(
        self,
        id: str,
        first: Union[Optional[int], UnsetType] = UNSET,
        after: Union[Optional[str], UnsetType] = UNSET,
        kinds: Union[Optional[list[RunItemKind]], UnsetType] = UNSET,
        run_ordinals: Union[Optional[list[int]], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> ThreadItems:
        query = gql("""
            query ThreadItems($id: ID!, $first: Int, $after: String, $kinds: [RunItemKind!], $runOrdinals: [Int!]) {
              thread(id: $id) {
                items(first: $first, after: $after, kinds: $kinds, runOrdinals: $runOrdinals) {
                  edges {
                    node {
                      runOrdinal
                      index
                      kind
                      text
                      path
                    }
                  }
                  pageInfo {
                    hasNextPage
                    endCursor
                  }
                }
              }
            }
            """)
        variables: dict[str, object] = {
            "id": id,
            "first": first,
            "after": after,
            "kinds": kinds,
            "runOrdinals": run_ordinals,
        }
        response = await self.execute(
            query=query, operation_name="ThreadItems", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return ThreadItems.model_validate(data)

    async def search(
        self,
        query: str,
        kinds: Union[Optional[list[RunItemKind]], UnsetType] = UNSET,
        first: Union[Optional[int], UnsetType] = UNSET,
        **kwargs: Any,
    ) -> Search:
        _query = gql("""
            query Search($query: String!, $kinds: [RunItemKind!], $first: Int) {
              search(query: $query, kinds: $kinds, first: $first) {
                thread {
                  id
                  title
                }
                runOrdinal
                index
                kind
                snippet
                score
              }
            }
            """)
        variables: dict[str, object] = {"query": query, "kinds": kinds, "first": first}
        response = await self.execute(
            query=_query, operation_name="Search", variables=variables, **kwargs
        )
        data = self.get_data(response)
        return Search.model_validate(data)
