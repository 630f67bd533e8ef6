"""docs/MODEL.md as the bulk generator writes it: the one place that knows node properties.

Every function here turns a simulator record (`bench.records`) into the row one of the
bulk statements in `bench/cypher/bulk/` writes: `props` is exactly the property map the
service would have stored on the node (labels and relationships are in the statements,
which only `SET n = row.props` and draw the links named by the row's `*Id` fields).

The rules the service follows, and this module mirrors:
- every node has `workspace`; server-made ids are `<prefix>_<32 hex>`;
- a record's field `snake_case` is stored as the property `camelCase` (`_fields`), except
  where a function below says otherwise;
- nested values are JSON strings (`*Json`, keys sorted); Neo4j holds no maps;
- ids of linked nodes are mirrored as properties beside the relationships;
- a property whose value is null is not stored at all;
- status-bearing nodes keep `historyJson` (graph/history.py). The simulator knows a node's
  first state and its last, so that is the history written: an entry when it was made
  and one when it reached its present state (as-of answers on bulk data see only those).

When the write path gains a property (say per-provider-thread coverage ranges or per-run
digests), add it to the record, or to the matching function below when it is derived;
`bench.conformance` compares these shapes with what the running service writes and names
any property that is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from functools import cache
from typing import TYPE_CHECKING, Any

from bench.content import Item
from bench.records import (
    CheckpointRecord,
    EventRecord,
    Family,
    HandoffRecord,
    ProviderThreadRecord,
    ReceiptRecord,
    RunRecord,
    ThreadRecord,
    TransferRecord,
)
from graph import history
from graph.history import NodeKind
from graph.models import (
    DIGEST_VERSION,
    ENDED,
    CheckpointNode,
    HandoffNode,
    HandoffStatus,
    HandoffStrategy,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunDigest,
    RunNode,
    RunStatus,
    ThreadNode,
    TransferNode,
    TransferStatus,
)
from graph.ranges import Ranges
from resolvers.handoffs import tokenizer
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.written import entries_of

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Row = dict[str, Any]


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _present(values: dict[str, Any]) -> Row:
    """Null properties are not stored (the service drops them before writing)."""
    return {key: value for key, value in values.items() if value is not None}


def _fields(
    record: DataclassInstance, *, nested: tuple[str, ...] = (), skip: tuple[str, ...] = ()
) -> Row:
    """A record's fields as the service names its properties (and graph.models its
    fields): `snake_case` becomes `camelCase`, and a `nested` value is stored as a JSON
    string named `<name>Json`.
    `skip`: fields that are not properties of the node (links, the simulator's own)."""
    values: Row = {}
    for name, key, is_nested in _properties(type(record), nested, skip):
        value = getattr(record, name)
        values[key] = _json(value) if is_nested and value is not None else value
    return values


@cache
def _properties(
    kind: type[DataclassInstance], nested: tuple[str, ...], skip: tuple[str, ...]
) -> tuple[tuple[str, str, bool], ...]:
    """(field, property, nested) for each field of `kind` that is a property."""
    found = []
    for field_ in fields(kind):
        first, *rest = field_.name.split("_")
        key = first + "".join(word.capitalize() for word in rest)
        is_nested = field_.name in nested
        if field_.name not in skip:
            found.append((field_.name, key + "Json" if is_nested else key, is_nested))
    return tuple(found)


# ---- nodes --------------------------------------------------------------------------


def _history(kind: NodeKind, *versions: tuple[Any, Row]) -> list[str]:
    """Entries for the versions (time, values) that have a time and change a tracked value."""
    entries: list[str] = []
    now: Row = {}
    for at, values in versions:
        kept = history.tracked(kind, values)
        if at is None or (entries and all(now.get(k) == v for k, v in kept.items())):
            continue
        entries.append(history.entry(at, kept))
        now.update(kept)
    return entries


def _ranges(ordinals: Iterable[int]) -> list[int]:
    """Ordinals as the service keeps them: flattened merged ranges [from1, to1, ...]."""
    return Ranges.of(ordinals).flatten()


# The write position a thread or receipt carries (docs/MODEL.md, "Write gates"): written
# in bulk, before any command passed the workspace's gate, so no backup reads it again as
# written after its own start.
BULK_POSITION = {"gateSlot": 0, "gateSeq": 0}


def thread_props(thread: ThreadRecord, workspace: str) -> Row:
    rolled_back = _ranges(r.ordinal for r in thread.runs if r.status is RunStatus.ROLLED_BACK)
    return _present(
        {
            "id": thread.id,
            "workspace": workspace,
            "title": thread.title,
            "createdBy": thread.created_by,
            "createdAt": thread.created_at,
            "parentId": thread.parent_id,
            "relationshipToParent": thread.relationship,
            "rootId": thread.root_id,
            "cleanContextRequested": False,
            "lastOrdinal": thread.last_ordinal,
            "rolledBack": rolled_back,
            "eventSeq": len(thread.events),
            "version": thread.version,
            "historyJson": _history(
                "thread", (thread.created_at, {"cleanContextRequested": False})
            ),
            **BULK_POSITION,
        }
    )


def run_props(run: RunRecord, workspace: str, delta_chain: int = 0) -> Row:
    """A run; `delta_chain` as docs/MODEL.md defines it (see `delta_chains`)."""
    return _present(
        {
            **_fields(run, skip=("items", "checkpoint", "rolled_back_at")),
            "workspace": workspace,
            "deltaChain": delta_chain,
            "digestJson": _json(digest(run).model_dump(mode="json"))
            if run.completed_at is not None
            else None,
            "digestVersion": DIGEST_VERSION if run.completed_at is not None else None,
            "historyJson": _run_history(run),
        }
    )


def _run_history(run: RunRecord) -> list[str]:
    started = {"status": RunStatus.RUNNING, "providerThreadId": run.provider_thread_id}
    ended = {"status": digest(run).status.value} if run.completed_at else {}
    rolled = {"status": RunStatus.ROLLED_BACK, "rolledBackTo": run.rolled_back_to}
    return _history(
        "run", (run.started_at, started), (run.completed_at, ended), (run.rolled_back_at, rolled)
    )


def digest(run: RunRecord) -> RunDigest:
    """What the service keeps for summaries when a run ends (resolvers.handoffs.digests); a
    run rolled back since keeps the digest of how it ended."""
    return digest_of(ended_node(run))


def ended_node(run: RunRecord) -> RunNode:
    """The run as it ended (a run rolled back since, as it was before)."""
    ended = run.status
    if ended is RunStatus.ROLLED_BACK:
        ended = RunStatus.FAILED if run.failure_reason is not None else RunStatus.COMPLETED
    checkpoint = run.checkpoint
    node = None if checkpoint is None else CheckpointNode.model_validate(_fields(checkpoint))
    return RunNode.model_validate({**_fields(run), "status": ended, "checkpoint": node})


# ---- records as the product's models, for the pure rules the generator asks ----------


def run_node(run: RunRecord) -> RunNode:
    """The run as it is now, without its items (no rule the generator asks reads them)."""
    return RunNode.model_validate(_fields(run, skip=("items", "checkpoint")))


def thread_node(thread: ThreadRecord, workspace: str = "") -> ThreadNode:
    return ThreadNode.model_validate(thread_props(thread, workspace))


def provider_thread_node(
    pt: ProviderThreadRecord, native: Iterable[int] = ()
) -> ProviderThreadNode:
    """A provider thread; `native`: the ordinals of the history runs that ran on it."""
    return ProviderThreadNode.model_validate({**_fields(pt), "nativeRanges": _ranges(native)})


def handoff_node(handoff: HandoffRecord) -> HandoffNode:
    return HandoffNode.model_validate(
        {**_fields(handoff), "tokenEstimate": tokenizer.count(handoff.summary_text)}
    )


def transfer_node(transfer: TransferRecord) -> TransferNode:
    return TransferNode.model_validate(_fields(transfer))


def delta_chains(thread: ThreadRecord) -> dict[str, int]:
    """Run id -> its delta chain: one more than the previous live run on its provider
    thread when it consumed a delta handoff delivered there, else 0."""
    deltas = {
        (h.target_run_id, h.to_provider_thread_id)
        for h in thread.handoffs
        if h.strategy is HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN
    }
    chains: dict[str, int] = {}
    last: dict[str, int] = {}
    for run in sorted(thread.runs, key=lambda r: r.ordinal):
        if run.status is RunStatus.ROLLED_BACK:
            chains[run.id] = 0
            continue
        pt = run.provider_thread_id
        chain = last.get(pt, 0) + 1 if (run.id, pt) in deltas else 0
        chains[run.id] = last[pt] = chain
    return chains


def item_props(item: Item, seq: int, workspace: str) -> Row:
    attributes = item.get("attributes")
    return _present(
        {
            "workspace": workspace,
            "seq": seq,
            "kind": item["kind"],
            "text": item["text"],
            "key": item.get("key"),
            "path": item.get("path"),
            "attributesJson": None if attributes is None else _json(attributes),
        }
    )


def checkpoint_props(checkpoint: CheckpointRecord, workspace: str) -> Row:
    return _present({**_fields(checkpoint, nested=("diff_summary",)), "workspace": workspace})


def provider_thread_props(
    pt: ProviderThreadRecord, workspace: str, native: Iterable[int] = ()
) -> Row:
    """A provider thread; `native`: the ordinals of the history runs that ran on it."""
    values = _fields(pt)
    return _present(
        {
            **values,
            "workspace": workspace,
            "nativeRanges": _ranges(native),
            "historyJson": _history(
                "providerThread",
                (pt.created_at, {"status": ProviderThreadStatus.PENDING, "model": pt.model}),
                (pt.last_used_at, values),  # `_history` keeps the tracked ones
            ),
        }
    )


def handoff_props(handoff: HandoffRecord, workspace: str) -> Row:
    return _present(
        {
            **_fields(handoff, nested=("sections", "budget", "quality"), skip=("covered_run_ids",)),
            "workspace": workspace,
            # The generated text stands in for a summary's size: it lists no omitted items,
            # and its entries are its lines, as another writer's text's are.
            "omittedJson": _json([]),
            "entriesJson": _json(
                [e.model_dump(mode="json") for e in entries_of(handoff.summary_text, [])]
            ),
            "qualityScore": handoff.quality["score"] if handoff.quality is not None else None,
            "qualityFidelity": handoff.quality.get("fidelity") if handoff.quality else None,
            "tokenEstimate": tokenizer.count(handoff.summary_text),
            "generationMs": local_generation_ms(handoff.summary_text),
            "historyJson": _history(
                "handoff",
                (handoff.created_at, {"status": HandoffStatus.READY}),
                (handoff.updated_at, {"status": handoff.status}),
            ),
        }
    )


def local_generation_ms(text: str) -> float:
    """What the service records for a local summary, without timing anything (generated
    data stays the same for the same seed): about a microsecond per character of text."""
    return round(len(text) / 1000, 3)


def transfer_props(transfer: TransferRecord, workspace: str) -> Row:
    values = _fields(transfer, nested=("source_point", "base_point", "payload"))
    return _present(
        {
            **values,
            "workspace": workspace,
            "historyJson": _history(
                "transfer",
                (transfer.created_at, {"status": TransferStatus.PENDING}),
                (transfer.consumed_at or transfer.created_at, values),
            ),
        }
    )


def event_props(event: EventRecord, seq: int, thread_id: str, workspace: str) -> Row:
    return _present(
        {
            **_fields(event, nested=("payload",)),
            "workspace": workspace,
            "threadId": thread_id,
            "seq": seq,
        }
    )


def receipt_props(receipt: ReceiptRecord, workspace: str) -> Row:
    return {
        **BULK_POSITION,
        "workspace": workspace,
        "commandId": receipt.command_id,
        "mutation": receipt.mutation,
        "argsHash": receipt.args_hash,
        "result": receipt.result,
        "createdAt": receipt.at,
    }


# ---- rows of the bulk statements ------------------------------------------------------


@dataclass
class Rows:
    """Rows per bulk statement (`bench/cypher/bulk/<name>.cypher`), in write order.

    Each statement only links to nodes written by an earlier one, so a batch of whole
    families can be written statement by statement, in this order.
    """

    threads: list[Row] = field(default_factory=list)
    lineage: list[Row] = field(default_factory=list)
    provider_threads: list[Row] = field(default_factory=list)
    provider_thread_forks: list[Row] = field(default_factory=list)
    runs: list[Row] = field(default_factory=list)
    transfers: list[Row] = field(default_factory=list)
    handoffs: list[Row] = field(default_factory=list)
    events: list[Row] = field(default_factory=list)
    receipts: list[Row] = field(default_factory=list)

    def statements(self) -> Iterator[tuple[str, list[Row]]]:
        for name in WRITE_ORDER:
            yield name, getattr(self, name)

    def clear(self) -> None:
        for name in WRITE_ORDER:
            getattr(self, name).clear()


WRITE_ORDER = (
    "threads",
    "lineage",
    "provider_threads",
    "provider_thread_forks",
    "runs",
    "transfers",
    "handoffs",
    "events",
    "receipts",
)


def weight(row: Row) -> int:
    """How many nodes and relationships a row writes, roughly: what a batch is sized by."""
    return (
        1
        + len(row.get("items", ()))
        + len(row.get("events", ()))
        + len(row.get("coveredRunIds", ()))
    )


def add_family(rows: Rows, family: Family, workspace: str, receipts: bool = True) -> None:
    """Append the rows that write `family` into `workspace`."""
    for thread in family.threads:
        rows.threads.append({"props": thread_props(thread, workspace)})
        if thread.parent_id is not None:
            rows.lineage.append(
                {
                    "parentId": thread.parent_id,
                    "childId": thread.id,
                    "relationship": thread.relationship,
                    "sourceRunOrdinal": thread.source_run_ordinal,
                }
            )
        chains = delta_chains(thread)
        for pt in thread.provider_threads:
            native = [
                r.ordinal
                for r in thread.runs
                if r.provider_thread_id == pt.id and r.status in ENDED
            ]
            rows.provider_threads.append({"props": provider_thread_props(pt, workspace, native)})
            if pt.forked_from_id is not None:
                rows.provider_thread_forks.append({"id": pt.id, "forkedFromId": pt.forked_from_id})
        for run in thread.runs:
            rows.runs.append(
                {
                    "props": run_props(run, workspace, chains[run.id]),
                    "items": [
                        item_props(item, seq, workspace) for seq, item in enumerate(run.items)
                    ],
                    "checkpoints": [checkpoint_props(run.checkpoint, workspace)]
                    if run.checkpoint
                    else [],
                }
            )
        for handoff in thread.handoffs:
            rows.handoffs.append(
                {
                    "props": handoff_props(handoff, workspace),
                    "coveredRunIds": handoff.covered_run_ids,
                }
            )
        rows.events.append(
            {
                "threadId": thread.id,
                "events": [
                    event_props(event, seq, thread.id, workspace)
                    for seq, event in enumerate(thread.events, start=1)
                ],
            }
        )
    for transfer in family.transfers:
        base = transfer.base_point or {}
        rows.transfers.append(
            {
                "props": transfer_props(transfer, workspace),
                "sourceRunId": transfer.source_point.get("runId"),
                "sourceCheckpointId": transfer.source_point.get("checkpointId"),
                "baseRunId": base.get("runId"),
            }
        )
    if receipts:
        rows.receipts.extend(receipt_props(receipt, workspace) for receipt in family.receipts)


# ---- what the service should answer about generated data -------------------------------


def expected_coverage(thread: ThreadRecord) -> dict[str, dict[str, list[int]]]:
    """Per provider thread: native, covered and missing run ordinals (SEMANTICS "Vocabulary").

    Computed from the records alone, independently of the service, so the smoke test can
    check that the service reads the generated graph as the generator meant it.
    """
    history = sorted(r.ordinal for r in thread.runs if r.status in ENDED)
    by_pt: dict[str, dict[str, list[int]]] = {}
    for pt in thread.provider_threads:
        native = sorted(
            r.ordinal for r in thread.runs if r.provider_thread_id == pt.id and r.status in ENDED
        )
        ranges = [
            (h.covered_from, h.covered_to)
            for h in thread.handoffs
            if h.to_provider_thread_id == pt.id
            and h.status is HandoffStatus.READY
            and h.source_thread_id == thread.id
        ]
        covered = set(native) | {o for o in history if any(lo <= o <= hi for lo, hi in ranges)}
        by_pt[pt.id] = {
            "nativeRunOrdinals": native,
            "coveredRunOrdinals": sorted(covered),
            "missingRunOrdinals": [o for o in history if o not in covered],
        }
    return by_pt


def counts(families: Iterable[Family]) -> dict[str, int]:
    """Threads, runs and nodes the families write (for progress and estimates)."""
    totals = {"threads": 0, "runs": 0, "nodes": 0}
    for family in families:
        for thread in family.threads:
            totals["threads"] += 1
            totals["runs"] += len(thread.runs)
            totals["nodes"] += (
                1
                + len(thread.runs)
                + sum(len(r.items) + (1 if r.checkpoint else 0) for r in thread.runs)
                + len(thread.provider_threads)
                + len(thread.handoffs)
                + len(thread.events)
            )
        totals["nodes"] += len(family.transfers) + len(family.receipts)
    return totals
