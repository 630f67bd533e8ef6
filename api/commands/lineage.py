"""Forks, merge-back and subagents. A command that sends a transfer to the parent locks
the child and the parent together, in the one order every command follows
(docs/MODEL.md, "Locks")."""

from __future__ import annotations

from api.commands.caller import Caller, decided, locked
from api.commands.receipts import Written
from api.commands.runs import run_in_progress
from graph import repo
from graph.errors import invalid, not_found
from graph.models import NamedRun, ThreadNode, TransferNode
from graph.thread_state import ThreadState
from graph.tx import Tx
from resolvers.lineage import points, writes


async def fork_thread(
    tx: Tx,
    caller: Caller,
    source_thread_id: str,
    run_id: str | None,
    checkpoint_id: str | None,
    latest_stable: bool,
    title: str | None,
    item_index: int | None = None,
    side: bool = False,
) -> Written[ThreadNode]:
    source, _ = await locked(tx, caller, source_thread_id, points=True)
    named = await _named_run(tx, caller, run_id, checkpoint_id, item_index)
    chosen = named.run if named is not None else None
    run, at_checkpoint = points.fork_source_run(
        source, chosen, run_id, checkpoint_id, latest_stable, item_index
    )
    key = points.fork_item(named, item_index) if named is not None else None
    asked = writes.ForkRequest(run, at_checkpoint, item_index, key, side)
    draft = caller.draft()
    child = writes.fork(draft, source, asked, title)
    return Written(child, draft.build())


async def _named_run(
    tx: Tx,
    caller: Caller,
    run_id: str | None,
    checkpoint_id: str | None,
    item_index: int | None,
) -> NamedRun | None:
    """The run of the workspace that `run_id` or `checkpoint_id` names, if any, on
    whichever thread (the fork's rule tells another thread's run from none)."""
    if run_id is None and checkpoint_id is None:
        return None
    return await repo.named_run(tx, caller.workspace, run_id, checkpoint_id, item_index)


async def merge_back(tx: Tx, caller: Caller, fork_thread_id: str) -> Written[TransferNode]:
    fork, _ = await locked(tx, caller, fork_thread_id, ends=True, parent=True, points=True)
    points.merge_back_points(fork)
    parent, _ = await locked(tx, caller, fork.thread.parentId or "")  # held already
    draft = caller.draft()
    transfer = writes.merge_back(draft, fork, parent)
    return Written(transfer, draft.build())


async def explain_merge_back(
    tx: Tx, caller: Caller, fork_thread_id: str
) -> writes.MergeBackOutlook:
    """What mergeBack would do now; nothing is locked or written."""
    fork = await _state(tx, caller, fork_thread_id, points=True)
    if fork.thread.parentId is None:
        raise invalid(f"Thread {fork_thread_id} is not a fork; only forks merge back.")
    parent = await _state(tx, caller, fork.thread.parentId)
    return await decided(
        tx,
        caller,
        lambda content: writes.explain_merge_back(
            caller.draft(), fork, parent, caller.providers, content, caller.context
        ),
    )


async def _state(tx: Tx, caller: Caller, thread_id: str, *, points: bool = False) -> ThreadState:
    found = await repo.states(tx, caller.workspace, thread_id=thread_id, lock=False, points=points)
    if found is None:
        raise not_found("thread", thread_id)
    return found[0]


async def spawn_subagent(
    tx: Tx, caller: Caller, parent_run_id: str, task: str, provider: str | None
) -> Written[ThreadNode]:
    parent, _, run = await run_in_progress(
        tx, caller, parent_run_id, "spawn a subagent", related=False, points=True
    )
    draft = caller.draft()
    child = writes.spawn_subagent(draft, parent, run, task, provider)
    return Written(child, draft.build())


async def record_native_subagent(
    tx: Tx, caller: Caller, parent_run_id: str, provider: str, native_ref: str, title: str | None
) -> Written[ThreadNode]:
    parent, _, run = await run_in_progress(
        tx, caller, parent_run_id, "record a subagent", related=False, points=True
    )
    draft = caller.draft()
    child = writes.record_native_subagent(draft, parent, run, provider, native_ref, title)
    return Written(child, draft.build())


async def complete_subagent(
    tx: Tx, caller: Caller, child_thread_id: str, result: str
) -> Written[TransferNode]:
    child, _ = await locked(tx, caller, child_thread_id, ends=True, parent=True, points=True)
    points.require_subagent(child)
    parent, _ = await locked(tx, caller, child.thread.parentId or "")  # held already
    draft = caller.draft()
    transfer = writes.complete_subagent(draft, child, parent, result)
    return Written(transfer, draft.build())
