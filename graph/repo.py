"""Typed reads and writes over named queries, inside one managed transaction.

Rows become models and models rows in graph/codec.py. Ids of linked nodes are mirrored
as properties beside the relationships, so one node read answers without another hop.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict, Unpack

from graph import gates, history
from graph.codec import (
    encode,
    event_from,
    handoff_from,
    item_from,
    limit_from,
    native,
    param_row,
    props,
    run_from,
    state_from,
    thread_from,
    timeline_from,
    transfer_from,
)
from graph.history import NodeKind, Timeline
from graph.models import (
    DIGEST_VERSION,
    EventNode,
    HandoffNode,
    Lineage,
    LineageEdge,
    LineageNode,
    NamedRun,
    ProviderLimitNode,
    RunDigest,
    RunItemKind,
    RunNode,
    ThreadItem,
    ThreadNode,
    TransferNode,
)
from graph.plan import CommandId, NodeChange, Receipt, WritePlan
from graph.ranges import Ranges
from graph.search import FieldQueries, SearchText
from graph.thread_state import ThreadState
from graph.tx import Row, Tx

# ---- reads ------------------------------------------------------------------


class StateOptions(TypedDict, total=False):
    """What a state read is named by besides a thread id, and what it reads with it.

    `run_id`, `provider_thread_id`: the thread named by a run or provider thread on it.
    `related`: the states of its ancestors, of the sources of transfers waiting for it,
    and of `extra`. `points`: each state's latest completed and latest stable runs (source
    points). `trimmed`: the thread's settled provider threads only where a decision may
    name them (the latest of each provider, the last run's, `provider_thread_id`).
    `run_handoffs_only`: the live handoffs only of the run in progress
    (`ThreadState.runHandoffs`, without text). `limits_at`: the workspace's usage limits
    in force then (`ThreadState.limitsInForce`)."""

    run_id: str | None
    provider_thread_id: str | None
    related: bool
    points: bool
    trimmed: bool
    run_handoffs_only: bool
    extra: Sequence[str]
    limits_at: datetime | None


async def states(
    tx: Tx,
    workspace: str,
    *,
    thread_id: str | None = None,
    lock: bool,
    lock_ends: bool = False,
    lock_parent: bool = False,
    **options: Unpack[StateOptions],
) -> tuple[ThreadState, dict[str, ThreadState]] | None:
    """The state of the thread named by its id or by `options` (its write lock taken first
    with `lock`; with `lock_ends` also those of the threads at the other end of its pending
    transfers, with `lock_parent` its parent's), and what `options` ask for with it. A
    write statement either way: call it in a write transaction. With `lock`, the
    transaction's slot of the write gate is locked first (graph/gates.py); None also when
    a restore holds the workspace closed (`gates.closed` tells which)."""
    rows = await tx.rows(
        "thread/state",
        workspace=workspace,
        gate=gates.slot(tx) if lock else None,
        threadId=thread_id,
        runId=options.get("run_id"),
        providerThreadId=options.get("provider_thread_id"),
        lock=lock,
        lockEnds=lock_ends,
        lockParent=lock_parent,
        related=options.get("related", False),
        points=options.get("points", False),
        trimmed=options.get("trimmed", False),
        runHandoffsOnly=options.get("run_handoffs_only", False),
        extra=list(options.get("extra", ())),
        limitsAt=options.get("limits_at"),
    )
    tx.gated = tx.gated or lock
    main: ThreadState | None = None
    others: dict[str, ThreadState] = {}
    for row in rows:
        state = state_from(row)
        if row["isMain"]:
            main = state
        else:
            others[state.thread.id] = state
    return None if main is None else (main, others)


async def digests(
    tx: Tx, workspace: str, wants: dict[str, Ranges]
) -> list[tuple[str, RunDigest | RunNode]]:
    """What summaries read of the runs at `wants` (thread id -> ordinals): the digest
    kept on each run, or the run itself for runs written before digests of this version."""
    rows = await tx.rows(
        "run/digests",
        workspace=workspace,
        digestVersion=DIGEST_VERSION,
        wants=[{"threadId": t, "ordinals": list(ordinals)} for t, ordinals in wants.items()],
    )
    return [
        (
            row["threadId"],
            RunDigest.model_validate_json(row["digest"]) if row["digest"] else run_from(row["run"]),
        )
        for row in rows
    ]


async def rollback_inputs(tx: Tx, workspace: str, thread_id: str, to_ordinal: int) -> Row:
    """What resolvers/lineage/rollback.py's RollbackInputs reads: the live runs after
    `to_ordinal` (`rolledRuns`), the live handoffs about the thread reaching past it or
    consumed by one of those runs (`affected`, each {handoff, consumerOrdinal,
    consumerProviderThreadId}: its target run), and the
    merge-backs and subagent results consumed after it (`delivered`, each {transfer,
    handoffLive}), and the subagent results still pending (`pendingResults`, each
    {transferId, spawnedByRunId})."""
    row = await tx.row(
        "thread/rollback_inputs", workspace=workspace, threadId=thread_id, toOrdinal=to_ordinal
    )
    if row is None:
        return {"rolledRuns": [], "affected": [], "delivered": [], "pendingResults": []}
    return {
        "rolledRuns": [run_from(r) for r in row["rolledRuns"]],
        "affected": [{**native(a), "handoff": handoff_from(a["handoff"])} for a in row["affected"]],
        "delivered": [
            {**native(d), "transfer": transfer_from(d["transfer"])} for d in row["delivered"]
        ],
        "pendingResults": [native(p) for p in row["pendingResults"]],
    }


async def run_owner(tx: Tx, workspace: str, run_id: str) -> tuple[str, RunNode] | None:
    row = await tx.row("run/owner", workspace=workspace, runId=run_id)
    return None if row is None else (str(row["threadId"]), run_from(row["run"]))


async def named_run(
    tx: Tx,
    workspace: str,
    run_id: str | None,
    checkpoint_id: str | None,
    item_index: int | None = None,
) -> NamedRun | None:
    """The run of the workspace named by `run_id` or by its checkpoint's `checkpoint_id`,
    whichever thread holds it, with its item count and its item at `item_index`."""
    row = await tx.row(
        "run/named",
        workspace=workspace,
        runId=run_id,
        checkpointId=checkpoint_id,
        itemIndex=item_index,
    )
    if row is None:
        return None
    item = item_from(row["item"]) if row["item"] is not None else None
    return NamedRun(run=run_from(row["run"]), itemCount=row["itemCount"], item=item)


async def handoff_owner(
    tx: Tx, workspace: str, handoff_id: str
) -> tuple[str, HandoffNode, TransferNode | None] | None:
    row = await tx.row("handoff/owner", workspace=workspace, handoffId=handoff_id)
    if row is None:
        return None
    transfer = transfer_from(row["transfer"]) if row["transfer"] else None
    return str(row["threadId"]), handoff_from(row["handoff"]), transfer


async def summaries_by_key(tx: Tx, workspace: str, keys: Sequence[str]) -> dict[str, HandoffNode]:
    """The handoff holding the configured summary of each key, where there is one."""
    rows = await tx.rows("handoff/by_summary_keys", workspace=workspace, keys=list(keys))
    return {row["key"]: handoff_from(row["handoff"]) for row in rows}


async def imported_session(tx: Tx, workspace: str, session_key: str) -> Row | None:
    """The thread and provider thread an earlier import of the session made (and its
    runs' fingerprints, `importKeys`), or None."""
    return await tx.row("import/session", workspace=workspace, sessionKey=session_key)


async def active_limits(tx: Tx, workspace: str, now: datetime) -> list[ProviderLimitNode]:
    """The workspace's usage limits in force at `now`, by provider name."""
    rows = await tx.rows("limit/active", workspace=workspace, now=now)
    return [limit_from(row["limit"]) for row in rows]


async def latest_limits(tx: Tx, workspace: str) -> list[ProviderLimitNode]:
    """The latest usage limit each provider reported in the workspace, by provider name."""
    rows = await tx.rows("limit/latest", workspace=workspace)
    return [limit_from(row["limit"]) for row in rows]


async def handoffs_by_ids(tx: Tx, workspace: str, ids: Sequence[str]) -> dict[str, HandoffNode]:
    rows = await tx.rows("handoff/by_ids", workspace=workspace, ids=list(ids))
    return {row["key"]: handoff_from(row["value"]) for row in rows}


async def grouped(
    tx: Tx, query: str, workspace: str, keys: Sequence[str], **params: Any
) -> dict[str, list[Row]]:
    """Rows of a `key, value` query, grouped by key (the DataLoader shape)."""
    groups: dict[str, list[Row]] = {key: [] for key in keys}
    for row in await tx.rows(query, workspace=workspace, ids=list(keys), **params):
        groups.setdefault(row["key"], []).append(row["value"])
    return groups


async def lineage(
    tx: Tx, workspace: str, thread_id: str, direction: str, depth: int, include_side: bool = False
) -> Lineage | None:
    """The thread's lineage; side threads below it only with `include_side`."""
    rows = await tx.bounded_rows(
        "thread/lineage",
        depth,
        workspace=workspace,
        threadId=thread_id,
        direction=direction,
        includeSide=include_side,
    )
    if not rows:
        return None
    row = native(rows[0])
    return Lineage(
        nodes=[
            LineageNode(thread=thread_from(n["thread"]), depth=n["depth"]) for n in row["nodes"]
        ],
        edges=[LineageEdge.model_validate(edge) for edge in row["edges"]],
    )


async def timelines(tx: Tx, workspace: str, thread_ids: Sequence[str]) -> dict[str, Timeline]:
    """Each thread's nodes with their histories (thread/timeline), by id; unknown ids absent."""
    groups = await grouped(tx, "thread/timeline", workspace, thread_ids)
    return {key: timeline_from(rows[0]) for key, rows in groups.items() if rows}


async def start_event_at(tx: Tx, workspace: str, thread_id: str, at: datetime) -> EventNode | None:
    """The run.started or run.restarted event the thread recorded at exactly `at`."""
    row = await tx.row("event/start_at", workspace=workspace, threadId=thread_id, at=at)
    return None if row is None else event_from(row["event"])


async def events_page(
    tx: Tx, workspace: str, thread_id: str, after: str | None, first: int
) -> list[EventNode] | None:
    """Up to `first` events after `after`; None when `after` is not an event of the thread."""
    row = await tx.row(
        "event/page", workspace=workspace, threadId=thread_id, after=after, first=first
    )
    if row is None:
        return []
    if not row["known"]:
        return None
    return [event_from(event) for event in row["events"]]


async def event_seq(tx: Tx, workspace: str, thread_id: str, event_id: str) -> int | None:
    """The position of `event_id` in the thread's log; None when it is not one of its events."""
    row = await tx.row("event/position", workspace=workspace, threadId=thread_id, after=event_id)
    return None if row is None else int(row["seq"])


async def events_since(
    tx: Tx, feeds: Sequence[tuple[str, str, int]], first: int
) -> dict[tuple[str, str], list[EventNode]]:
    """For each (workspace, thread id, after seq): up to `first` later events, in order."""
    rows = await tx.rows(
        "event/since",
        feeds=[
            {"key": [ws, thread], "workspace": ws, "threadId": thread, "afterSeq": seq}
            for ws, thread, seq in feeds
        ],
        first=first,
    )
    return {
        (row["key"][0], row["key"][1]): [event_from(event) for event in row["events"]]
        for row in rows
    }


async def threads_page(
    tx: Tx,
    workspace: str,
    after: tuple[datetime, str] | None,
    first: int,
    title_contains: str | None = None,
    newest_first: bool = False,
) -> list[ThreadNode]:
    rows = await tx.rows(
        "thread/page_newest" if newest_first else "thread/page",
        workspace=workspace,
        afterCreatedAt=after[0] if after else None,
        afterId=after[1] if after else None,
        first=first,
        titleContains=title_contains or None,
    )
    return [thread_from(row["value"]) for row in rows]


async def search(
    tx: Tx,
    workspace: str,
    lucene: FieldQueries,
    kinds: list[RunItemKind] | None,
    first: int,
    candidates: int,
) -> list[SearchText]:
    """Up to `first` texts of the workspace `lucene` matches, best first."""
    rows = await tx.rows(
        "search/hits",
        workspace=workspace,
        **lucene.model_dump(),
        kinds=[kind.value for kind in kinds] if kinds is not None else None,
        first=first,
        candidates=candidates,
    )
    return [SearchText.model_validate(dict(row)) for row in rows]


async def thread_items(
    tx: Tx,
    workspace: str,
    thread_id: str,
    after: tuple[int, int] | None,
    kinds: list[RunItemKind] | None,
    ordinals: list[int] | None,
    first: int,
) -> list[ThreadItem]:
    """Up to `first` + 1 items of the thread's active runs after (ordinal, index), each
    run's input first as its item -1 (`USER_GOAL`)."""
    rows = await tx.rows(
        "thread/items",
        workspace=workspace,
        threadId=thread_id,
        afterOrdinal=after[0] if after else 0,
        afterIndex=after[1] if after else -1,
        kinds=[kind.value for kind in kinds] if kinds is not None else None,
        ordinals=ordinals,
        first=first,
    )
    return [
        ThreadItem(
            runId=row["runId"],
            runOrdinal=row["runOrdinal"],
            index=row["seq"],
            **item_from(row["item"]).model_dump(),
        )
        for row in rows
    ]


# ---- writes -----------------------------------------------------------------


async def apply(tx: Tx, workspace: str, plan: WritePlan, receipt: Receipt | None = None) -> None:
    """Everything `plan` writes, and the command's receipt, in one statement (of only the
    sections the plan uses), after the transaction has passed the write gate."""
    await gates.pass_gate(tx, workspace)
    groups: dict[str, list[dict[str, Any]]] = {}
    for event in plan.events:
        groups.setdefault(event.threadId, []).append(
            param_row(
                encode(
                    {
                        **event.model_dump(exclude={"threadId", "payload"}),
                        "type": event.type.value,
                        "payload": event.payload.stored(),
                    }
                )
            )
        )
    at = plan.at
    await tx.sectioned_rows(
        "plan/apply",
        workspace=workspace,
        gate=gates.slot(tx),
        threads=[
            param_row(
                _born("thread", props(t.thread), at),
                sourceRunOrdinal=t.sourceRunOrdinal,
                sourceItemIndex=t.sourceItemIndex,
            )
            for t in plan.threads
        ],
        providerThreads=[
            param_row(_born("providerThread", props(pt), at)) for pt in plan.providerThreads
        ],
        handoffs=[
            param_row(_born("handoff", props(h, exclude={"supersededById"}), at))
            for h in plan.handoffs
        ],
        runs=[
            param_row(
                _born("run", props(run, exclude={"items", "checkpoint", "consumedHandoffIds"}), at),
                handoffIds=run.consumedHandoffIds,
            )
            for run in plan.runs
        ],
        runMoves=[move.model_dump() for move in plan.runMoves],
        runContents=[
            {
                "runId": content.runId,
                "items": [
                    param_row({**props(item), "seq": n}) for n, item in enumerate(content.items)
                ],
                "checkpoints": [param_row(props(content.checkpoint))] if content.checkpoint else [],
            }
            for content in plan.runContents
        ],
        transfers=[
            param_row(
                _born("transfer", props(x), at),
                sourceRunId=x.sourcePoint.runId,
                sourceCheckpointId=x.sourcePoint.checkpointId,
                baseRunId=x.basePoint.runId if x.basePoint else None,
            )
            for x in plan.transfers
        ],
        threadChanges=_changes("thread", plan.threadChanges, at),
        providerThreadChanges=_changes("providerThread", plan.providerThreadChanges, at),
        runChanges=_changes("run", plan.runChanges, at),
        handoffChanges=_changes("handoff", plan.handoffChanges, at),
        transferChanges=_changes("transfer", plan.transferChanges, at),
        limits=[param_row(props(limit)) for limit in plan.limits],
        limitChanges=[
            param_row(encode(change.props), id=change.id) for change in plan.limitChanges
        ],
        eventGroups=[{"threadId": t, "events": events} for t, events in groups.items()],
        receipts=[param_row(props(receipt))] if receipt else [],
    )


def _born(kind: NodeKind, encoded: dict[str, Any], at: datetime | None) -> dict[str, Any]:
    """A new node's properties with the first entry of its history (graph/history.py)."""
    if at is None:
        return encoded
    return {**encoded, history.STORED: [history.entry(at, history.tracked(kind, encoded))]}


def _changes(
    kind: NodeKind, changes: Sequence[NodeChange], at: datetime | None
) -> list[dict[str, Any]]:
    """Property changes, each with the tracked values it sets and their history entry;
    `plan/apply` appends the entry only where a tracked value really changes."""
    rows = []
    for change in changes:
        encoded = encode(change.props)
        kept = history.tracked(kind, encoded) if at is not None else {}
        entry = history.entry(at, kept) if at is not None and kept else None
        rows.append(param_row(encoded, id=change.id, tracked=kept, entry=entry))
    return rows


async def find_receipt(tx: Tx, workspace: str, command_id: CommandId) -> Row | None:
    return await tx.row("command/find", workspace=workspace, commandId=command_id)


async def rewrite_receipt(tx: Tx, workspace: str, command_id: CommandId, result: str) -> None:
    await gates.pass_gate(tx, workspace)
    await tx.rows(
        "command/rewrite",
        workspace=workspace,
        commandId=command_id,
        result=result,
        gate=gates.slot(tx),
    )
