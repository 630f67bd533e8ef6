"""Mutations: lock the thread, load its snapshot, let `resolvers` decide, write the outcome.

Each command is one managed write transaction: the transaction function is
pure apart from its queries, so the driver may retry it on transient errors.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from api import receipts
from graph import repo
from graph.errors import ErrorCode, ThreadlineError, conflict, invalid, not_found
from graph.models import (
    IN_PROGRESS,
    Actor,
    CheckpointNode,
    FileDiffStat,
    HandoffNode,
    HandoffSection,
    HandoffStatus,
    HistoryMode,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunItem,
    RunNode,
    RunStatus,
    ThreadNode,
    ThreadSnapshot,
    TransferStatus,
)
from graph.store import Store, Tx
from resolvers import transfers
from resolvers.policy import StalenessPolicy
from resolvers.providers import ProviderRegistry
from resolvers.rollback import RollbackDecision, decide_rollback
from resolvers.start import StartDecision, StartRequest, decide_start
from resolvers.summarizer import token_estimate

T = TypeVar("T")


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StartOutcome:
    run_id: str
    provider_thread_id: str
    handoff_ids: list[str]
    decision: StartDecision


@dataclass(frozen=True)
class RollbackOutcome:
    thread_id: str
    decision: RollbackDecision


@dataclass
class Events:
    """ThreadEvents a command appends, written in the command's transaction."""

    at: datetime
    items: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, run_id: str | None = None, **payload: Any) -> None:
        self.items.append(
            {
                "id": new_id("evt"),
                "type": kind,
                "at": self.at,
                "runId": run_id,
                "payload": payload or None,
            }
        )


@dataclass
class Commands:
    store: Store
    workspace: str
    providers: ProviderRegistry
    policy: StalenessPolicy
    clock: Callable[[], datetime] = utcnow

    # ---- threads ---------------------------------------------------------

    async def create_thread(
        self, title: str | None, thread_id: str | None, command_id: str | None = None
    ) -> ThreadNode:
        now = self.clock()
        ident = thread_id or new_id("thr")
        thread = ThreadNode(
            id=ident,
            workspace=self.workspace,
            title=title,
            createdBy=Actor.USER,
            createdAt=now,
            rootId=ident,
        )

        async def work(tx: Tx) -> ThreadNode:
            await repo.create_thread(tx, thread)
            events = Events(now)
            events.add("thread.created", title=title)
            await repo.append_events(tx, self.workspace, ident, events.items)
            return thread

        return await self._once(
            command_id, "createThread", {"title": title, "id": thread_id}, ThreadNode, work
        )

    async def request_clean_context(self, thread_id: str, command_id: str | None = None) -> str:
        async def work(tx: Tx) -> str:
            await self._locked_snapshot(tx, thread_id, with_content=False)
            await repo.update_thread(tx, self.workspace, thread_id, {"cleanContextRequested": True})
            events = Events(self.clock())
            events.add("thread.cleanContextRequested")
            await repo.append_events(tx, self.workspace, thread_id, events.items)
            return thread_id

        return await self._once(
            command_id, "requestCleanContext", {"threadId": thread_id}, str, work
        )

    # ---- runs --------------------------------------------------------------

    async def start_run(
        self, thread_id: str, request: StartRequest, command_id: str | None = None
    ) -> StartOutcome:
        async def work(tx: Tx) -> StartOutcome:
            snapshot = await self._locked_snapshot(tx, thread_id)
            related = await repo.related_snapshots(tx, self.workspace, snapshot)
            decision = decide_start(snapshot, request, self.providers, self.policy, threads=related)
            return await self._apply_start(tx, snapshot, request, decision, run=None)

        return await self._once(
            command_id,
            "startRun",
            {"threadId": thread_id, **request.model_dump()},
            StartOutcome,
            work,
        )

    async def explain_start(
        self, thread_id: str, request: StartRequest
    ) -> tuple[StartDecision, ThreadSnapshot]:
        async def work(tx: Tx) -> tuple[StartDecision, ThreadSnapshot]:
            snapshot = await repo.snapshot(tx, self.workspace, thread_id)
            if snapshot is None:
                raise not_found("thread", thread_id)
            related = await repo.related_snapshots(tx, self.workspace, snapshot)
            decision = decide_start(snapshot, request, self.providers, self.policy, threads=related)
            return decision, snapshot

        return await self.store.read(work)

    async def report_start_failure(
        self, run_id: str, reason: str, command_id: str | None = None
    ) -> StartOutcome:
        async def work(tx: Tx) -> StartOutcome:
            snapshot, run = await self._run_in_progress(tx, run_id, "report a start failure")
            failed_pt = run.providerThreadId or ""
            request = StartRequest(
                provider=run.provider,
                input=run.input,
                model=run.model,
                runtimeMode=run.runtimeMode,
            )
            related = await repo.related_snapshots(tx, self.workspace, snapshot)
            decision = decide_start(
                snapshot, request, self.providers, self.policy, restart=run, threads=related
            )
            return await self._apply_start(
                tx, snapshot, request, decision, run=run, failure=(failed_pt, reason)
            )

        return await self._once(
            command_id,
            "reportStartFailure",
            {"runId": run_id, "reason": reason},
            StartOutcome,
            work,
        )

    async def attach_native_thread(
        self,
        provider_thread_id: str,
        native_ref: str,
        history_mode: HistoryMode,
        command_id: str | None = None,
    ) -> str:
        async def work(tx: Tx) -> str:
            thread_id = await self._owner(
                tx,
                "provider thread",
                "provider_thread/thread_of",
                providerThreadId=provider_thread_id,
            )
            snapshot = await self._locked_snapshot(tx, thread_id, with_content=False)
            pt = next(p for p in snapshot.providerThreads if p.id == provider_thread_id)
            if pt.nativeRef and pt.nativeRef != native_ref:
                raise conflict(f"Provider thread {pt.id} is already attached to {pt.nativeRef!r}.")
            if pt.status in (ProviderThreadStatus.FAILED, ProviderThreadStatus.STALE):
                raise conflict(f"Provider thread {pt.id} is {pt.status}; it cannot be attached.")
            now = self.clock()
            status = (
                ProviderThreadStatus.ACTIVE
                if pt.status is ProviderThreadStatus.PENDING
                else pt.status
            )
            await repo.update(
                tx,
                "provider_thread/update",
                self.workspace,
                {
                    pt.id: {"nativeRef": native_ref, "historyMode": history_mode, "status": status},
                },
            )
            starting = {
                run.id: {"status": RunStatus.RUNNING}
                for run in snapshot.runs
                if run.providerThreadId == pt.id and run.status is RunStatus.STARTING
            }
            await repo.update(tx, "run/update", self.workspace, starting)
            events = Events(now)
            events.add(
                "providerThread.attached",
                providerThreadId=pt.id,
                nativeRef=native_ref,
                historyMode=history_mode.value,
            )
            await repo.append_events(tx, self.workspace, thread_id, events.items)
            return pt.id

        args = {"id": provider_thread_id, "ref": native_ref, "mode": history_mode.value}
        return await self._once(command_id, "attachNativeThread", args, str, work)

    async def complete_run(
        self,
        run_id: str,
        native_turn_ref: str | None,
        items: Sequence[RunItem],
        checkpoint_ref: str | None,
        diff_summary: Sequence[FileDiffStat] | None,
        command_id: str | None = None,
    ) -> str:
        async def work(tx: Tx) -> str:
            snapshot, run = await self._run_in_progress(tx, run_id, "complete")
            now = self.clock()
            checkpoint = None
            if diff_summary is not None:
                checkpoint = CheckpointNode(
                    id=new_id("ckp"),
                    runId=run.id,
                    ref=checkpoint_ref,
                    diffSummary=list(diff_summary),
                    createdAt=now,
                )
            await repo.update(
                tx,
                "run/update",
                self.workspace,
                {
                    run.id: {
                        "status": RunStatus.COMPLETED,
                        "nativeTurnRef": native_turn_ref,
                        "completedAt": now,
                    }
                },
            )
            await repo.complete_run(tx, self.workspace, run.id, items, checkpoint)
            events = Events(now)
            events.add(
                "run.completed",
                run.id,
                ordinal=run.ordinal,
                items=len(items),
                checkpointId=checkpoint.id if checkpoint else None,
            )
            await repo.append_events(tx, self.workspace, snapshot.thread.id, events.items)
            return run.id

        return await self._once(
            command_id,
            "completeRun",
            {
                "runId": run_id,
                "nativeTurnRef": native_turn_ref,
                "items": [i.model_dump() for i in items],
                "checkpointRef": checkpoint_ref,
                "diff": [d.model_dump() for d in diff_summary]
                if diff_summary is not None
                else None,
            },
            str,
            work,
        )

    async def fail_run(self, run_id: str, reason: str, command_id: str | None = None) -> str:
        async def work(tx: Tx) -> str:
            snapshot, run = await self._run_in_progress(tx, run_id, "fail")
            now = self.clock()
            await repo.update(
                tx,
                "run/update",
                self.workspace,
                {
                    run.id: {
                        "status": RunStatus.FAILED,
                        "failureReason": reason,
                        "completedAt": now,
                    }
                },
            )
            events = Events(now)
            events.add("run.failed", run.id, ordinal=run.ordinal, reason=reason)
            await repo.append_events(tx, self.workspace, snapshot.thread.id, events.items)
            return run.id

        return await self._once(
            command_id, "failRun", {"runId": run_id, "reason": reason}, str, work
        )

    async def rollback_thread(
        self, thread_id: str, to_ordinal: int, command_id: str | None = None
    ) -> RollbackOutcome:
        async def work(tx: Tx) -> RollbackOutcome:
            snapshot = await self._locked_snapshot(tx, thread_id, with_content=False)
            decision = decide_rollback(snapshot, to_ordinal, self.providers)
            now = self.clock()
            rolled = {
                run_id: {"status": RunStatus.ROLLED_BACK} for run_id in decision.rolledBackRunIds
            }
            await repo.update(tx, "run/update", self.workspace, rolled)
            superseded = {
                h: {"status": HandoffStatus.SUPERSEDED, "updatedAt": now}
                for h in decision.supersededHandoffIds
            }
            await repo.update(tx, "handoff/update", self.workspace, superseded)
            statuses = {pt: {"status": s} for pt, s in decision.providerThreadStatuses.items()}
            await repo.update(tx, "provider_thread/update", self.workspace, statuses)
            await repo.update(
                tx,
                "transfer/update",
                self.workspace,
                {x: {"status": TransferStatus.SUPERSEDED} for x in decision.supersededTransferIds},
            )
            events = Events(now)
            events.add(
                "thread.rolledBack",
                toRunOrdinal=to_ordinal,
                rolledBackRuns=len(decision.rolledBackRunIds),
            )
            for handoff_id in decision.supersededHandoffIds:
                events.add("handoff.superseded", handoffId=handoff_id, reason="rollback")
            for pt_id, status in decision.providerThreadStatuses.items():
                events.add("providerThread.status", providerThreadId=pt_id, status=status.value)
            for transfer_id in decision.supersededTransferIds:
                events.add("transfer.superseded", transferId=transfer_id, reason="rollback")
            await repo.append_events(tx, self.workspace, thread_id, events.items)
            return RollbackOutcome(thread_id, decision)

        return await self._once(
            command_id,
            "rollbackThread",
            {"threadId": thread_id, "to": to_ordinal},
            RollbackOutcome,
            work,
        )

    # ---- handoffs ----------------------------------------------------------

    async def regenerate_handoff(self, handoff_id: str, command_id: str | None = None) -> str:
        async def work(tx: Tx) -> str:
            snapshot, handoff = await self._handoff(tx, handoff_id)
            provider = self.providers.get(self._target_provider(snapshot, handoff))
            related = await repo.related_snapshots(tx, self.workspace, snapshot)
            plan = transfers.replan(handoff, snapshot, related, provider)
            return await self._replace_handoff(
                tx,
                snapshot,
                handoff,
                plan.summary.text,
                plan.summary.sections,
                None,
                "handoff.regenerated",
            )

        return await self._once(
            command_id, "regenerateHandoff", {"handoffId": handoff_id}, str, work
        )

    async def submit_handoff_summary(
        self,
        handoff_id: str,
        summary_text: str,
        created_by_provider: str,
        command_id: str | None = None,
    ) -> str:
        self.providers.get(created_by_provider)

        async def work(tx: Tx) -> str:
            snapshot, handoff = await self._handoff(tx, handoff_id)
            budget = self.providers.get(self._target_provider(snapshot, handoff)).max_handoff_tokens
            if token_estimate(summary_text) > budget:
                raise invalid(
                    f"The summary is about {token_estimate(summary_text)} tokens; the target "
                    f"provider accepts at most {budget}."
                )
            sections = [HandoffSection(title="Summary", lines=summary_text.splitlines())]
            return await self._replace_handoff(
                tx,
                snapshot,
                handoff,
                summary_text,
                sections,
                created_by_provider,
                "handoff.submitted",
            )

        return await self._once(
            command_id,
            "submitHandoffSummary",
            {
                "handoffId": handoff_id,
                "text": summary_text,
                "by": created_by_provider,
            },
            str,
            work,
        )

    # ---- shared steps ------------------------------------------------------

    async def _once(
        self,
        command_id: str | None,
        mutation: str,
        args: dict[str, Any],
        result_type: type[T],
        work: Callable[[Tx], Awaitable[T]],
    ) -> T:
        return await receipts.run_once(
            self.store, self.workspace, command_id, mutation, args, result_type, work
        )

    async def _locked_snapshot(
        self, tx: Tx, thread_id: str, *, with_content: bool = True
    ) -> ThreadSnapshot:
        if not await repo.lock_thread(tx, self.workspace, thread_id):
            raise not_found("thread", thread_id)
        snapshot = await repo.snapshot(tx, self.workspace, thread_id, with_content=with_content)
        if snapshot is None:
            raise not_found("thread", thread_id)
        return snapshot

    async def _owner(self, tx: Tx, kind: str, query: str, **ident: str) -> str:
        """The id of the thread that owns a run, provider thread or handoff."""
        thread_id = await repo.thread_of(tx, query, self.workspace, **ident)
        if thread_id is None:
            raise not_found(kind, next(iter(ident.values())))
        return thread_id

    async def _run_in_progress(
        self, tx: Tx, run_id: str, verb: str
    ) -> tuple[ThreadSnapshot, RunNode]:
        thread_id = await self._owner(tx, "run", "run/thread_of", runId=run_id)
        snapshot = await self._locked_snapshot(tx, thread_id)
        run = next(r for r in snapshot.runs if r.id == run_id)
        if run.status not in IN_PROGRESS:
            raise conflict(f"Run {run.ordinal} is {run.status}; only a run in progress can {verb}.")
        return snapshot, run

    async def _handoff(self, tx: Tx, handoff_id: str) -> tuple[ThreadSnapshot, HandoffNode]:
        thread_id = await self._owner(tx, "handoff", "handoff/thread_of", handoffId=handoff_id)
        snapshot = await self._locked_snapshot(tx, thread_id)
        handoff = next(h for h in snapshot.handoffs if h.id == handoff_id)
        if handoff.status is HandoffStatus.SUPERSEDED:
            raise conflict(
                f"Handoff {handoff.id} is superseded by {handoff.supersededById}; act on that one."
            )
        return snapshot, handoff

    def _target_provider(self, snapshot: ThreadSnapshot, handoff: HandoffNode) -> str:
        pt = next((p for p in snapshot.providerThreads if p.id == handoff.toProviderThreadId), None)
        if pt is None:
            raise ThreadlineError(ErrorCode.CONFLICT, f"Handoff {handoff.id} has no target.")
        return pt.provider

    async def _replace_handoff(
        self,
        tx: Tx,
        snapshot: ThreadSnapshot,
        old: HandoffNode,
        text: str,
        sections: list[HandoffSection],
        created_by: str | None,
        event: str,
    ) -> str:
        """Fill a pending handoff in place; supersede a ready one with a new one."""
        now = self.clock()
        events = Events(now)
        content = {
            "summaryText": text,
            "sections": sections,
            "tokenEstimate": token_estimate(text),
            "createdByProvider": created_by,
            "updatedAt": now,
        }
        if old.status is not HandoffStatus.READY:
            await repo.update(
                tx,
                "handoff/update",
                self.workspace,
                {
                    old.id: {**content, "status": HandoffStatus.READY},
                },
            )
            events.add(event, old.targetRunId, handoffId=old.id, filled=True)
            await repo.append_events(tx, self.workspace, snapshot.thread.id, events.items)
            return old.id
        new = old.model_copy(
            update={
                **content,
                "id": new_id("hnd"),
                "status": HandoffStatus.READY,
                "createdAt": now,
                "supersededById": None,
            }
        )
        await repo.create_handoffs(tx, self.workspace, [new])
        await repo.update(
            tx,
            "handoff/update",
            self.workspace,
            {
                old.id: {
                    "status": HandoffStatus.SUPERSEDED,
                    "supersededById": new.id,
                    "updatedAt": now,
                },
            },
        )
        events.add(event, old.targetRunId, handoffId=new.id, supersedes=old.id)
        events.add("handoff.superseded", old.targetRunId, handoffId=old.id, supersededBy=new.id)
        await repo.append_events(tx, self.workspace, snapshot.thread.id, events.items)
        return new.id

    async def _apply_start(
        self,
        tx: Tx,
        snapshot: ThreadSnapshot,
        request: StartRequest,
        decision: StartDecision,
        *,
        run: RunNode | None,
        failure: tuple[str, str] | None = None,
    ) -> StartOutcome:
        now = self.clock()
        thread_id = snapshot.thread.id
        events = Events(now)
        pt = decision.providerThread
        new_pts: list[ProviderThreadNode] = []
        if pt is None:
            pt = ProviderThreadNode(
                id=new_id("pth"),
                threadId=thread_id,
                provider=request.provider,
                status=ProviderThreadStatus.PENDING,
                model=request.model,
                runtimeMode=request.runtimeMode,
                createdAt=now,
                lastUsedAt=now,
                forkedFromId=(
                    decision.nativeFork.sourceProviderThreadId if decision.nativeFork else None
                ),
            )
            new_pts.append(pt)
            events.add("providerThread.created", providerThreadId=pt.id, provider=pt.provider)
        handoffs = [
            plan.to_node(new_id("hnd"), thread_id, pt.id, now) for plan in decision.handoffs
        ]
        # The signals are kept on the stale thread: analysts ask why it was dropped.
        pt_changes: dict[str, dict[str, Any]] = {
            stale: {"status": ProviderThreadStatus.STALE, "staleSignals": decision.stalenessSignals}
            for stale in decision.staleProviderThreadIds
        }
        if not new_pts:
            pt_changes[pt.id] = {
                "status": ProviderThreadStatus.ACTIVE if pt.nativeRef else pt.status,
                "model": request.model or pt.model,
            }
        status = RunStatus.RUNNING if pt.nativeRef else RunStatus.STARTING
        await repo.create_provider_threads(tx, self.workspace, new_pts)
        await repo.create_handoffs(tx, self.workspace, handoffs)
        handoff_ids = [h.id for h in handoffs]
        if run is None:
            run = RunNode(
                id=new_id("run"),
                threadId=thread_id,
                ordinal=snapshot.thread.lastOrdinal + 1,
                provider=request.provider,
                model=request.model,
                runtimeMode=request.runtimeMode,
                status=status,
                input=request.input,
                providerThreadId=pt.id,
                startedAt=now,
                consumedHandoffIds=handoff_ids,
            )
            await repo.create_run(tx, self.workspace, run)
            events.add(
                "run.started",
                run.id,
                ordinal=run.ordinal,
                provider=run.provider,
                strategy=decision.strategy.value,
                providerAction=decision.providerAction.value,
            )
        else:
            await self._record_failure(
                tx, snapshot, run, failure, decision, handoff_ids, pt_changes, events
            )
            await repo.move_run(tx, self.workspace, run.id, pt.id, status, now, handoff_ids)
            events.add(
                "run.restarted", run.id, ordinal=run.ordinal, strategy=decision.strategy.value
            )
        await repo.update(tx, "provider_thread/update", self.workspace, pt_changes)
        await self._resolve_transfers(tx, decision, run.id, pt.id, handoff_ids, events)
        for handoff in handoffs:
            events.add(
                "handoff.created",
                run.id,
                handoffId=handoff.id,
                strategy=handoff.strategy.value,
                covered=[handoff.coveredFrom, handoff.coveredTo],
            )
        await repo.append_events(tx, self.workspace, thread_id, events.items)
        return StartOutcome(run.id, pt.id, handoff_ids, decision)

    async def _record_failure(
        self,
        tx: Tx,
        snapshot: ThreadSnapshot,
        run: RunNode,
        failure: tuple[str, str] | None,
        decision: StartDecision,
        new_handoff_ids: list[str],
        pt_changes: dict[str, dict[str, Any]],
        events: Events,
    ) -> None:
        """reportStartFailure: the provider thread fails, its handoffs for this run give way."""
        assert failure is not None
        failed_pt, reason = failure
        pt_changes[failed_pt] = {"status": ProviderThreadStatus.FAILED, "failureReason": reason}
        by_transfer = {
            plan.transferId: new
            for plan, new in zip(decision.handoffs, new_handoff_ids, strict=True)
        }
        superseded = {
            h.id: {
                "status": HandoffStatus.SUPERSEDED,
                "supersededById": by_transfer.get(h.transferId),
                "updatedAt": events.at,
            }
            for h in snapshot.handoffs
            if h.id in run.consumedHandoffIds
            and h.toProviderThreadId == failed_pt
            and h.status is not HandoffStatus.SUPERSEDED
        }
        await repo.update(tx, "handoff/update", self.workspace, superseded)
        events.add("run.startFailed", run.id, providerThreadId=failed_pt, reason=reason)
        for handoff_id in superseded:
            events.add("handoff.superseded", run.id, handoffId=handoff_id, reason="start failure")

    async def _resolve_transfers(
        self,
        tx: Tx,
        decision: StartDecision,
        run_id: str,
        pt_id: str,
        handoff_ids: list[str],
        events: Events,
    ) -> None:
        """Pending transfers this start resolved: resolved, then consumed by the run."""
        changes: dict[str, dict[str, Any]] = {}
        for resolution in decision.transfers:
            index = resolution.handoffIndex
            changes[resolution.transferId] = {
                "status": TransferStatus.CONSUMED,
                "resolutionStrategy": resolution.strategy,
                "resolvedProviderThreadId": pt_id,
                "handoffId": handoff_ids[index] if index is not None else None,
                "consumedAt": events.at,
                "consumedByRunId": run_id,
            }
            resolved = (
                TransferStatus.RESOLVED_NATIVE
                if resolution.native
                else TransferStatus.RESOLVED_PORTABLE
            )
            events.add(
                "transfer.resolved",
                run_id,
                transferId=resolution.transferId,
                status=resolved.value,
                strategy=resolution.strategy.value,
            )
            events.add("transfer.consumed", run_id, transferId=resolution.transferId)
        await repo.update(tx, "transfer/update", self.workspace, changes)
