"""Typed reads and writes over named queries, inside one managed transaction.

Neo4j properties hold no maps, so nested values (item attributes, handoff
sections, diff stats, event payloads) are stored as JSON strings and decoded
here; ids of linked nodes are mirrored as properties beside the relationships
so one node read answers without another hop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, TypedDict, TypeVar, Unpack

from neo4j.time import DateTime
from pydantic import BaseModel

from graph import gates, history
from graph.history import NodeKind, Timeline, Versioned
from graph.models import (
    DIGEST_VERSION,
    CheckpointNode,
    EventNode,
    HandoffNode,
    Lineage,
    LineageEdge,
    LineageNode,
    NamedRun,
    ProviderLimitNode,
    ProviderThreadNode,
    RunDigest,
    RunItem,
    RunItemKind,
    RunNode,
    SearchText,
    ThreadItem,
    ThreadNode,
    TransferNode,
)
from graph.plan import CommandId, NodeChange, Receipt, WritePlan
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from graph.tx import Row, Tx

N = TypeVar("N")
M = TypeVar("M", bound=BaseModel)
JSON_FIELDS = {
    "digest": "digestJson",
    "attributes": "attributesJson",
    "sections": "sectionsJson",
    "diffSummary": "diffSummaryJson",
    "payload": "payloadJson",
    "sourcePoint": "sourcePointJson",
    "basePoint": "basePointJson",
    "contextUsage": "contextUsageJson",
    "budget": "budgetJson",
    "omitted": "omittedJson",
    "entries": "entriesJson",
    "quality": "qualityJson",
}


# ---- decoding ---------------------------------------------------------------


STORED_JSON = {stored: field for field, stored in JSON_FIELDS.items()}
# What `native` leaves as it is: the driver's plain values, most of a row.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """Neo4j temporal values to Python ones, JSON-string fields back to values.

    Every row a command reads passes here (a state read is some 90 values deep), so the
    common kinds are told apart by their exact type first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:
        decoded: dict[str, Any] = {}
        parsed: dict[str, Any] = {}
        for key, item in value.items():
            field = STORED_JSON.get(key)
            if field is not None:
                parsed[field] = json.loads(item) if item is not None else None
            else:
                decoded[key] = item if type(item) in _PLAIN else native(item)
        if parsed:
            decoded.update(parsed)
        return decoded
    if kind is list:
        return [item if type(item) in _PLAIN else native(item) for item in value]
    if isinstance(value, DateTime):
        return value.to_native()
    if isinstance(value, list):
        return [native(item) for item in value]
    if isinstance(value, dict):
        return native(dict(value))
    return value


def reader(model: type[M]) -> Callable[[Row], M]:
    """How a node of `model` reads back from its row: stored JSON decoded, then validated."""

    def read(row: Row) -> M:
        return model.model_validate(native(row))

    return read


thread_from = reader(ThreadNode)
run_from = reader(RunNode)
item_from = reader(RunItem)
checkpoint_from = reader(CheckpointNode)
provider_thread_from = reader(ProviderThreadNode)
handoff_from = reader(HandoffNode)
transfer_from = reader(TransferNode)
limit_from = reader(ProviderLimitNode)
event_from = reader(EventNode)


def state_from(row: Row) -> ThreadState:
    decoded = native(row)
    return ThreadState.model_validate(
        {
            **decoded,
            "deltaChains": dict(decoded["deltaChains"]),
            "latestCompleted": next(iter(decoded["latestCompleted"]), None),
            "latestStable": next(iter(decoded["latestStable"]), None),
        }
    )


@dataclass(frozen=True)
class DivergenceInputs:
    """What resolvers/lineage/divergence.py reads of a child thread (thread/divergence)."""

    child: ThreadState
    source: ThreadNode
    point: RunNode | None
    returns: list[TransferNode]


def divergence_from(row: Row) -> DivergenceInputs:
    return DivergenceInputs(
        child=state_from(row["child"]),
        source=thread_from(row["source"]),
        point=run_from(row["point"]) if row["point"] is not None else None,
        returns=[transfer_from(x) for x in row["returns"]],
    )


def versioned(row: Row, decode: Callable[[Row], N]) -> Versioned[N]:
    """A node read as `n {.*}` and its history."""
    return Versioned(decode(row), history.of_row(row))


def timeline_from(row: Row) -> Timeline:
    """A thread/timeline value: the thread's nodes with their histories."""
    return Timeline(
        thread=versioned(row["thread"], thread_from),
        runs=tuple(versioned(r, run_from) for r in row["runs"]),
        providerThreads=tuple(versioned(p, provider_thread_from) for p in row["providerThreads"]),
        handoffs=tuple(versioned(h, handoff_from) for h in row["handoffs"]),
        transfersIn=tuple(versioned(x, transfer_from) for x in row["transfersIn"]),
        transfersOut=tuple(versioned(x, transfer_from) for x in row["transfersOut"]),
        relatedIds=tuple(row["relatedIds"]),
    )


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
            encoded[JSON_FIELDS[key]] = json.dumps(_plain(value), sort_keys=True, default=_iso)
        else:
            encoded[key] = _plain(value)
    return encoded


def row(encoded: dict[str, Any], **more: Any) -> dict[str, Any]:
    """Properties as `plan/apply` takes them: aware datetimes apart, as ISO text under
    `times`, which the statement turns back into DATETIME values. The driver's own
    conversion costs about 40 µs of Python per datetime (docs/MODEL.md, "Writing times")."""
    times = {
        key: value.isoformat()
        for key, value in encoded.items()
        if isinstance(value, datetime) and value.tzinfo is not None
    }
    props = {key: value for key, value in encoded.items() if key not in times}
    return {"props": props, "times": times, **more}


def _iso(value: Any) -> str:
    """A time inside a JSON property, as ISO text (read back by the model that holds it)."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _plain(value: Any) -> Any:
    """Values the driver and json accept: enums by value, models as dicts. Every property
    a plan writes passes here: the common kinds are told apart by their exact type first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return [item if type(item) in _PLAIN else _plain(item) for item in value]
    if kind is dict:
        return {key: item if type(item) in _PLAIN else _plain(item) for key, item in value.items()}
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
    thread_id: str,
    run_id: str | None,
    checkpoint_id: str | None,
    item_index: int | None = None,
) -> NamedRun | None:
    """The run of the thread named by `run_id` or by its checkpoint's `checkpoint_id`, with
    its item count and its item at `item_index`."""
    row = await tx.row(
        "run/named",
        workspace=workspace,
        threadId=thread_id,
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
    lucene: str,
    kinds: list[RunItemKind] | None,
    first: int,
    candidates: int,
) -> list[SearchText]:
    """Up to `first` texts of the workspace `lucene` matches, best first."""
    rows = await tx.rows(
        "search/hits",
        workspace=workspace,
        lucene=lucene,
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
            row(
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
            row(
                _born("thread", props(t.thread), at),
                sourceRunOrdinal=t.sourceRunOrdinal,
                sourceItemIndex=t.sourceItemIndex,
            )
            for t in plan.threads
        ],
        providerThreads=[
            row(_born("providerThread", props(pt), at)) for pt in plan.providerThreads
        ],
        handoffs=[
            row(_born("handoff", props(h, exclude={"supersededById"}), at)) for h in plan.handoffs
        ],
        runs=[
            row(
                _born("run", props(run, exclude={"items", "checkpoint", "consumedHandoffIds"}), at),
                handoffIds=run.consumedHandoffIds,
            )
            for run in plan.runs
        ],
        runMoves=[move.model_dump() for move in plan.runMoves],
        runContents=[
            {
                "runId": content.runId,
                "items": [row({**props(item), "seq": n}) for n, item in enumerate(content.items)],
                "checkpoints": [row(props(content.checkpoint))] if content.checkpoint else [],
            }
            for content in plan.runContents
        ],
        transfers=[
            row(
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
        limits=[row(props(limit)) for limit in plan.limits],
        limitChanges=[row(encode(change.props), id=change.id) for change in plan.limitChanges],
        eventGroups=[{"threadId": t, "events": events} for t, events in groups.items()],
        receipts=[row(props(receipt))] if receipt else [],
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
        rows.append(row(encoded, id=change.id, tracked=kept, entry=entry))
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
