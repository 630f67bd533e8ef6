"""docs/MODEL.md as the bulk generator writes it: the one place that knows node properties.

Every function here turns a simulator record (`bench.records`) into the row one of the
bulk statements in `bench/cypher/bulk/` writes: `props` is exactly the property map the
service would have stored on the node (labels and relationships are in the statements,
which only `SET n = row.props` and draw the links named by the row's `*Id` fields).

The rules the service follows, and this module mirrors:
- every node has `workspace`; server-made ids are `<prefix>_<32 hex>`;
- nested values are JSON strings (`*Json`, keys sorted); Neo4j holds no maps;
- ids of linked nodes are mirrored as properties beside the relationships;
- a property whose value is null is not stored at all;
- status-bearing nodes keep `historyJson` (graph/history.py). The simulator knows a node's
  first state and its last, so that is the history written: an entry when it was made
  and one when it reached its present state (as-of answers on bulk data see only those).

When the write path gains a property (say per-provider-thread coverage ranges or per-run
digests), add it to the matching function below; `bench.conformance` compares these
shapes with what the running service writes and names any property that is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

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
    CheckpointNode,
    FileDiffStat,
    RunDigest,
    RunItem,
    RunNode,
    RunStatus,
)
from graph.ranges import Ranges
from resolvers.handoffs.summarizer import digest_of, token_estimate

Row = dict[str, Any]


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _present(values: dict[str, Any]) -> Row:
    """Null properties are not stored (the service drops them before writing)."""
    return {key: value for key, value in values.items() if value is not None}


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


HISTORY = ("COMPLETED", "FAILED", "INTERRUPTED")


def _ranges(ordinals: Iterable[int]) -> list[int]:
    """Ordinals as the service keeps them: flattened merged ranges [from1, to1, ...]."""
    return Ranges.of(ordinals).flatten()


def thread_props(thread: ThreadRecord, workspace: str) -> Row:
    rolled_back = _ranges(r.ordinal for r in thread.runs if r.status == "ROLLED_BACK")
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
        }
    )


def run_props(run: RunRecord, workspace: str, delta_chain: int = 0) -> Row:
    """A run; `delta_chain` as docs/MODEL.md defines it (see `delta_chains`)."""
    return _present(
        {
            "id": run.id,
            "workspace": workspace,
            "threadId": run.thread_id,
            "ordinal": run.ordinal,
            "provider": run.provider,
            "model": run.model,
            "status": run.status,
            "input": run.input,
            "providerThreadId": run.provider_thread_id,
            "nativeTurnRef": run.native_turn_ref,
            "failureReason": run.failure_reason,
            "startedAt": run.started_at,
            "completedAt": run.completed_at,
            "deltaChain": delta_chain,
            "startStrategy": run.start_strategy,
            "providerAction": run.provider_action,
            "digestJson": _json(digest(run).model_dump(mode="json"))
            if run.completed_at is not None
            else None,
            "digestVersion": DIGEST_VERSION if run.completed_at is not None else None,
            "rolledBackTo": run.rolled_back_to,
            "historyJson": _run_history(run),
        }
    )


def _run_history(run: RunRecord) -> list[str]:
    started = {"status": "RUNNING", "providerThreadId": run.provider_thread_id}
    ended = {"status": digest(run).status.value} if run.completed_at else {}
    rolled = {"status": "ROLLED_BACK", "rolledBackTo": run.rolled_back_to}
    return _history(
        "run", (run.started_at, started), (run.completed_at, ended), (run.rolled_back_at, rolled)
    )


def digest(run: RunRecord) -> RunDigest:
    """What the service keeps for summaries when a run ends (resolvers.handoffs.summarizer); a run
    rolled back since keeps the digest of how it ended."""
    checkpoint = run.checkpoint
    ended = run.status
    if ended == "ROLLED_BACK":
        ended = "FAILED" if run.failure_reason is not None else "COMPLETED"
    return digest_of(
        RunNode(
            id=run.id,
            threadId=run.thread_id,
            ordinal=run.ordinal,
            provider=run.provider,
            status=RunStatus(ended),
            input=run.input,
            providerThreadId=run.provider_thread_id,
            failureReason=run.failure_reason,
            startedAt=run.started_at,
            items=[RunItem.model_validate(item) for item in run.items],
            checkpoint=CheckpointNode(
                id=checkpoint.id,
                runId=run.id,
                ref=checkpoint.ref,
                diffSummary=[FileDiffStat.model_validate(s) for s in checkpoint.diff_summary],
                createdAt=checkpoint.created_at,
            )
            if checkpoint
            else None,
        )
    )


def delta_chains(thread: ThreadRecord) -> dict[str, int]:
    """Run id -> its delta chain: one more than the previous live run on its provider
    thread when it consumed a delta handoff delivered there, else 0."""
    deltas = {
        (h.target_run_id, h.to_provider_thread_id)
        for h in thread.handoffs
        if h.strategy == "DELTA_SINCE_TARGET_LAST_SEEN"
    }
    chains: dict[str, int] = {}
    last: dict[str, int] = {}
    for run in sorted(thread.runs, key=lambda r: r.ordinal):
        if run.status == "ROLLED_BACK":
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
    return _present(
        {
            "id": checkpoint.id,
            "workspace": workspace,
            "runId": checkpoint.run_id,
            "ref": checkpoint.ref,
            "diffSummaryJson": _json(checkpoint.diff_summary),
            "createdAt": checkpoint.created_at,
        }
    )


def provider_thread_props(
    pt: ProviderThreadRecord, workspace: str, native: Iterable[int] = ()
) -> Row:
    """A provider thread; `native`: the ordinals of the history runs that ran on it."""
    return _present(
        {
            "id": pt.id,
            "workspace": workspace,
            "threadId": pt.thread_id,
            "provider": pt.provider,
            "nativeRef": pt.native_ref,
            "status": pt.status,
            "model": pt.model,
            "historyMode": pt.history_mode,
            "createdAt": pt.created_at,
            "lastUsedAt": pt.last_used_at,
            "forkedFromId": pt.forked_from_id,
            "staleSignals": pt.stale_signals,
            "nativeRanges": _ranges(native),
            "heldTokens": pt.held_tokens,
            "historyJson": _history(
                "providerThread",
                (pt.created_at, {"status": "PENDING", "model": pt.model}),
                (pt.last_used_at, _last(pt)),
            ),
        }
    )


def _last(pt: ProviderThreadRecord) -> Row:
    return {
        "status": pt.status,
        "nativeRef": pt.native_ref,
        "historyMode": pt.history_mode,
        "model": pt.model,
        "staleSignals": pt.stale_signals,
    }


def handoff_props(handoff: HandoffRecord, workspace: str) -> Row:
    return _present(
        {
            "id": handoff.id,
            "workspace": workspace,
            "threadId": handoff.thread_id,
            "sourceThreadId": handoff.source_thread_id,
            "transferId": handoff.transfer_id,
            "targetRunId": handoff.target_run_id,
            "toProviderThreadId": handoff.to_provider_thread_id,
            "fromProviderThreadIds": handoff.from_provider_thread_ids,
            "coveredFrom": handoff.covered_from,
            "coveredTo": handoff.covered_to,
            "strategy": handoff.strategy,
            "kind": handoff.kind,
            "summaryText": handoff.summary_text,
            "sectionsJson": _json(handoff.sections),
            "budgetJson": _json(handoff.budget) if handoff.budget is not None else None,
            # The generated text stands in for a summary's size: it lists no omitted items.
            "omittedJson": _json([]),
            "qualityJson": _json(handoff.quality) if handoff.quality is not None else None,
            "qualityScore": handoff.quality["score"] if handoff.quality is not None else None,
            "tokenEstimate": token_estimate(handoff.summary_text),
            "status": handoff.status,
            "createdAt": handoff.created_at,
            "updatedAt": handoff.updated_at,
            "summarySource": handoff.summary_source,
            "generationMs": local_generation_ms(handoff.summary_text),
            "historyJson": _history(
                "handoff",
                (handoff.created_at, {"status": "READY"}),
                (handoff.updated_at, {"status": handoff.status}),
            ),
        }
    )


def local_generation_ms(text: str) -> float:
    """What the service records for a local summary, without timing anything (generated
    data stays the same for the same seed): about a microsecond per character of text."""
    return round(len(text) / 1000, 3)


def transfer_props(transfer: TransferRecord, workspace: str) -> Row:
    return _present(
        {
            "id": transfer.id,
            "workspace": workspace,
            "type": transfer.type,
            "status": transfer.status,
            "sourceThreadId": transfer.source_thread_id,
            "targetThreadId": transfer.target_thread_id,
            "sourcePointJson": _json(transfer.source_point),
            "basePointJson": None if transfer.base_point is None else _json(transfer.base_point),
            "sourceProvider": transfer.source_provider,
            "targetProvider": transfer.target_provider,
            "resolutionStrategy": transfer.resolution_strategy,
            "resolvedProviderThreadId": transfer.resolved_provider_thread_id,
            "handoffId": transfer.handoff_id,
            "createdBy": transfer.created_by,
            "createdAt": transfer.created_at,
            "consumedAt": transfer.consumed_at,
            "consumedByRunId": transfer.consumed_by_run_id,
            "payloadJson": None if transfer.payload is None else _json(transfer.payload),
            "spawnedByRunId": transfer.spawned_by_run_id,
            "historyJson": _history(
                "transfer",
                (transfer.created_at, {"status": "PENDING"}),
                (transfer.consumed_at or transfer.created_at, _settled(transfer)),
            ),
        }
    )


def _settled(transfer: TransferRecord) -> Row:
    return {
        "status": transfer.status,
        "resolutionStrategy": transfer.resolution_strategy,
        "resolvedProviderThreadId": transfer.resolved_provider_thread_id,
        "handoffId": transfer.handoff_id,
        "consumedAt": transfer.consumed_at,
        "consumedByRunId": transfer.consumed_by_run_id,
    }


def event_props(event: EventRecord, seq: int, thread_id: str, workspace: str) -> Row:
    return _present(
        {
            "id": event.id,
            "workspace": workspace,
            "threadId": thread_id,
            "seq": seq,
            "type": event.type,
            "at": event.at,
            "runId": event.run_id,
            "payloadJson": _json(event.payload),
        }
    )


def receipt_props(receipt: ReceiptRecord, workspace: str) -> Row:
    return {
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
                if r.provider_thread_id == pt.id and r.status in HISTORY
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
    history = sorted(r.ordinal for r in thread.runs if r.status in ("COMPLETED", "FAILED"))
    by_pt: dict[str, dict[str, list[int]]] = {}
    for pt in thread.provider_threads:
        native = sorted(
            r.ordinal
            for r in thread.runs
            if r.provider_thread_id == pt.id and r.status in ("COMPLETED", "FAILED")
        )
        ranges = [
            (h.covered_from, h.covered_to)
            for h in thread.handoffs
            if h.to_provider_thread_id == pt.id
            and h.status == "READY"
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
