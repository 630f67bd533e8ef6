"""Lineage mutations: forks, merge-back, subagents. Cheap now, resolved on first use.

Locks are taken child before parent, so two commands on one family never wait
on each other in opposite orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from api.commands import Commands, Events, new_id
from graph import repo
from graph.errors import invalid
from graph.models import (
    Actor,
    ProviderThreadNode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunNode,
    SourcePoint,
    ThreadNode,
    ThreadRelationship,
    ThreadSnapshot,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.store import Tx
from resolvers import transfers

TITLE_LIMIT = 80


class LineageCommands(Commands):
    async def fork_thread(
        self,
        source_thread_id: str,
        run_id: str | None,
        checkpoint_id: str | None,
        latest_stable: bool,
        title: str | None,
        command_id: str | None = None,
    ) -> ThreadNode:
        async def work(tx: Tx) -> ThreadNode:
            source = await self._locked_snapshot(tx, source_thread_id, with_content=False)
            point = transfers.fork_source_point(source, run_id, checkpoint_id, latest_stable)
            run = next(r for r in source.runs if r.id == point.runId)
            fork = self._child(source, ThreadRelationship.FORK, Actor.USER, title)
            transfer = self._transfer(
                TransferType.FORK,
                source.thread.id,
                fork.id,
                point,
                Actor.USER,
                sourceProvider=run.provider,
            )
            await self._open_child(tx, fork, transfer, "thread.forked", run.id)
            return fork

        args = {
            "source": source_thread_id,
            "runId": run_id,
            "checkpointId": checkpoint_id,
            "latestStable": latest_stable,
            "title": title,
        }
        return await self._once(command_id, "forkThread", args, ThreadNode, work)

    async def merge_back(self, fork_thread_id: str, command_id: str | None = None) -> TransferNode:
        async def work(tx: Tx) -> TransferNode:
            fork = await self._locked_snapshot(tx, fork_thread_id, with_content=False)
            point, base = transfers.merge_back_points(fork)
            parent = await self._locked_snapshot(tx, fork.thread.parentId or "", with_content=False)
            run = next(r for r in fork.runs if r.id == point.runId)
            transfer = self._transfer(
                TransferType.MERGE_BACK,
                fork.thread.id,
                parent.thread.id,
                point,
                Actor.USER,
                basePoint=base,
                sourceProvider=run.provider,
            )
            older = transfers.superseded_by_new(parent, TransferType.MERGE_BACK, fork.thread.id)
            await self._deliver_to_parent(tx, transfer, older)
            return transfer

        args = {"fork": fork_thread_id}
        return await self._once(command_id, "mergeBack", args, TransferNode, work)

    async def spawn_subagent(
        self, parent_run_id: str, task: str, provider: str | None, command_id: str | None = None
    ) -> ThreadNode:
        if not task.strip():
            raise invalid("A subagent needs a task.")
        if provider is not None:
            self.providers.get(provider)

        async def work(tx: Tx) -> ThreadNode:
            parent, run = await self._run_in_progress(tx, parent_run_id, "spawn a subagent")
            child = self._child(parent, ThreadRelationship.SUBAGENT, Actor.AGENT, task)
            transfer = self._spawn(parent, child, run, provider, payload=task)
            await self._open_child(tx, child, transfer, "subagent.spawned", run.id)
            return child

        args = {"parentRunId": parent_run_id, "task": task, "provider": provider}
        return await self._once(command_id, "spawnSubagent", args, ThreadNode, work)

    async def record_native_subagent(
        self,
        parent_run_id: str,
        provider: str,
        native_ref: str,
        title: str | None,
        command_id: str | None = None,
    ) -> ThreadNode:
        self.providers.get(provider)

        async def work(tx: Tx) -> ThreadNode:
            parent, run = await self._run_in_progress(tx, parent_run_id, "record a subagent")
            now = self.clock()
            child = self._child(parent, ThreadRelationship.SUBAGENT, Actor.AGENT, title)
            pt = ProviderThreadNode(
                id=new_id("pth"),
                threadId=child.id,
                provider=provider,
                nativeRef=native_ref,
                status=ProviderThreadStatus.ACTIVE,
                createdAt=now,
                lastUsedAt=now,
            )
            transfer = self._spawn(
                parent,
                child,
                run,
                provider,
                status=TransferStatus.RESOLVED_NATIVE,
                resolutionStrategy=ResolutionStrategy.NATIVE_FORK,
                resolvedProviderThreadId=pt.id,
            )
            await self._open_child(
                tx, child, transfer, "subagent.recorded", run.id, [pt], nativeRef=native_ref
            )
            return child

        args = {
            "parentRunId": parent_run_id,
            "provider": provider,
            "nativeRef": native_ref,
            "title": title,
        }
        return await self._once(command_id, "recordNativeSubagent", args, ThreadNode, work)

    async def complete_subagent(
        self, child_thread_id: str, result: str, command_id: str | None = None
    ) -> TransferNode:
        if not result.strip():
            raise invalid("A subagent result cannot be empty.")

        async def work(tx: Tx) -> TransferNode:
            child = await self._locked_snapshot(tx, child_thread_id, with_content=False)
            transfers.require_subagent(child)
            parent = await self._locked_snapshot(
                tx, child.thread.parentId or "", with_content=False
            )
            point = transfers.latest_point(child)
            last = next((r for r in reversed(child.runs) if r.id == point.runId), None)
            transfer = self._transfer(
                TransferType.SUBAGENT_RESULT,
                child.thread.id,
                parent.thread.id,
                point,
                Actor.AGENT,
                sourceProvider=last.provider if last else None,
                payload=result,
            )
            older = transfers.superseded_by_new(
                parent, TransferType.SUBAGENT_RESULT, child.thread.id
            )
            await self._deliver_to_parent(tx, transfer, older)
            return transfer

        args = {"child": child_thread_id, "result": result}
        return await self._once(command_id, "completeSubagent", args, TransferNode, work)

    # ---- shared steps ------------------------------------------------------

    def _child(
        self,
        parent: ThreadSnapshot,
        relationship: ThreadRelationship,
        actor: Actor,
        title: str | None,
    ) -> ThreadNode:
        ident = new_id("thr")
        label = " ".join(title.split())[:TITLE_LIMIT] if title else None
        return ThreadNode(
            id=ident,
            workspace=self.workspace,
            title=label,
            createdBy=actor,
            createdAt=self.clock(),
            parentId=parent.thread.id,
            relationshipToParent=relationship,
            rootId=parent.thread.rootId,
        )

    def _transfer(
        self,
        kind: TransferType,
        source_thread_id: str,
        target_thread_id: str,
        point: SourcePoint,
        actor: Actor,
        **fields: Any,
    ) -> TransferNode:
        values: dict[str, Any] = {"status": TransferStatus.PENDING, **fields}
        return TransferNode(
            id=new_id("xfr"),
            type=kind,
            sourceThreadId=source_thread_id,
            targetThreadId=target_thread_id,
            sourcePoint=point,
            createdBy=actor,
            createdAt=self.clock(),
            **values,
        )

    def _spawn(
        self,
        parent: ThreadSnapshot,
        child: ThreadNode,
        run: RunNode,
        provider: str | None,
        **fields: Any,
    ) -> TransferNode:
        """The SUBAGENT_SPAWN transfer from the parent's latest completed run to the child."""
        return self._transfer(
            TransferType.SUBAGENT_SPAWN,
            parent.thread.id,
            child.id,
            transfers.latest_point(parent),
            Actor.AGENT,
            sourceProvider=run.provider,
            targetProvider=provider,
            spawnedByRunId=run.id,
            **fields,
        )

    async def _deliver_to_parent(
        self, tx: Tx, transfer: TransferNode, superseded: list[str]
    ) -> None:
        """A merge-back or subagent result, pending for the parent's next run."""
        await repo.create_transfers(tx, self.workspace, [transfer])
        await repo.update(
            tx,
            "transfer/update",
            self.workspace,
            {ident: {"status": TransferStatus.SUPERSEDED} for ident in superseded},
        )
        for thread_id in (transfer.targetThreadId, transfer.sourceThreadId):
            events = Events(self.clock())
            events.add(
                "transfer.created",
                transferId=transfer.id,
                type=transfer.type.value,
                sourceThreadId=transfer.sourceThreadId,
                targetThreadId=transfer.targetThreadId,
            )
            if thread_id == transfer.targetThreadId:
                for ident in superseded:
                    events.add("transfer.superseded", transferId=ident, supersededBy=transfer.id)
            await repo.append_events(tx, self.workspace, thread_id, events.items)

    async def _open_child(
        self,
        tx: Tx,
        child: ThreadNode,
        transfer: TransferNode,
        parent_event: str,
        run_id: str,
        provider_threads: Sequence[ProviderThreadNode] = (),
        **payload: Any,
    ) -> None:
        """Write a new fork or subagent thread, its transfer, and events on both threads."""
        await repo.create_thread(tx, child, transfer.sourcePoint.runOrdinal)
        await repo.create_provider_threads(tx, self.workspace, provider_threads)
        await repo.create_transfers(tx, self.workspace, [transfer])
        on_parent = Events(self.clock())
        on_parent.add(
            parent_event, run_id, childThreadId=child.id, transferId=transfer.id, **payload
        )
        await repo.append_events(tx, self.workspace, transfer.sourceThreadId, on_parent.items)
        on_child = Events(self.clock())
        on_child.add(
            "thread.created",
            parentId=transfer.sourceThreadId,
            relationship=transfer.type.value,
            transferId=transfer.id,
        )
        on_child.add(
            "transfer.created",
            transferId=transfer.id,
            type=transfer.type.value,
            status=transfer.status.value,
        )
        await repo.append_events(tx, self.workspace, child.id, on_child.items)
