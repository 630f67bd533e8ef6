"""`threadline export`: each format parsed back with a real parser, against the API's view."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import networkx as nx
import pydot
import pytest
from click.testing import Result
from typer.testing import CliRunner

from api.cli import app
from graph.store import Store
from tests.support.family import Family
from tests.support.managed import cli_env
from tests.support.seeded import Seeded, seeded_demo


@pytest.fixture(scope="module")
async def seeded(store: Store, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Seeded]:
    async with seeded_demo(store, tmp_path_factory.mktemp("tokens")) as found:
        yield found


def export(neo4j_uri: str, *args: str) -> Result:
    return CliRunner().invoke(app, ["export", *args], env=cli_env(neo4j_uri))


def lineage(family: Family) -> set[tuple[str, str, str, int]]:
    return {(e["from"], e["to"], e["relationship"], e["sourceRunOrdinal"]) for e in family.edges}


BACK = ("MERGE_BACK", "SUBAGENT_RESULT")


def thread_edges(family: Family) -> Counter[tuple[str, str, str]]:
    """Every thread-to-thread edge the lineage page draws, as (from, to, kind): the lineage
    query's fork and subagent edges, and one per merge-back or subagent result."""
    edges = Counter((e["from"], e["to"], e["relationship"]) for e in family.edges)
    edges.update(
        (x["sourceThread"]["id"], thread_id, x["type"])
        for thread_id, thread in family.threads.items()
        for x in thread["incomingTransfers"]
        if x["type"] in BACK and x["sourceThread"]["id"] in family.threads
    )
    return edges


def back_statuses(family: Family) -> dict[str, str]:
    """transfer id → status, for the merge-backs and subagent results."""
    return {
        x["id"]: x["status"]
        for thread in family.threads.values()
        for x in thread["incomingTransfers"]
        if x["type"] in BACK
    }


def opening_status(family: Family) -> dict[str, str]:
    """child thread → status of the FORK or SUBAGENT_SPAWN transfer that opened it."""
    return {
        thread_id: x["status"]
        for thread_id, thread in family.threads.items()
        for x in thread["incomingTransfers"]
        if x["type"] in ("FORK", "SUBAGENT_SPAWN")
    }


def coverage(family: Family) -> dict[str, tuple[list[int], list[int]]]:
    return {
        pt["id"]: (pt["coverage"]["nativeRunOrdinals"], pt["coverage"]["coveredRunOrdinals"])
        for _, pt in family.provider_threads()
    }


async def test_json_round_trips_with_the_lineage_and_coverage_the_api_reports(
    seeded: Seeded, neo4j_uri: str
) -> None:
    family = seeded.family
    from_child = export(neo4j_uri, seeded.demo.threads["abandoned_fork"])  # any member will do
    assert from_child.exit_code == 0, from_child.output
    data = json.loads(from_child.stdout)
    assert data["root"] == seeded.demo.root
    assert {t["id"] for t in data["threads"]} == set(family.threads)
    edges = {
        (e["parent"], e["child"], e["relationship"], e["sourceRunOrdinal"]) for e in data["edges"]
    }
    assert edges == lineage(family)
    assert {e["child"]: e["transferStatus"] for e in data["edges"]} == opening_status(family)
    exported = Counter((e["parent"], e["child"], e["relationship"]) for e in data["edges"])
    exported.update((e["source"], e["target"], e["type"]) for e in data["transferEdges"])
    assert exported == thread_edges(family)
    assert {x["transfer"]: x["status"] for x in data["transferEdges"]} == back_statuses(family)
    assert {"MERGE_BACK", "SUBAGENT_RESULT"} <= {x["type"] for x in data["transferEdges"]}
    assert {
        pt["id"]: (pt["nativeRunOrdinals"], pt["coveredRunOrdinals"])
        for pt in data["providerThreads"]
    } == coverage(family)


async def test_graphml_parses_with_networkx(seeded: Seeded, neo4j_uri: str, tmp_path: Path) -> None:
    family, out = seeded.family, tmp_path / "family.graphml"
    result = export(neo4j_uri, seeded.demo.root, "--format", "graphml", "--output", str(out))
    assert result.exit_code == 0, result.output
    graph = nx.read_graphml(out)
    kinds = nx.get_node_attributes(graph, "kind")
    assert {n for n, k in kinds.items() if k == "thread"} == set(family.threads)
    assert {n for n, k in kinds.items() if k == "providerThread"} == set(coverage(family))
    lineage_edges = {
        (a, b, d["kind"], d["sourceRunOrdinal"])
        for a, b, d in graph.edges(data=True)
        if d["kind"] in ("FORK", "SUBAGENT")
    }
    assert lineage_edges == lineage(family)  # sourceRunOrdinal came back as an int
    statuses = {
        b: d["transferStatus"]
        for _, b, d in graph.edges(data=True)
        if d["kind"] in ("FORK", "SUBAGENT") and "transferStatus" in d
    }
    assert statuses == opening_status(family)
    threads = family.threads
    between = Counter(
        (a, b, d["kind"]) for a, b, d in graph.edges(data=True) if a in threads and b in threads
    )
    assert between == thread_edges(family)  # parallel edges kept: a multigraph came back
    back = {
        d["transfer"]: d["transferStatus"] for *_, d in graph.edges(data=True) if d["kind"] in BACK
    }
    assert back == back_statuses(family)
    for pt_id, (native, covered) in coverage(family).items():
        node = graph.nodes[pt_id]
        assert node["coveredRunOrdinals"] == ",".join(map(str, covered))
        assert node["nativeRunOrdinals"] == ",".join(map(str, native))


def unquote(value: str) -> str:
    return value[1:-1].replace('\\"', '"') if value.startswith('"') else value


async def test_dot_parses_with_pydot(seeded: Seeded, neo4j_uri: str) -> None:
    family = seeded.family
    result = export(neo4j_uri, seeded.demo.root, "--format", "dot")
    [graph] = pydot.graph_from_dot_data(result.stdout)
    nodes = {unquote(n.get_name()): n.get_attributes() for n in graph.get_nodes()}
    assert {n for n, a in nodes.items() if unquote(a["kind"]) == "thread"} == set(family.threads)
    edges = [
        (unquote(e.get_source()), unquote(e.get_destination()), e.get_attributes())
        for e in graph.get_edges()
    ]
    lineage_edges = {
        (a, b, unquote(attrs["kind"]), int(unquote(attrs["sourceRunOrdinal"])))
        for a, b, attrs in edges
        if unquote(attrs["kind"]) in ("FORK", "SUBAGENT")
    }
    assert lineage_edges == lineage(family)
    threads = family.threads
    between = Counter(
        (a, b, unquote(attrs["kind"])) for a, b, attrs in edges if a in threads and b in threads
    )
    assert between == thread_edges(family)
    forked = {(a, b) for a, b, attrs in edges if unquote(attrs["kind"]) == "FORKED_FROM"}
    native_child = seeded.demo.starts[("native_fork", 1)]["providerThread"]["id"]
    source = seeded.demo.starts[("root", 5)]["providerThread"]["id"]
    assert forked == {(native_child, source)}


# Mermaid has no maintained Python parser: a grammar check of the `graph TD` subset the
# exporter writes (node definitions, links with quoted labels, comments).
MERMAID_NODE = re.compile(r'^  (?P<id>[a-z]\d+)(\["(?P<a>[^"]*)"\]|\(\["(?P<b>[^"]*)"\]\))$')
MERMAID_LINK = re.compile(
    r'^  (?P<src>[a-z]\d+) (-->|-\.->)\|"(?P<label>[^"]*)"\| (?P<dst>[a-z]\d+)$'
)


def parse_mermaid(text: str) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    lines = text.splitlines()
    assert lines[0] == "graph TD"
    labels: dict[str, str] = {}
    links: list[tuple[str, str, str]] = []
    for line in lines[1:]:
        if line.startswith("  %%"):
            continue
        if node := MERMAID_NODE.match(line):
            assert node["id"] not in labels, f"defined twice: {line}"
            labels[node["id"]] = node["a"] if node["a"] is not None else node["b"]
        elif link := MERMAID_LINK.match(line):
            assert link["src"] in labels and link["dst"] in labels, f"undefined node: {line}"
            links.append((link["src"], link["dst"], link["label"]))
        else:
            raise AssertionError(f"not Mermaid flowchart syntax: {line!r}")
    return labels, links


async def test_mermaid_is_a_valid_flowchart_of_the_family(seeded: Seeded, neo4j_uri: str) -> None:
    family = seeded.family
    result = export(neo4j_uri, seeded.demo.root, "--format", "mermaid")
    labels, links = parse_mermaid(result.stdout)
    real = {short: label.split("<br/>")[1] for short, label in labels.items() if short[0] == "t"}
    assert set(real.values()) == set(family.threads)
    drawn = {
        (
            real[a],
            real[b],
            label.split(" at run ")[0],
            int(label.split(" at run ")[1].split("<br/>")[0]),
        )
        for a, b, label in links
        if a in real and b in real and " at run " in label
    }
    assert drawn == lineage(family)
    kinds = Counter(
        (real[a], real[b], label.split(" at run ")[0].split("<br/>")[0])
        for a, b, label in links
        if a in real and b in real
    )
    assert kinds == thread_edges(family)


async def test_export_stays_in_its_workspace(seeded: Seeded, neo4j_uri: str) -> None:
    elsewhere = export(neo4j_uri, seeded.demo.root, "--workspace", "other")
    assert elsewhere.exit_code == 1 and "No thread" in elsewhere.output
    theirs = json.loads(export(neo4j_uri, seeded.other_root, "--workspace", "other").stdout)
    assert theirs["root"] == seeded.other_root
    assert {t["id"] for t in theirs["threads"]}.isdisjoint(seeded.family.threads)


def test_labels_with_quotes_and_markup_stay_parseable() -> None:
    from api.cli.export import FamilyExport, ThreadView
    from api.cli.export_formats import to_dot, to_mermaid

    title = 'say "hi" <b>#1</b> \\ done'
    family = FamilyExport("w", "t", "t", [ThreadView("t", title, None, None, 0, [])], [], [])
    labels, _ = parse_mermaid(to_mermaid(family))
    assert "#quot;hi#quot;" in labels["t0"]
    [graph] = pydot.graph_from_dot_data(to_dot(family))
    [node] = [n for n in graph.get_nodes() if unquote(n.get_name()) == "t"]
    assert title in unquote(node.get_attributes()["title"]).replace("\\\\", "\\")
