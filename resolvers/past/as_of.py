"""The graph as it was at a past instant (docs/MODEL.md "Lineage through time").

Each node keeps the history of the fields that change (graph/history.py); a node as of
an instant is its current self with those fields as its history had them then. What
changes on every run is not kept on the nodes but follows from the runs as they were:
a thread's latest ordinal and rolled-back runs, a provider thread's native runs and its
last use. `past` rebuilds a whole thread that way, into the same `ThreadState` the
present decisions read, so coverage, the ladder and divergence are computed by the same
code for the past as for now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from graph.history import TRACKED, NodeKind, Timeline, Version, Versioned
from graph.models import (
    ENDED,
    IN_PROGRESS,
    LIVE_HANDOFF,
    SETTLED,
    CheckpointNode,
    HandoffNode,
    HandoffStatus,
    ProviderThreadNode,
    RunNode,
    RunStatus,
    ThreadNode,
    TransferNode,
    TransferStatus,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.lineage.points import ORIGINS

N = TypeVar("N", bound=BaseModel)
# What a run has only once it ended: as of an instant it was still in progress, none.
ENDED_FIELDS: dict[str, Any] = {
    "nativeTurnRef": None,
    "completedAt": None,
    "failureReason": None,
    "checkpoint": None,
    "items": [],
}


@dataclass(frozen=True)
class Instant:
    """A past instant. As of it, everything committed at or before it has happened; a
    start made at it (`before`) sees only what was committed strictly before."""

    at: datetime
    before: bool = False

    def saw(self, when: datetime) -> bool:
        return when < self.at if self.before else when <= self.at


def fold(kind: NodeKind, versioned: Versioned[N], instant: Instant) -> N:
    """The node with its tracked fields as its history had them at `instant`. A node
    without history (written before histories were kept) keeps its current values, and so
    does a field its history never names (tracked only since: a handoff's target run)."""
    node, versions = versioned.node, versioned.history
    if not versions:
        return node
    values: dict[str, Any] = {}
    named: set[str] = set()
    for version in versions:
        named.update(version.values)
        if instant.saw(version.at):
            values.update(version.values)
    update = {name: values.get(name) for name in TRACKED[kind] if name in named}
    return type(node).model_validate({**node.model_dump(), **update})


# ---- one node ----------------------------------------------------------------------


def thread_at(versioned: Versioned[ThreadNode], instant: Instant) -> ThreadNode | None:
    """The thread, if it existed (its latest ordinal and rolled-back runs: see `past`)."""
    if not instant.saw(versioned.node.createdAt):
        return None
    return fold("thread", versioned, instant)


def run_at(versioned: Versioned[RunNode], instant: Instant) -> RunNode | None:
    """The run, if it had started; a run then in progress has no end, items or checkpoint."""
    if not instant.saw(versioned.node.startedAt):
        return None
    run = fold("run", versioned, instant)
    return run.model_copy(update=ENDED_FIELDS) if run.status in IN_PROGRESS else run


def provider_thread_at(
    versioned: Versioned[ProviderThreadNode], instant: Instant
) -> ProviderThreadNode | None:
    """The provider thread, if it existed (its native runs and last use: see `past`).
    What its provider last reported, and what Threadline counts it holds, change with
    every run and are kept only as they are now, not in its history: the past answers
    none (a past start's budget counts its native thread as holding nothing)."""
    if not instant.saw(versioned.node.createdAt):
        return None
    found = fold("providerThread", versioned, instant)
    return found.model_copy(update={"contextUsage": None, "heldTokens": 0})


def handoff_at(versioned: Versioned[HandoffNode], instant: Instant) -> HandoffNode | None:
    if not instant.saw(versioned.node.createdAt):
        return None
    handoff = fold("handoff", versioned, instant)
    if instant.saw(handoff.updatedAt):
        return handoff
    return handoff.model_copy(update={"updatedAt": _last_change(versioned, instant)})


def delivered_at(versioned: Versioned[HandoffNode], instant: Instant) -> HandoffNode | None:
    """The handoff, if it had been delivered then: a prepared one only from the start
    that injected it."""
    handoff = handoff_at(versioned, instant)
    return handoff if handoff is not None and handoff.toProviderThreadId is not None else None


def transfer_at(versioned: Versioned[TransferNode], instant: Instant) -> TransferNode | None:
    if not instant.saw(versioned.node.createdAt):
        return None
    return fold("transfer", versioned, instant)


def checkpoint_at(node: CheckpointNode, instant: Instant) -> CheckpointNode | None:
    """A checkpoint is made when its run completes, and never changes."""
    return node if instant.saw(node.createdAt) else None


def _last_change(versioned: Versioned[HandoffNode], instant: Instant) -> datetime:
    seen = [version.at for version in versioned.history if instant.saw(version.at)]
    return max([versioned.node.createdAt, *seen])


def first_provider_thread(versioned: Versioned[RunNode]) -> str | None:
    """The provider thread the run started on (a start failure moves it later)."""
    first: Version | None = versioned.history[0] if versioned.history else None
    if first is not None and "providerThreadId" in first.values:
        return str(first.values["providerThreadId"])
    return versioned.node.providerThreadId


# ---- a whole thread ------------------------------------------------------------------


@dataclass(frozen=True)
class Past:
    """A thread as it was at an instant: the state decisions read then, and its nodes."""

    state: ThreadState  # selected as thread/state.cypher selects, with its source points
    runs: tuple[RunNode, ...]  # every run that had started, by ordinal
    # Every handoff its provider threads had received, and those prepared for it.
    handoffs: tuple[HandoffNode, ...]
    transfersIn: tuple[TransferNode, ...]
    transfersOut: tuple[TransferNode, ...]

    def coverage_state(self) -> ThreadState:
        """What coverage reads (thread/coverage.cypher): the ready handoffs of every
        provider thread, settled ones included."""
        ready = [h for h in self.handoffs if h.status is HandoffStatus.READY]
        return self.state.model_copy(update={"handoffs": ready})

    def run(self, ordinal: int | None) -> RunNode | None:
        return next((run for run in self.runs if run.ordinal == ordinal), None)


def past(timeline: Timeline, instant: Instant) -> Past | None:
    """The thread of `timeline` as it was at `instant`; None if it did not exist yet."""
    thread = thread_at(timeline.thread, instant)
    if thread is None:
        return None
    handoffs = _sorted(_each(timeline.handoffs, handoff_at, instant))
    known = {handoff.id for handoff in handoffs}
    runs = sorted(
        (
            run.model_copy(
                update={"consumedHandoffIds": [h for h in run.consumedHandoffIds if h in known]}
            )
            for run in _each(timeline.runs, run_at, instant)
        ),
        key=lambda run: run.ordinal,
    )
    thread = thread.model_copy(
        update={
            "lastOrdinal": runs[-1].ordinal if runs else 0,
            "rolledBack": Ranges.of(
                run.ordinal for run in runs if run.status is RunStatus.ROLLED_BACK
            ).flatten(),
        }
    )
    started_on = {v.node.id: first_provider_thread(v) for v in timeline.runs}
    provider_threads = [
        _used(pt, runs, started_on, instant)
        for pt in _each(timeline.providerThreads, provider_thread_at, instant)
    ]
    provider_threads.sort(key=lambda pt: (pt.createdAt, pt.id))
    transfers_in = _sorted(_each(timeline.transfersIn, transfer_at, instant))
    transfers_out = _sorted(_each(timeline.transfersOut, transfer_at, instant))
    state = _state(thread, runs, provider_threads, handoffs, transfers_in, transfers_out)
    return Past(state, tuple(runs), tuple(handoffs), tuple(transfers_in), tuple(transfers_out))


def _used(
    pt: ProviderThreadNode, runs: list[RunNode], started_on: dict[str, str | None], instant: Instant
) -> ProviderThreadNode:
    """A provider thread's native runs then (the ended runs that ran on it) and its last
    use then (its creation, or the latest start that chose it)."""
    native = Ranges.of(
        run.ordinal for run in runs if run.status in ENDED and run.providerThreadId == pt.id
    )
    last_used = pt.lastUsedAt
    if not instant.saw(last_used):
        last_used = max([pt.createdAt, *(r.startedAt for r in runs if started_on[r.id] == pt.id)])
    return pt.model_copy(update={"nativeRanges": native.flatten(), "lastUsedAt": last_used})


def _state(
    thread: ThreadNode,
    runs: list[RunNode],
    provider_threads: list[ProviderThreadNode],
    handoffs: list[HandoffNode],
    transfers_in: list[TransferNode],
    transfers_out: list[TransferNode],
) -> ThreadState:
    last = runs[-1] if runs else None
    by_ordinal = {run.ordinal: run for run in runs}
    status = {pt.id: pt.status for pt in provider_threads}
    completed = [run for run in runs if run.status is RunStatus.COMPLETED]
    live = [
        h
        for h in handoffs
        if h.status in LIVE_HANDOFF
        and h.toProviderThreadId in status
        and status[h.toProviderThreadId] not in SETTLED
    ]
    busy = last.id if last is not None and last.status in IN_PROGRESS else None
    return ThreadState(
        thread=thread,
        lastRun=last,
        providerThreads=provider_threads,
        handoffs=live,
        runHandoffs=[h for h in live if busy is not None and h.targetRunId == busy],
        transfers=[
            x
            for x in transfers_in
            if x.status is TransferStatus.PENDING
            or x.type in ORIGINS
            or (last is not None and x.consumedByRunId == last.id)
        ],
        outgoingTransfers=[x for x in transfers_out if x.status is TransferStatus.PENDING],
        deltaChains={
            pt.id: by_ordinal[last_native].deltaChain
            for pt in provider_threads
            if pt.status not in SETTLED
            and (last_native := pt.native.last) is not None
            and last_native in by_ordinal
        },
        latestCompleted=completed[-1] if completed else None,
        latestStable=next((run for run in reversed(completed) if run.checkpoint), None),
        prepared=[h for h in handoffs if h.prepared and h.status is HandoffStatus.READY],
    )


def _each(
    items: Iterable[Versioned[N]],
    at: Callable[[Versioned[N], Instant], N | None],
    instant: Instant,
) -> list[N]:
    return [node for versioned in items if (node := at(versioned, instant)) is not None]


D = TypeVar("D", HandoffNode, TransferNode)


def _sorted(nodes: list[D]) -> list[D]:
    return sorted(nodes, key=lambda node: (node.createdAt, node.id))
