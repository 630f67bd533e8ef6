"""How far a fork (or subagent) and its source have drifted apart (docs/MODEL.md "Fork
divergence"), and whether a merge-back still means something.

Everything here is ranges and a handful of nodes: the source thread's rolled-back runs,
the run the child was taken at, and the child's merge-backs (or subagent results). The
same function answers for now and, over the threads rebuilt from their histories, for
any past instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from graph.errors import conflict
from graph.models import (
    CARRYING,
    RunNode,
    ThreadNode,
    TransferNode,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.lineage.points import DELIVERED_TO_PARENT, ORIGINS


@dataclass(frozen=True)
class Divergence:
    forkedAt: int  # the source run the child was taken at (0: before any run)
    forkedAtItem: int | None  # a fork at an item: the last item of that run it took
    sourceRunsSinceFork: Ranges
    sourceRolledBackPastFork: bool
    sourceRolledBackTo: int | None
    unmerged: Ranges
    lastMergeBackAt: datetime | None


def divergence(
    child: ThreadState,
    source: ThreadNode,
    point: RunNode | None,
    returns: Sequence[TransferNode],
) -> Divergence | None:
    """The divergence of `child` from `source`, its parent; None for a thread that was not
    forked or spawned. `point` is the source run the child was taken at (None when it was
    taken before any run), `returns` the merge-backs or results the child sent its parent.
    """
    start = opening(child)
    if start is None:
        return None
    forked_at = start.sourcePoint.runOrdinal or 0
    past_fork = rolled_back_past(source, forked_at)
    carried = [x for x in returns if x.type in DELIVERED_TO_PARENT and x.status in CARRYING]
    latest = max(carried, key=lambda x: (x.createdAt, x.id), default=None)
    merged_through = latest.sourcePoint.runOrdinal or 0 if latest else 0
    return Divergence(
        forkedAt=forked_at,
        forkedAtItem=start.sourcePoint.itemIndex,
        sourceRunsSinceFork=source.not_rolled_back.after(forked_at),
        sourceRolledBackPastFork=past_fork,
        sourceRolledBackTo=point.rolledBackTo if past_fork and point is not None else None,
        unmerged=child.history.after(merged_through),
        lastMergeBackAt=latest.createdAt if latest else None,
    )


def opening(child: ThreadState) -> TransferNode | None:
    """The fork or spawn that opened the thread; a superseded one still names the point
    (a rollback of the source supersedes a fork that never ran)."""
    return next((x for x in child.transfers if x.type in ORIGINS), None)


def rolled_back_past(source: ThreadNode, forked_at: int) -> bool:
    """The run the child was taken at is no longer history of its source."""
    return forked_at > 0 and forked_at in source.rolled_back


def require_source_kept(fork: ThreadState, parent: ThreadState) -> None:
    """A merge-back onto a source that rolled back past the fork point would deliver work
    built on runs the source no longer has: CONFLICT, saying what to do instead."""
    start = opening(fork)
    forked_at = start.sourcePoint.runOrdinal or 0 if start else 0
    if not rolled_back_past(parent.thread, forked_at):
        return
    kept = parent.thread.not_rolled_back.through(forked_at).last
    raise conflict(
        f"Thread {parent.thread.id} was rolled back past run {forked_at}, the run fork "
        f"{fork.thread.id} was taken at (its history now ends at run {kept or 0} before "
        "that point), so a merge-back would deliver work built on runs the source no "
        "longer has. Fork the source again from its current state and redo or carry the "
        "work there, or start a run on the source that states the changes yourself."
    )
