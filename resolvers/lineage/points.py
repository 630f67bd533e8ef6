"""Where lineage transfers start and end: the source point of a fork, a spawn, a merge-back
or a subagent result, the transfer that created a thread, and which pending transfers a
new one replaces."""

from __future__ import annotations

from graph.errors import conflict, invalid, not_found
from graph.models import (
    IN_PROGRESS,
    NamedRun,
    RunItemKind,
    RunNode,
    RunStatus,
    SourcePoint,
    ThreadRelationship,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.thread_state import ThreadState

ORIGINS = frozenset({TransferType.FORK, TransferType.SUBAGENT_SPAWN})
# Kinds whose key names what they track (a todo, a question, a call's output), not the
# native message they came in: their key is never taken for a native message id.
STATE_KEYED = frozenset(
    {
        RunItemKind.TODO,
        RunItemKind.QUESTION,
        RunItemKind.APPROVAL,
        RunItemKind.FAILURE,
        RunItemKind.TOOL_OUTPUT,
    }
)
DELIVERED_TO_PARENT = frozenset({TransferType.MERGE_BACK, TransferType.SUBAGENT_RESULT})


# ---- source points -------------------------------------------------------------


def fork_source_run(
    state: ThreadState,
    chosen: RunNode | None,
    run_id: str | None,
    checkpoint_id: str | None,
    latest_stable: bool,
    item_index: int | None = None,
) -> tuple[RunNode, bool]:
    """The run a fork starts from and whether it was chosen as a checkpoint.

    `chosen` is the run `run_id` or `checkpoint_id` named, as the store found it in the
    workspace, on whichever thread (None: the workspace holds no such id, NOT_FOUND as
    for any id a mutation names; a run of another thread is INVALID_INPUT). `item_index`
    (a fork at an item) goes with `run_id` only.
    """
    if sum([run_id is not None, checkpoint_id is not None, latest_stable]) != 1:
        raise invalid("Give exactly one of at.runId, at.checkpointId or at.latestStable: true.")
    if item_index is not None and run_id is None:
        raise invalid("at.itemIndex goes with at.runId only, not a checkpoint or latestStable.")
    if latest_stable:
        if state.latestStable is None:
            raise invalid(
                f"Thread {state.thread.id} has no completed run with a checkpoint to fork from."
            )
        return state.latestStable, True
    named = f"Checkpoint {checkpoint_id!r}" if checkpoint_id is not None else f"Run {run_id!r}"
    if chosen is None:
        kind = "checkpoint" if checkpoint_id is not None else "run"
        raise not_found(kind, str(checkpoint_id if checkpoint_id is not None else run_id))
    if chosen.threadId != state.thread.id:
        raise invalid(
            f"{named} is of thread {chosen.threadId}, not of thread {state.thread.id}: a "
            "fork starts from a point of its source thread."
        )
    return _forkable(chosen), checkpoint_id is not None


def fork_item(named: NamedRun, item_index: int | None) -> str | None:
    """For a fork at an item (docs/MODEL.md "Steering the context"), once its run is known
    to be forkable: checks `item_index` against the run (-1, or the index of one of its
    items) and answers its native message id: the item's key, unless its kind keys a
    state (`STATE_KEYED`)."""
    if item_index is None:
        return None
    run = named.run
    if not -1 <= item_index < named.itemCount:
        last = named.itemCount - 1
        raise invalid(
            f"Run {run.ordinal} has {named.itemCount} item(s), so at.itemIndex must be "
            f"between -1 (its input only) and {last}; got {item_index}."
        )
    item = named.item
    if item is None or item_index < 0 or item.kind in STATE_KEYED:
        return None
    return item.key


def _forkable(run: RunNode) -> RunNode:
    if run.status in IN_PROGRESS:
        raise conflict(f"Run {run.ordinal} is still {run.status}; fork from a completed run.")
    if run.status is not RunStatus.COMPLETED:
        raise invalid(f"Run {run.ordinal} is {run.status}; only a completed run can be forked.")
    return run


def point_at(
    state: ThreadState,
    run: RunNode,
    *,
    at_checkpoint: bool = False,
    item_index: int | None = None,
    item_key: str | None = None,
) -> SourcePoint:
    """A source point at `run` (at its item `item_index`, whose key is `item_key`, when
    given) with the native refs of the provider thread it ran on."""
    pt = state.provider_thread(run.providerThreadId)
    return SourcePoint(
        threadId=state.thread.id,
        runId=run.id,
        runOrdinal=run.ordinal,
        checkpointId=run.checkpoint.id if run.checkpoint else None,
        providerThreadId=pt.id if pt else None,
        providerThreadRef=pt.nativeRef if pt else None,
        providerTurnRef=run.nativeTurnRef,
        atCheckpoint=at_checkpoint,
        itemIndex=item_index,
        turnItemId=item_key,
    )


def latest_point(state: ThreadState) -> SourcePoint:
    """The thread's latest completed run, or the bare thread when it has none."""
    completed = state.latestCompleted
    return point_at(state, completed) if completed else SourcePoint(threadId=state.thread.id)


def origin(state: ThreadState) -> TransferNode | None:
    """The transfer that created this thread (fork or subagent spawn), if any."""
    return next(
        (
            x
            for x in state.transfers
            if x.type in ORIGINS and x.status is not TransferStatus.SUPERSEDED
        ),
        None,
    )


def merge_back_points(fork: ThreadState) -> tuple[SourcePoint, SourcePoint]:
    """(source point, base point) of a merge-back: the fork's latest completed run, its origin."""
    if fork.thread.relationshipToParent is ThreadRelationship.SIDE:
        raise invalid(
            f"Thread {fork.thread.id} is a side thread: it never merges back, so nothing of "
            "it reaches its source. Carry what it found by hand in a run on the source."
        )
    if fork.thread.relationshipToParent is not ThreadRelationship.FORK:
        raise invalid(f"Thread {fork.thread.id} is not a fork; only forks merge back.")
    if fork.latestCompleted is None:
        raise invalid(f"Fork {fork.thread.id} has no completed run to merge back yet.")
    start = origin(fork)
    base = start.sourcePoint if start else SourcePoint(threadId=fork.thread.parentId or "")
    return point_at(fork, fork.latestCompleted), base


def require_subagent(child: ThreadState) -> None:
    if child.thread.relationshipToParent is not ThreadRelationship.SUBAGENT:
        raise invalid(f"Thread {child.thread.id} is not a subagent thread.")
    busy = child.run_in_progress
    if busy is not None:
        raise conflict(f"Subagent run {busy.ordinal} is still in progress; finish it first.")


def superseded_by_new(parent: ThreadState, kind: TransferType, source_thread_id: str) -> list[str]:
    """Pending transfers of `kind` from the same source that a new one replaces."""
    return [
        x.id
        for x in parent.transfers
        if x.type is kind
        and x.status is TransferStatus.PENDING
        and x.sourceThreadId == source_thread_id
    ]
