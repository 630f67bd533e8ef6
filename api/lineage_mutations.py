"""Mutations of thread lineage: forks, merge-back and subagents."""

from __future__ import annotations

import strawberry

from api import types as t

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
        node = await info.context.commands.fork_thread(
            source_thread_id,
            at.run_id,
            at.checkpoint_id,
            bool(at.latest_stable),
            title,
            command_id,
        )
        info.context.loaders.clear()
        return t.Thread(node=node)

    @strawberry.mutation
    async def merge_back(
        self, info: Info, fork_thread_id: strawberry.ID, command_id: str | None = None
    ) -> t.ContextTransfer:
        node = await info.context.commands.merge_back(fork_thread_id, command_id)
        info.context.loaders.clear()
        return t.ContextTransfer(node=node)

    @strawberry.mutation
    async def spawn_subagent(
        self,
        info: Info,
        parent_run_id: strawberry.ID,
        task: str,
        provider: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        node = await info.context.commands.spawn_subagent(parent_run_id, task, provider, command_id)
        info.context.loaders.clear()
        return t.Thread(node=node)

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
        node = await info.context.commands.record_native_subagent(
            parent_run_id, provider, native_ref, title, command_id
        )
        info.context.loaders.clear()
        return t.Thread(node=node)

    @strawberry.mutation
    async def complete_subagent(
        self,
        info: Info,
        child_thread_id: strawberry.ID,
        result: str,
        command_id: str | None = None,
    ) -> t.ContextTransfer:
        node = await info.context.commands.complete_subagent(child_thread_id, result, command_id)
        info.context.loaders.clear()
        return t.ContextTransfer(node=node)
