"""A family export as JSON, GraphML, Mermaid or Graphviz DOT.

The graph formats share one shape: a node per thread and per provider thread; edges
parent → child thread (FORK or SUBAGENT, with the source run and the transfer's status),
child → the thread a merge-back or subagent result went to (MERGE_BACK, SUBAGENT_RESULT,
one per transfer, with its status), thread → provider thread (HAS_PROVIDER_THREAD) and
provider thread → the one it was natively forked from (FORKED_FROM). The thread-to-thread
edges are the ones the lineage page draws.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from api.cli.export import (
    FamilyExport,
    LineageEdge,
    ProviderThreadView,
    ThreadView,
    TransferEdge,
)

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
Attrs = dict[str, str | int]


class ExportFormat(StrEnum):
    json = "json"
    graphml = "graphml"
    mermaid = "mermaid"
    dot = "dot"


def render(family: FamilyExport, fmt: ExportFormat) -> str:
    writers = {
        ExportFormat.json: to_json,
        ExportFormat.graphml: to_graphml,
        ExportFormat.mermaid: to_mermaid,
        ExportFormat.dot: to_dot,
    }
    return writers[fmt](family)


def to_json(family: FamilyExport) -> str:
    return json.dumps(family.as_dict(), indent=2, ensure_ascii=False)


# ---- one node-and-edge view for the graph formats ---------------------------------


@dataclass(frozen=True)
class GNode:
    id: str
    kind: str  # thread | providerThread
    label: str
    attrs: Attrs = field(default_factory=dict)


@dataclass(frozen=True)
class GEdge:
    source: str
    target: str
    kind: str  # FORK | SUBAGENT | MERGE_BACK | SUBAGENT_RESULT | HAS_PROVIDER_THREAD | FORKED_FROM
    label: str
    attrs: Attrs = field(default_factory=dict)


def nodes(family: FamilyExport) -> Iterator[GNode]:
    for thread in family.threads:
        yield GNode(thread.id, "thread", _thread_label(thread), _thread_attrs(thread))
    for pt in family.providerThreads:
        yield GNode(pt.id, "providerThread", _pt_label(pt), _pt_attrs(pt))


def edges(family: FamilyExport) -> Iterator[GEdge]:
    for edge in family.edges:
        yield GEdge(
            edge.parent, edge.child, edge.relationship, _edge_label(edge), _edge_attrs(edge)
        )
    for back in family.transferEdges:
        yield GEdge(back.source, back.target, back.type, _back_label(back), _back_attrs(back))
    known = {pt.id for pt in family.providerThreads}
    for pt in family.providerThreads:
        yield GEdge(pt.thread, pt.id, "HAS_PROVIDER_THREAD", pt.provider)
        if pt.forkedFrom in known:
            yield GEdge(pt.id, pt.forkedFrom, "FORKED_FROM", "native fork")


def spans(ordinals: list[int]) -> str:
    """[1, 2, 3, 5] → "1-3, 5": run ordinals the way people read them."""
    groups: list[list[int]] = []
    for n in ordinals:
        if groups and n == groups[-1][-1] + 1:
            groups[-1].append(n)
        else:
            groups.append([n])
    return ", ".join(str(g[0]) if len(g) == 1 else f"{g[0]}-{g[-1]}" for g in groups)


def _thread_label(thread: ThreadView) -> str:
    title = thread.title or "(untitled)"
    runs = spans([r.ordinal for r in thread.runs if r.status != "ROLLED_BACK"]) or "none"
    return f"{title}\n{thread.id}\nruns {runs}"


def _thread_attrs(thread: ThreadView) -> Attrs:
    attrs: Attrs = {
        "title": thread.title or "",
        "depth": thread.depth,
        "runs": spans([r.ordinal for r in thread.runs if r.status != "ROLLED_BACK"]),
        "rolledBackRuns": spans([r.ordinal for r in thread.runs if r.status == "ROLLED_BACK"]),
        "providers": ", ".join(dict.fromkeys(r.provider for r in thread.runs)),
    }
    if thread.relationship:
        attrs["relationship"] = thread.relationship
    return attrs


def _pt_label(pt: ProviderThreadView) -> str:
    native = spans(pt.nativeRunOrdinals) or "none"
    covered = spans(pt.coveredRunOrdinals) or "none"
    return f"{pt.provider} {pt.status}\nnative {native}\ncovered {covered}"


def _pt_attrs(pt: ProviderThreadView) -> Attrs:
    attrs: Attrs = {
        "provider": pt.provider,
        "status": pt.status,
        "thread": pt.thread,
        "nativeRunOrdinals": ",".join(map(str, pt.nativeRunOrdinals)),
        "coveredRunOrdinals": ",".join(map(str, pt.coveredRunOrdinals)),
    }
    if pt.nativeRef:
        attrs["nativeRef"] = pt.nativeRef
    return attrs


def _edge_label(edge: LineageEdge) -> str:
    at = f" at run {edge.sourceRunOrdinal}" if edge.sourceRunOrdinal else ""
    if edge.sourceItemIndex is not None:
        at += ", its input" if edge.sourceItemIndex < 0 else f", item {edge.sourceItemIndex}"
    status = f"\n{edge.transferStatus}" if edge.transferStatus else ""
    return f"{edge.relationship}{at}{status}"


def _edge_attrs(edge: LineageEdge) -> Attrs:
    attrs: Attrs = {}
    if edge.sourceRunOrdinal is not None:
        attrs["sourceRunOrdinal"] = edge.sourceRunOrdinal
    if edge.sourceItemIndex is not None:
        attrs["sourceItemIndex"] = edge.sourceItemIndex
    for key, value in (
        ("transfer", edge.transfer),
        ("transferStatus", edge.transferStatus),
        ("resolution", edge.resolution),
    ):
        if value:
            attrs[key] = value
    return attrs


def _back_label(edge: TransferEdge) -> str:
    return f"{edge.type}\n{edge.status}"


def _back_attrs(edge: TransferEdge) -> Attrs:
    attrs: Attrs = {"transfer": edge.transfer, "transferStatus": edge.status}
    if edge.resolution:
        attrs["resolution"] = edge.resolution
    return attrs


# ---- GraphML ------------------------------------------------------------------------


def to_graphml(family: FamilyExport) -> str:
    ET.register_namespace("", GRAPHML_NS)
    root = ET.Element(f"{{{GRAPHML_NS}}}graphml")
    graph_nodes, graph_edges = list(nodes(family)), list(edges(family))
    keys = _graphml_keys(root, graph_nodes, graph_edges)
    graph = ET.SubElement(root, f"{{{GRAPHML_NS}}}graph", id=family.root, edgedefault="directed")
    for node in graph_nodes:
        element = ET.SubElement(graph, f"{{{GRAPHML_NS}}}node", id=node.id)
        _graphml_data(element, keys["node"], {"kind": node.kind, "label": node.label, **node.attrs})
    for number, edge in enumerate(graph_edges):
        element = ET.SubElement(
            graph, f"{{{GRAPHML_NS}}}edge", id=f"e{number}", source=edge.source, target=edge.target
        )
        _graphml_data(element, keys["edge"], {"kind": edge.kind, "label": edge.label, **edge.attrs})
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def _graphml_keys(
    root: ET.Element, graph_nodes: list[GNode], graph_edges: list[GEdge]
) -> dict[str, dict[str, str]]:
    """One <key> per attribute name and element kind, typed int or string."""
    keys: dict[str, dict[str, str]] = {"node": {}, "edge": {}}
    groups = {
        "node": [{"kind": n.kind, "label": n.label, **n.attrs} for n in graph_nodes],
        "edge": [{"kind": e.kind, "label": e.label, **e.attrs} for e in graph_edges],
    }
    for scope, items in groups.items():
        for attrs in items:
            for name, value in attrs.items():
                if name in keys[scope]:
                    continue
                ident = f"{scope[0]}_{name}"
                keys[scope][name] = ident
                kind = "int" if isinstance(value, int) else "string"
                ET.SubElement(
                    root,
                    f"{{{GRAPHML_NS}}}key",
                    {"id": ident, "for": scope, "attr.name": name, "attr.type": kind},
                )
    return keys


def _graphml_data(element: ET.Element, keys: dict[str, str], attrs: Attrs) -> None:
    for name, value in attrs.items():
        ET.SubElement(element, f"{{{GRAPHML_NS}}}data", key=keys[name]).text = str(value)


# ---- Graphviz DOT ------------------------------------------------------------------


def to_dot(family: FamilyExport) -> str:
    lines = [f"digraph {_dot_id('family ' + family.root)} {{", "  rankdir=TB;"]
    for node in nodes(family):
        shape = "box" if node.kind == "thread" else "ellipse"
        attrs = {"label": node.label, "shape": shape, "kind": node.kind, **node.attrs}
        lines.append(f"  {_dot_id(node.id)} [{_dot_attrs(attrs)}];")
    for edge in edges(family):
        style = "solid" if edge.kind in ("FORK", "SUBAGENT", "SIDE") else "dashed"
        attrs = {"label": edge.label, "kind": edge.kind, "style": style, **edge.attrs}
        lines.append(f"  {_dot_id(edge.source)} -> {_dot_id(edge.target)} [{_dot_attrs(attrs)}];")
    lines.append("}")
    return "\n".join(lines)


def _dot_id(text: str) -> str:
    """A quoted DOT ID: backslashes and quotes escaped, newlines as DOT's \\n."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _dot_attrs(attrs: Attrs) -> str:
    return ", ".join(f"{name}={_dot_id(str(value))}" for name, value in attrs.items())


# ---- Mermaid -----------------------------------------------------------------------


def to_mermaid(family: FamilyExport) -> str:
    """A `graph TD` flowchart; Mermaid ids are short (t0, p0), labels carry the real ids."""
    short = _mermaid_ids(family)
    lines = ["graph TD", f"  %% Threadline family of {family.root} (workspace {family.workspace})"]
    for node in nodes(family):
        label = _mermaid_text(node.label)
        shape = f'["{label}"]' if node.kind == "thread" else f'(["{label}"])'
        lines.append(f"  {short[node.id]}{shape}")
    for edge in edges(family):
        arrow = "-->" if edge.kind in ("FORK", "SUBAGENT", "SIDE") else "-.->"
        lines.append(
            f'  {short[edge.source]} {arrow}|"{_mermaid_text(edge.label)}"| {short[edge.target]}'
        )
    return "\n".join(lines)


def _mermaid_ids(family: FamilyExport) -> dict[str, str]:
    ids = {thread.id: f"t{n}" for n, thread in enumerate(family.threads)}
    ids.update({pt.id: f"p{n}" for n, pt in enumerate(family.providerThreads)})
    return ids


def _mermaid_text(text: str) -> str:
    """Label text inside "...": `#`, quotes and markup as entity codes, lines as <br/>."""
    for char, code in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;")):
        text = text.replace(char, code)
    return text.replace("\n", "<br/>")
