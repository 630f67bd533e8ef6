"""Raw-driver baselines: the same writes and reads as the service, straight over Bolt.

`RawThread` does what `client.ServiceThread` asks the service to do — start, attach,
complete, switching provider every 10 runs, with the same content, a new provider thread
on a provider's first run and a handoff on every switch — each step as one statement in
one managed write transaction (`bench/cypher/baseline/`). It is the floor the service
is measured against: same writes, no decision, one round trip.
"""

from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncDriver, AsyncManagedTransaction

from bench import content, families, model, queries
from bench.client import HISTORY_MODES, SWITCH_EVERY, native_ref, provider_at
from bench.records import (
    CheckpointRecord,
    EventRecord,
    HandoffRecord,
    ProviderThreadRecord,
    ReceiptRecord,
    RunRecord,
    ThreadRecord,
)
from graph.models import (
    Actor,
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderAction,
    ProviderThreadStatus,
    RunStatus,
    StartStrategy,
)


@dataclass
class RawCycle:
    ordinal: int
    start: float
    attach: float
    complete: float

    @property
    def seconds(self) -> float:
        return self.start + self.attach + self.complete


class Raw:
    """The async driver, one session per transaction, as the service uses it."""

    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self.driver = driver
        self.database = database

    async def write(self, name: str, **params: Any) -> float:
        """One named statement in one managed write transaction; returns its seconds."""
        text = queries.load(name)

        async def work(tx: AsyncManagedTransaction) -> None:
            await (await tx.run(text, params)).consume()

        began = time.perf_counter()
        async with self.driver.session(database=self.database) as session:
            await session.execute_write(work)
        return time.perf_counter() - began

    async def read(self, name: str, **params: Any) -> tuple[list[dict[str, Any]], float]:
        """One named statement in one managed read transaction: its rows and seconds."""
        text = queries.load(name)

        async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
            return [record.data() async for record in await tx.run(text, params)]

        began = time.perf_counter()
        async with self.driver.session(database=self.database) as session:
            rows = await session.execute_read(work)
        return rows, time.perf_counter() - began


@dataclass
class RawThread:
    raw: Raw
    workspace: str
    thread_id: str
    rng: random.Random
    ordinal: int = 0
    pts: dict[str, str] = field(default_factory=dict)  # provider -> provider thread id
    recent: deque[RunRecord] = field(default_factory=lambda: deque(maxlen=SWITCH_EVERY))

    @classmethod
    async def create(cls, raw: Raw, workspace: str, rng: random.Random, title: str) -> RawThread:
        now = datetime.now(UTC)
        thread_id = f"thr_{rng.getrandbits(128):032x}"
        record = ThreadRecord(
            id=thread_id, title=title, created_by=Actor.USER, created_at=now, root_id=thread_id
        )
        record.events.append(
            EventRecord(_id(rng, "evt"), "thread.created", now, None, {"title": title})
        )
        await raw.write(
            "baseline/create_thread",
            thread=model.thread_props(record, workspace),
            event=model.event_props(record.events[0], 1, thread_id, workspace),
            receipt=_receipt(rng, "createThread", workspace),
        )
        return cls(raw, workspace, thread_id, rng)

    async def cycle(self) -> RawCycle:
        rng, workspace = self.rng, self.workspace
        ordinal = self.ordinal + 1
        provider = provider_at(ordinal)
        now = datetime.now(UTC)
        said = content.run_content(rng, ordinal, self.thread_id[-8:])
        new_pts: list[dict[str, Any]] = []
        events: list[EventRecord] = []
        if provider not in self.pts:
            pt = ProviderThreadRecord(
                id=_id(rng, "pth"),
                thread_id=self.thread_id,
                provider=provider,
                status=ProviderThreadStatus.PENDING,
                model=content.model_for(provider),
                history_mode=HistoryMode.UNKNOWN,
                created_at=now,
                last_used_at=now,
            )
            self.pts[provider] = pt.id
            new_pts.append(model.provider_thread_props(pt, workspace))
            events.append(
                _event(
                    rng,
                    "providerThread.created",
                    now,
                    None,
                    providerThreadId=pt.id,
                    provider=provider,
                )
            )
        pt_id = self.pts[provider]
        run = RunRecord(
            id=_id(rng, "run"),
            thread_id=self.thread_id,
            ordinal=ordinal,
            provider=provider,
            model=content.model_for(provider),
            status=RunStatus.STARTING,
            input=said.input,
            provider_thread_id=pt_id,
            started_at=now,
        )
        handoffs: list[dict[str, Any]] = []
        switched = ordinal > 1 and provider_at(ordinal - 1) != provider
        run.start_strategy = (
            StartStrategy.DELTA_HANDOFF_EXISTING_THREAD if switched else StartStrategy.NO_HANDOFF
        )
        run.provider_action = ProviderAction.RESUME if switched else ProviderAction.CONTINUE
        events.append(
            _event(
                rng,
                "run.started",
                now,
                run.id,
                ordinal=ordinal,
                provider=provider,
                strategy=run.start_strategy,
                providerAction=run.provider_action,
            )
        )
        if switched:
            covered = list(self.recent)
            text, sections = families.summary(
                f"# Context handoff: runs {covered[0].ordinal}-{covered[-1].ordinal}",
                covered,
                None,
                None,
            )
            handoff = HandoffRecord(
                id=_id(rng, "hnd"),
                thread_id=self.thread_id,
                source_thread_id=self.thread_id,
                to_provider_thread_id=pt_id,
                from_provider_thread_ids=sorted({r.provider_thread_id for r in covered}),
                covered_from=covered[0].ordinal,
                covered_to=covered[-1].ordinal,
                covered_run_ids=[],
                strategy=HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN,
                kind=HandoffKind.DELTA_CONTEXT,
                summary_text=text,
                sections=sections,
                status=HandoffStatus.READY,
                created_at=now,
                updated_at=now,
                target_run_id=run.id,
            )
            handoffs.append(model.handoff_props(handoff, workspace))
            events.append(
                _event(
                    rng,
                    "handoff.created",
                    now,
                    run.id,
                    handoffId=handoff.id,
                    strategy=handoff.strategy,
                    covered=[handoff.covered_from, handoff.covered_to],
                    source=handoff.summary_source,
                    status=handoff.status,
                )
            )
        start = await self.raw.write(
            "baseline/start_run",
            workspace=workspace,
            threadId=self.thread_id,
            run=model.run_props(run, workspace),
            newProviderThreads=new_pts,
            handoffs=handoffs,
            events=_events(events, self.thread_id, workspace),
            receipt=_receipt(rng, "startRun", workspace),
        )
        ref = native_ref(rng, provider)
        attached = [
            _event(
                rng,
                "providerThread.attached",
                now,
                None,
                providerThreadId=pt_id,
                nativeRef=ref,
                historyMode=HISTORY_MODES[provider],
            )
        ]
        attach = await self.raw.write(
            "baseline/attach_native_thread",
            workspace=workspace,
            threadId=self.thread_id,
            providerThreadId=pt_id,
            runId=run.id,
            nativeRef=ref,
            historyMode=HISTORY_MODES[provider],
            events=_events(attached, self.thread_id, workspace),
            receipt=_receipt(rng, "attachNativeThread", workspace),
        )
        done = datetime.now(UTC)
        checkpoint = None
        if said.checkpoint is not None:
            checkpoint = CheckpointRecord(
                _id(rng, "ckp"),
                run.id,
                said.checkpoint["ref"],
                said.checkpoint["diffSummary"],
                done,
            )
        completed = [
            _event(
                rng,
                "run.completed",
                done,
                run.id,
                ordinal=ordinal,
                items=len(said.items),
                checkpointId=checkpoint.id if checkpoint else None,
            )
        ]
        complete = await self.raw.write(
            "baseline/complete_run",
            workspace=workspace,
            threadId=self.thread_id,
            runId=run.id,
            changes={
                "status": RunStatus.COMPLETED,
                "nativeTurnRef": f"turn-{ordinal}",
                "completedAt": done,
            },
            items=[model.item_props(item, seq, workspace) for seq, item in enumerate(said.items)],
            checkpoints=[model.checkpoint_props(checkpoint, workspace)] if checkpoint else [],
            events=_events(completed, self.thread_id, workspace),
            receipt=_receipt(rng, "completeRun", workspace),
        )
        run.status = RunStatus.COMPLETED
        self.recent.append(run)
        self.ordinal = ordinal
        return RawCycle(ordinal, start, attach, complete)


def _id(rng: random.Random, prefix: str) -> str:
    return f"{prefix}_{rng.getrandbits(128):032x}"


def _event(
    rng: random.Random, kind: str, at: datetime, run_id: str | None, **payload: Any
) -> EventRecord:
    return EventRecord(_id(rng, "evt"), kind, at, run_id, payload)


def _events(events: list[EventRecord], thread_id: str, workspace: str) -> list[dict[str, Any]]:
    # seq is set by the statement, under the thread's lock
    return [model.event_props(event, 0, thread_id, workspace) for event in events]


def _receipt(rng: random.Random, mutation: str, workspace: str) -> dict[str, Any]:
    now = datetime.now(UTC)
    record = ReceiptRecord(
        command_id=f"raw-{rng.getrandbits(96):024x}",
        mutation=mutation,
        args_hash=f"{rng.getrandbits(256):064x}",
        result='{"id": "raw"}',
        at=now,
    )
    return model.receipt_props(record, workspace)
