"""A write plan being put together: new nodes, property changes by id, events.

Ids and the time come from the caller, so building a plan stays pure: the same state,
arguments, ids and time give the same plan.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from graph.models import (
    CheckpointNode,
    HandoffNode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    ThreadNode,
    TransferNode,
)
from graph.plan import Change, EventType, NewEvent, NewThread, RunContent, RunMove, WritePlan

NewId = Callable[[str], str]
N = TypeVar("N", bound=BaseModel)
Kind = Literal["thread", "providerThread", "run", "handoff", "transfer"]


class Draft:
    def __init__(self, new_id: NewId, at: datetime) -> None:
        self.new_id = new_id
        self.at = at
        self._threads: list[NewThread] = []
        self._provider_threads: list[ProviderThreadNode] = []
        self._handoffs: list[HandoffNode] = []
        self._runs: list[RunNode] = []
        self._moves: list[RunMove] = []
        self._contents: list[RunContent] = []
        self._transfers: list[TransferNode] = []
        self._changes: dict[Kind, dict[str, dict[str, Any]]] = {
            "thread": {},
            "providerThread": {},
            "run": {},
            "handoff": {},
            "transfer": {},
        }
        self._events: list[NewEvent] = []

    def thread(self, thread: ThreadNode, source_run_ordinal: int | None = None) -> None:
        self._threads.append(NewThread(thread=thread, sourceRunOrdinal=source_run_ordinal))

    def provider_thread(self, pt: ProviderThreadNode) -> None:
        self._provider_threads.append(pt)

    def handoff(self, handoff: HandoffNode) -> None:
        self._handoffs.append(handoff)

    def run(self, run: RunNode) -> None:
        self._runs.append(run)

    def move(self, run_id: str, provider_thread_id: str, handoff_ids: list[str]) -> None:
        self._moves.append(
            RunMove(runId=run_id, providerThreadId=provider_thread_id, handoffIds=handoff_ids)
        )

    def content(self, run_id: str, items: list[RunItem], checkpoint: CheckpointNode | None) -> None:
        self._contents.append(RunContent(runId=run_id, items=items, checkpoint=checkpoint))

    def transfer(self, transfer: TransferNode) -> None:
        self._transfers.append(transfer)

    def change(self, kind: Kind, ident: str, **props: Any) -> None:
        """Set properties of an existing node; later changes to the same node merge."""
        self._changes[kind].setdefault(ident, {}).update(props)

    def updated(self, kind: Kind, node: N) -> N:
        """`node` as this draft leaves it: its changes applied (those that are fields)."""
        props = self._changes[kind].get(getattr(node, "id", ""), {})
        fields = type(node).model_fields
        return node.model_copy(update={k: v for k, v in props.items() if k in fields})

    def event(
        self, thread_id: str, kind: EventType, run_id: str | None = None, **payload: Any
    ) -> None:
        self._events.append(
            NewEvent(
                id=self.new_id("evt"),
                threadId=thread_id,
                type=kind,
                at=self.at,
                runId=run_id,
                payload=payload or None,
            )
        )

    def build(self) -> WritePlan:
        def changes(kind: Kind) -> list[Change]:
            return [Change(id=i, props=p) for i, p in self._changes[kind].items()]

        return WritePlan(
            at=self.at,
            threads=self._threads,
            providerThreads=self._provider_threads,
            handoffs=self._handoffs,
            runs=self._runs,
            runMoves=self._moves,
            runContents=self._contents,
            transfers=self._transfers,
            threadChanges=changes("thread"),
            providerThreadChanges=changes("providerThread"),
            runChanges=changes("run"),
            handoffChanges=changes("handoff"),
            transferChanges=changes("transfer"),
            events=self._events,
        )
