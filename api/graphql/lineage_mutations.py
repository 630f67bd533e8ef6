"""Mutations of thread lineage: forks, merge-back and subagents."""

from __future__ import annotations

import strawberry

from api.commands import lineage
from api.graphql import types as t
from graph.models import ThreadNode, TransferNode

Info = t.Info


@strawberry.input
class SourcePointInput:
    run_id: strawberry.ID | None = None
    checkpoint_id: strawberry.ID | None = None
    latest_stable: bool | None = None


@strawberry.type
class LineageMutation:
    @strawberry.mutation
    async def fork_thread(
        self,
        info: Info,
        source_thread_id: strawberry.ID,
        at: SourcePointInput,
        title: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        args = {
            "source": source_thread_id,
            "runId": at.run_id,
            "checkpointId": at.checkpoint_id,
            "latestStable": bool(at.latest_stable),
            "title": title,
        }
        node = await info.context.command(
            "forkThread",
            args,
            command_id,
            ThreadNode,
            lambda tx, caller: lineage.fork_thread(
                tx,
                caller,
                source_thread_id,
                at.run_id,
                at.checkpoint_id,
                bool(at.latest_stable),
                title,
            ),
        )
        return t.Thread.of(node)

    @strawberry.mutation
    async def merge_back(
        self, info: Info, fork_thread_id: strawberry.ID, command_id: str | None = None
    ) -> t.ContextTransfer:
        node = await info.context.command(
            "mergeBack",
            {"fork": fork_thread_id},
            command_id,
            TransferNode,
            lambda tx, caller: lineage.merge_back(tx, caller, fork_thread_id),
        )
        return t.ContextTransfer.of(node)

    @strawberry.mutation
    async def spawn_subagent(
        self,
        info: Info,
        parent_run_id: strawberry.ID,
        task: str,
        provider: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        if provider is not None:
            info.context.providers.get(provider)
        node = await info.context.command(
            "spawnSubagent",
            {"parentRunId": parent_run_id, "task": task, "provider": provider},
            command_id,
            ThreadNode,
            lambda tx, caller: lineage.spawn_subagent(tx, caller, parent_run_id, task, provider),
        )
        return t.Thread.of(node)

    @strawberry.mutation
    async def record_native_subagent(
        self,
        info: Info,
        parent_run_id: strawberry.ID,
        provider: str,
        native_ref: str,
        title: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        info.context.providers.get(provider)
        args = {
            "parentRunId": parent_run_id,
            "provider": provider,
            "nativeRef": native_ref,
            "title": title,
        }
        node = await info.context.command(
            "recordNativeSubagent",
            args,
            command_id,
            ThreadNode,
            lambda tx, caller: lineage.record_native_subagent(
                tx, caller, parent_run_id, provider, native_ref, title
            ),
        )
        return t.Thread.of(node)

    @strawberry.mutation
    async def complete_subagent(
        self,
        info: Info,
        child_thread_id: strawberry.ID,
        result: str,
        command_id: str | None = None,
    ) -> t.ContextTransfer:
        node = await info.context.command(
            "completeSubagent",
            {"child": child_thread_id, "result": result},
            command_id,
            TransferNode,
            lambda tx, caller: lineage.complete_subagent(tx, caller, child_thread_id, result),
        )
        return t.ContextTransfer.of(node)
