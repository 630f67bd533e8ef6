"""A thread family as plain data for `threadline export`: lineage and coverage.

Read in one read transaction through `cypher/export/family.cypher`; the formats that
write it are in `api/cli/export_formats.py`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from graph import queries
from graph.console.readonly import ReadOnlyGraph


@dataclass(frozen=True)
class RunView:
    ordinal: int
    provider: str
    status: str


@dataclass(frozen=True)
class ThreadView:
    id: str
    title: str | None
    relationship: str | None
    parent: str | None
    depth: int
    runs: list[RunView]


@dataclass(frozen=True)
class LineageEdge:
    """Parent → child, with the transfer that opened the child."""

    parent: str
    child: str
    relationship: str
    sourceRunOrdinal: int | None
    transfer: str | None
    transferStatus: str | None
    resolution: str | None
    # A fork at an item: the last item of the source run it inherits (-1: the input only).
    sourceItemIndex: int | None = None


@dataclass(frozen=True)
class TransferEdge:
    """A merge-back or subagent result: child → the thread it went back to."""

    source: str
    target: str
    type: str
    transfer: str
    status: str
    resolution: str | None


@dataclass(frozen=True)
class ProviderThreadView:
    id: str
    thread: str
    provider: str
    status: str
    nativeRef: str | None
    forkedFrom: str | None
    nativeRunOrdinals: list[int]
    coveredRunOrdinals: list[int]


@dataclass(frozen=True)
class FamilyExport:
    workspace: str
    thread: str
    root: str
    threads: list[ThreadView]
    edges: list[LineageEdge]
    providerThreads: list[ProviderThreadView]
    # Transfers back up the tree whose source is in the family (the page draws the same).
    transferEdges: list[TransferEdge] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_family(graph: ReadOnlyGraph, thread_id: str, workspace: str) -> FamilyExport | None:
    """The family of `thread_id` in `workspace`, or None when there is no such thread.
    ConsoleError while a restore holds the workspace closed, at the read's start or end
    (docs/MODEL.md, "Restores"): nothing of a restore that has not ended is written out."""
    graph.refuse_closed(workspace)
    table = graph.run(
        queries.load("export/family"), {"threadId": thread_id, "workspace": workspace}
    )
    records = table.records()
    graph.refuse_closed(workspace)
    if not records:
        return None
    threads = [_thread(record) for record in records]
    members = {thread.id for thread in threads}
    return FamilyExport(
        workspace=workspace,
        thread=thread_id,
        root=threads[0].id,
        threads=threads,
        edges=[_edge(e, r["thread"]["id"]) for r in records for e in r["parentEdges"]],
        providerThreads=[
            _provider_thread(pt, r["thread"]["id"]) for r in records for pt in r["providerThreads"]
        ],
        transferEdges=[
            _transfer_edge(x, r["thread"]["id"])
            for r in records
            for x in r["returns"]
            if x["source"] in members
        ],
    )


def _thread(record: dict[str, Any]) -> ThreadView:
    thread = record["thread"]
    return ThreadView(
        id=thread["id"],
        title=thread.get("title"),
        relationship=thread.get("relationshipToParent"),
        parent=thread.get("parentId"),
        depth=record["depth"],
        runs=[RunView(r["ordinal"], r["provider"], r["status"]) for r in record["runs"]],
    )


def _edge(edge: dict[str, Any], child: str) -> LineageEdge:
    point = json.loads(edge["sourcePoint"]) if edge.get("sourcePoint") else {}
    return LineageEdge(
        parent=edge["parent"],
        child=child,
        relationship=edge["relationship"],
        sourceRunOrdinal=edge.get("sourceRunOrdinal"),
        transfer=edge.get("transfer"),
        transferStatus=edge.get("transferStatus"),
        resolution=edge.get("resolution"),
        sourceItemIndex=point.get("itemIndex"),
    )


def _transfer_edge(transfer: dict[str, Any], target: str) -> TransferEdge:
    return TransferEdge(
        source=transfer["source"],
        target=target,
        type=transfer["type"],
        transfer=transfer["transfer"],
        status=transfer["status"],
        resolution=transfer.get("resolution"),
    )


def _provider_thread(pt: dict[str, Any], thread: str) -> ProviderThreadView:
    # Coverage = native coverage plus handoff coverage (SEMANTICS "Vocabulary").
    native = list(pt["native"])
    return ProviderThreadView(
        id=pt["id"],
        thread=thread,
        provider=pt["provider"],
        status=pt["status"],
        nativeRef=pt.get("nativeRef"),
        forkedFrom=pt.get("forkedFromId"),
        nativeRunOrdinals=native,
        coveredRunOrdinals=sorted({*native, *pt["handedOver"]}),
    )
