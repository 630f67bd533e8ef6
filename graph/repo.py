"""Typed reads and writes over named queries, inside one managed transaction.

Neo4j properties hold no maps, so nested values (item attributes, handoff
sections, diff stats, event payloads) are stored as JSON strings and decoded
here; ids of linked nodes are mirrored as properties beside the relationships
so one node read answers without another hop.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import Enum
from typing import Any

from neo4j.time import DateTime
from pydantic import BaseModel

from graph.models import (
    CheckpointNode,
    EventNode,
    HandoffNode,
    Lineage,
    LineageEdge,
    LineageNode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    ThreadNode,
    ThreadSnapshot,
    TransferNode,
)
from graph.queries import MAX_HOPS
from graph.store import Row, Tx

JSON_FIELDS = {
    "attributes": "attributesJson",
    "sections": "sectionsJson",
    "diffSummary": "diffSummaryJson",
    "payload": "payloadJson",
    "sourcePoint": "sourcePointJson",
    "basePoint": "basePointJson",
}


# ---- decoding ---------------------------------------------------------------


def native(value: Any) -> Any:
    """Neo4j temporal values to Python ones, JSON-string fields back to values."""
    if isinstance(value, DateTime):
        return value.to_native()
    if isinstance(value, list):
        return [native(item) for item in value]
    if isinstance(value, dict):
        decoded = {key: native(item) for key, item in value.items()}
        for field, stored in JSON_FIELDS.items():
            if stored in decoded:
                raw = decoded.pop(stored)
                decoded[field] = json.loads(raw) if raw is not None else None
        return decoded
    return value


def thread_from(row: Row) -> ThreadNode:
    return ThreadNode.model_validate(native(row))


def run_from(row: Row) -> RunNode:
    return RunNode.model_validate(native(row))


def item_from(row: Row) -> RunItem:
    return RunItem.model_validate(native(row))


def checkpoint_from(row: Row) -> CheckpointNode:
    return CheckpointNode.model_validate(native(row))


def provider_thread_from(row: Row) -> ProviderThreadNode:
    return ProviderThreadNode.model_validate(native(row))


def handoff_from(row: Row) -> HandoffNode:
    return HandoffNode.model_validate(native(row))


def transfer_from(row: Row) -> TransferNode:
    return TransferNode.model_validate(native(row))


def event_from(row: Row) -> EventNode:
    return EventNode.model_validate(native(row))


# ---- encoding ---------------------------------------------------------------


def props(model: Any, *, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """A model as Neo4j properties: nested values JSON-encoded, nulls dropped."""
    data = model.model_dump(mode="python", exclude=set(exclude))
    return encode(data)


def encode(data: dict[str, Any]) -> dict[str, Any]:
    encoded: dict[str, Any] = {}
    for key, value in data.items():
        if value is None:
            continue
        if key in JSON_FIELDS:
            encoded[JSON_FIELDS[key]] = json.dumps(_plain(value), sort_keys=True)
        else:
            encoded[key] = _plain(value)
    return encoded


def _plain(value: Any) -> Any:
    """Values the driver and json accept: enums by value, models as dicts."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="python"))
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


# ---- reads ------------------------------------------------------------------


async def lock_thread(tx: Tx, workspace: str, thread_id: str) -> bool:
    return await tx.row("thread/lock", workspace=workspace, threadId=thread_id) is not None


async def snapshot(
    tx: Tx, workspace: str, thread_id: str, *, with_content: bool = True
) -> ThreadSnapshot | None:
    found = await snapshots(tx, workspace, [thread_id], with_content=with_content)
    return found.get(thread_id)


async def snapshots(
    tx: Tx, workspace: str, thread_ids: Sequence[str], *, with_content: bool = True
) -> dict[str, ThreadSnapshot]:
    rows = await tx.rows(
        "thread/snapshot",
        workspace=workspace,
        threadIds=list(thread_ids),
        withContent=with_content,
    )
    found = (ThreadSnapshot.model_validate(native(row)) for row in rows)
    return {snap.thread.id: snap for snap in found}


async def thread_of(tx: Tx, query: str, workspace: str, **ident: str) -> str | None:
    """The id of the thread owning a run, provider thread or handoff."""
    row = await tx.row(query, workspace=workspace, **ident)
    return None if row is None else str(row["threadId"])


async def grouped(
    tx: Tx, query: str, workspace: str, keys: Sequence[str], **params: Any
) -> dict[str, list[Row]]:
    """Rows of a `key, value` query, grouped by key (the DataLoader shape)."""
    groups: dict[str, list[Row]] = {key: [] for key in keys}
    for row in await tx.rows(query, workspace=workspace, ids=list(keys), **params):
        groups.setdefault(row["key"], []).append(row["value"])
    return groups


async def lineage(
    tx: Tx, workspace: str, thread_id: str, direction: str, depth: int
) -> Lineage | None:
    rows = await tx.bounded_rows(
        "thread/lineage", depth, workspace=workspace, threadId=thread_id, direction=direction
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


async def related_snapshots(
    tx: Tx, workspace: str, snapshot: ThreadSnapshot
) -> dict[str, ThreadSnapshot]:
    """Snapshots of the thread's ancestors and of the sources of its incoming transfers."""
    ids = {x.sourceThreadId for x in snapshot.transfers}
    if snapshot.thread.parentId:
        family = await lineage(tx, workspace, snapshot.thread.id, "ANCESTORS", MAX_HOPS)
        ids |= {node.thread.id for node in family.nodes} if family else set()
    ids.discard(snapshot.thread.id)
    return await snapshots(tx, workspace, sorted(ids)) if ids else {}


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
    tx: Tx, workspace: str, after: tuple[datetime, str] | None, first: int
) -> list[ThreadNode]:
    rows = await tx.rows(
        "thread/page",
        workspace=workspace,
        afterCreatedAt=after[0] if after else None,
        afterId=after[1] if after else None,
        first=first,
    )
    return [thread_from(row["value"]) for row in rows]


# ---- writes -----------------------------------------------------------------


async def create_thread(tx: Tx, thread: ThreadNode, source_run_ordinal: int | None = None) -> None:
    """A thread; with a parent, also its FORK or SUBAGENT lineage edge."""
    await tx.rows("thread/create", thread=props(thread), sourceRunOrdinal=source_run_ordinal)


async def create_transfers(tx: Tx, workspace: str, transfers: Sequence[TransferNode]) -> None:
    if transfers:
        rows = [
            {
                "props": props(x),
                "sourceRunId": x.sourcePoint.runId,
                "sourceCheckpointId": x.sourcePoint.checkpointId,
                "baseRunId": x.basePoint.runId if x.basePoint else None,
                "spawnedByRunId": x.spawnedByRunId,
            }
            for x in transfers
        ]
        await tx.rows("transfer/create", workspace=workspace, transfers=rows)


async def update_thread(tx: Tx, workspace: str, thread_id: str, changes: dict[str, Any]) -> None:
    await tx.rows("thread/update", workspace=workspace, threadId=thread_id, props=encode(changes))


async def create_provider_threads(
    tx: Tx, workspace: str, threads: Sequence[ProviderThreadNode]
) -> None:
    if threads:
        await tx.rows(
            "provider_thread/create",
            workspace=workspace,
            providerThreads=[props(pt) for pt in threads],
        )


async def create_handoffs(tx: Tx, workspace: str, handoffs: Sequence[HandoffNode]) -> None:
    if handoffs:
        await tx.rows(
            "handoff/create",
            workspace=workspace,
            handoffs=[props(h, exclude={"supersededById"}) for h in handoffs],
        )


async def create_run(tx: Tx, workspace: str, run: RunNode) -> None:
    await tx.rows(
        "run/create",
        workspace=workspace,
        run=props(run, exclude={"items", "checkpoint", "consumedHandoffIds"}),
        handoffIds=run.consumedHandoffIds,
    )


async def update(tx: Tx, query: str, workspace: str, changes: dict[str, dict[str, Any]]) -> None:
    """Property changes by node id through one of the `*/update` queries."""
    if changes:
        rows = [{"id": ident, "props": encode(values)} for ident, values in changes.items()]
        await tx.rows(query, workspace=workspace, changes=rows)


async def complete_run(
    tx: Tx,
    workspace: str,
    run_id: str,
    items: Sequence[RunItem],
    checkpoint: CheckpointNode | None,
) -> None:
    await tx.rows(
        "run/complete",
        workspace=workspace,
        runId=run_id,
        items=[{**props(item), "seq": index} for index, item in enumerate(items)],
        checkpoints=[props(checkpoint)] if checkpoint else [],
    )


async def move_run(
    tx: Tx,
    workspace: str,
    run_id: str,
    provider_thread_id: str,
    status: str,
    at: datetime,
    handoff_ids: Sequence[str],
) -> None:
    await tx.rows(
        "run/move",
        workspace=workspace,
        runId=run_id,
        providerThreadId=provider_thread_id,
        status=status,
        at=at,
        handoffIds=list(handoff_ids),
    )


async def append_events(
    tx: Tx, workspace: str, thread_id: str, events: Sequence[dict[str, Any]]
) -> None:
    if events:
        await tx.rows(
            "event/append",
            workspace=workspace,
            threadId=thread_id,
            events=[encode(event) for event in events],
        )


async def find_receipt(tx: Tx, workspace: str, command_id: str) -> Row | None:
    return await tx.row("command/find", workspace=workspace, commandId=command_id)


async def record_receipt(
    tx: Tx,
    workspace: str,
    command_id: str,
    mutation: str,
    args_hash: str,
    result: str,
    at: datetime,
) -> None:
    await tx.rows(
        "command/record",
        workspace=workspace,
        commandId=command_id,
        mutation=mutation,
        argsHash=args_hash,
        result=result,
        at=at,
    )
