"""A write plan being put together: new nodes, property changes by id, events.

Ids and the time come from the caller, so building a plan stays pure: the same state,
arguments, ids and time give the same plan.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from graph.events import Payload
from graph.models import (
    CheckpointNode,
    HandoffHead,
    HandoffNode,
    ProviderLimitNode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    ThreadNode,
    TransferNode,
)
from graph.plan import (
    HandoffChange,
    LimitChange,
    NewEvent,
    NewThread,
    NodeChange,
    ProviderThreadChange,
    RunChange,
    RunContent,
    RunMove,
    ThreadChange,
    TransferChange,
    WritePlan,
)

NewId = Callable[[str], str]
C = TypeVar("C", bound=NodeChange)
N = TypeVar(
    "N",
    ThreadNode,
    RunNode,
    ProviderThreadNode,
    HandoffNode,
    HandoffHead,
    TransferNode,
    ProviderLimitNode,
)
# Which change a node of each kind takes (a handoff read without its text too).
CHANGE_OF: dict[type, type[NodeChange]] = {
    ThreadNode: ThreadChange,
    RunNode: RunChange,
    ProviderThreadNode: ProviderThreadChange,
    HandoffNode: HandoffChange,
    HandoffHead: HandoffChange,
    TransferNode: TransferChange,
    ProviderLimitNode: LimitChange,
}


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
        self._limits: list[ProviderLimitNode] = []
        # Per kind of change, the properties set so far on each node, by id.
        self._changes: dict[type[NodeChange], dict[str, dict[str, object]]] = {
            kind: {}
            for kind in (
                ThreadChange,
                RunChange,
                ProviderThreadChange,
                HandoffChange,
                TransferChange,
                LimitChange,
            )
        }
        self._events: list[NewEvent] = []

    def thread(
        self,
        thread: ThreadNode,
        source_run_ordinal: int | None = None,
        source_item_index: int | None = None,
    ) -> None:
        self._threads.append(
            NewThread(
                thread=thread,
                sourceRunOrdinal=source_run_ordinal,
                sourceItemIndex=source_item_index,
            )
        )

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

    def limit(self, limit: ProviderLimitNode) -> None:
        self._limits.append(limit)

    def change(self, change: NodeChange) -> None:
        """Set properties of an existing node; later changes to the same node merge."""
        self._changes[type(change)].setdefault(change.id, {}).update(change.props)

    def updated(self, node: N) -> N:
        """`node` as this draft leaves it: its changes applied."""
        props = self._changes[CHANGE_OF[type(node)]].get(node.id, {})
        return node.model_copy(update=props)

    def event(self, thread_id: str, payload: Payload, run_id: str | None = None) -> None:
        self._events.append(
            NewEvent(
                id=self.new_id("evt"), threadId=thread_id, at=self.at, runId=run_id, payload=payload
            )
        )

    def build(self) -> WritePlan:
        return WritePlan(
            at=self.at,
            threads=self._threads,
            providerThreads=self._provider_threads,
            handoffs=self._handoffs,
            runs=self._runs,
            runMoves=self._moves,
            runContents=self._contents,
            transfers=self._transfers,
            threadChanges=self._built(ThreadChange),
            providerThreadChanges=self._built(ProviderThreadChange),
            runChanges=self._built(RunChange),
            handoffChanges=self._built(HandoffChange),
            transferChanges=self._built(TransferChange),
            limits=self._limits,
            limitChanges=self._built(LimitChange),
            events=self._events,
        )

    def _built(self, kind: type[C]) -> list[C]:
        """The merged changes of one kind, each with exactly the properties it set (and
        checked again: a value of the wrong type fails here, not in the store)."""
        return [kind.model_validate({"id": i, **p}) for i, p in self._changes[kind].items()]
