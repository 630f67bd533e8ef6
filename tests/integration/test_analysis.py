"""Every analysis query on the demo graph, against what the GraphQL API says the demo did.

The demo is seeded twice, into `default` and into `other`: each query reads `default`,
so an answer that counted the other workspace would not match.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from api.cli import demo_runs as spec
from graph.console import analysis, readonly
from tests.support.family import HISTORY, Family, at
from tests.support.seeded import Seeded

LIVE = ("ACTIVE", "ROLLED_BACK")
RETIRED = ("STALE", "DIVERGENT", "FAILED")


def rows(
    graph: readonly.ReadOnlyGraph, name: str, workspace: str = "default", **given: Any
) -> list[dict[str, Any]]:
    """The query run as `threadline cypher run` runs it: typed parameters, read-only."""
    query = analysis.get(name)
    params = query.parameters({k: str(v) for k, v in given.items()}, workspace)
    return graph.run(query.text, params).records()


# ---- the library itself ------------------------------------------------------------


def test_the_library_has_at_least_twelve_documented_queries() -> None:
    queries = analysis.catalogue()
    assert len(queries) >= 12
    for query in queries:
        assert query.description.strip(), query.name
        declared = {p.name for p in query.params}
        assert analysis.WORKSPACE in declared, f"{query.name} is not scoped by $workspace"
        assert declared == query.used_names(), query.name


def operators(plan: dict[str, Any]) -> Iterator[str]:
    yield str(plan["operatorType"]).split("@")[0]
    for child in plan.get("children", []):
        yield from operators(child)


SCANS_OF_EVERYTHING = ("NodeByLabelScan", "RelationshipTypeScan")


@pytest.mark.parametrize("name", analysis.names())
async def test_plan_starts_from_an_index_with_no_all_nodes_scan_or_cartesian_product(
    seeded: Seeded, graph: readonly.ReadOnlyGraph, name: str
) -> None:
    query = analysis.get(name)
    required = {p.name: "x" for p in query.params if p.required and p.name != analysis.WORKSPACE}
    params = query.parameters(required, "default")
    # Planned afresh (not a plan cached before the demo was written), on online indexes.
    found = list(operators(graph.plan(f"CYPHER replan=force {query.text}", params)))
    assert "AllNodesScan" not in found and "CartesianProduct" not in found, found
    # Starts from a node index (workspace or id: a seek, or a scan of that index), never
    # from every node of a label or every relationship of a type.
    assert not [op for op in found if op.endswith(SCANS_OF_EVERYTHING)], found
    assert any(op.startswith("Node") and "Index" in op for op in found), found


# ---- each query against the demo ----------------------------------------------------


def folded(providers: list[str]) -> list[str]:
    return [p for i, p in enumerate(providers) if i == 0 or p != providers[i - 1]]


async def test_provider_switches_by_thread(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    family = seeded.family
    expected = []
    for thread_id in family.threads:
        providers = [r["provider"] for r in family.active_runs(thread_id)]
        path = folded(providers)
        if len(path) > 1:
            expected.append((thread_id, len(providers), len(path) - 1, path))
    got = [
        (r["thread"], r["runs"], r["switches"], r["path"])
        for r in rows(graph, "provider_switches_by_thread")
    ]
    assert got == sorted(expected, key=lambda e: (-e[2], e[0]))
    assert got[0][0] == seeded.demo.root


async def test_provider_switches_by_day(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    family = seeded.family
    switches: Counter[tuple[str, str]] = Counter()
    threads: dict[tuple[str, str], set[str]] = defaultdict(set)
    for thread_id in family.threads:
        runs = family.active_runs(thread_id)
        for before, run in itertools.pairwise(runs):
            if run["provider"] != before["provider"]:
                key = (
                    at(run["startedAt"]).date().isoformat(),
                    f"{before['provider']} → {run['provider']}",
                )
                switches[key] += 1
                threads[key].add(thread_id)
    got = {
        (r["day"], r["direction"]): (r["switches"], r["threads"])
        for r in rows(graph, "provider_switches_by_day")
    }
    assert got == {key: (n, len(threads[key])) for key, n in switches.items()}


def maximal_chains(handoffs: dict[str, dict[str, Any]]) -> set[tuple[str, ...]]:
    """The chain rule of longest_handoff_chains, over the API's view of the handoffs."""
    ready = {i: h for i, h in handoffs.items() if h["status"] == "READY"}

    def follows(a: dict[str, Any], b: dict[str, Any]) -> bool:
        fed = a["toProviderThread"]["id"] in {pt["id"] for pt in b["fromProviderThreads"]}
        return fed and at(b["createdAt"]) > at(a["createdAt"])

    chains: set[tuple[str, ...]] = set()

    def extend(chain: list[str]) -> None:
        nexts = [b for b in ready if follows(ready[chain[-1]], ready[b])]
        if not nexts or len(chain) == 11:
            chains.add(tuple(chain))
        for b in nexts:
            extend([*chain, b])

    for first in ready:
        if not any(follows(ready[a], ready[first]) for a in ready):
            extend([first])
    return {c for c in chains if len(c) > 1}


async def test_longest_handoff_chains(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    expected = maximal_chains(seeded.family.handoffs())
    got = rows(graph, "longest_handoff_chains", limit=1000)
    assert {tuple(r["chain"]) for r in got} == expected
    assert [r["handoffs"] for r in got] == sorted((len(c) for c in expected), reverse=True)
    h1 = seeded.demo.starts[("root", 6)]["handoffs"][0]["id"]
    h2 = seeded.demo.starts[("root", 9)]["handoffs"][0]["id"]
    assert got[0]["chain"][:2] == [h1, h2]  # the canonical switch back is the longest start


async def test_stale_provider_threads(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    demo, family = seeded.demo, seeded.family
    retired = {pt["id"]: (t, pt) for t, pt in family.provider_threads() if pt["status"] in RETIRED}
    got = {r["providerThread"]: r for r in rows(graph, "stale_provider_threads")}
    assert set(got) == set(retired)
    for pt_id, (thread_id, pt) in retired.items():
        assert (got[pt_id]["thread"], got[pt_id]["status"]) == (thread_id, pt["status"])
    by_status = {r["status"]: r for r in got.values()}
    assert by_status["STALE"]["signals"] == demo.starts[("root", 11)]["stalenessSignals"]
    assert by_status["FAILED"]["failureReason"] == spec.SUBAGENT_START_FAILURE
    assert by_status["DIVERGENT"]["rolledBackRuns"] == demo.rolled_back["portable_fork"]


def live(pt: dict[str, Any]) -> bool:
    return pt["status"] in LIVE or (pt["status"] == "PENDING" and pt["nativeRef"] is not None)


async def test_uncovered_runs(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    family = seeded.family
    expected = []
    for thread_id, thread in family.threads.items():
        covered = {
            n
            for pt in thread["providerThreads"]
            if live(pt)
            for n in pt["coverage"]["coveredRunOrdinals"]
        }
        history = [r["ordinal"] for r in family.runs(thread_id) if r["status"] in HISTORY]
        expected += [(thread_id, n) for n in history if n not in covered]
    got = [(r["thread"], r["run"]) for r in rows(graph, "uncovered_runs")]
    assert got == sorted(expected)
    assert (seeded.demo.threads["portable_fork"], 1) in got  # its only thread diverged


async def test_fork_depth_distribution(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    family = seeded.family
    expected: dict[int, Counter[str | None]] = defaultdict(Counter)
    for thread_id, thread in family.threads.items():
        expected[family.depth[thread_id]][thread["relationshipToParent"]] += 1
    got = {r["depth"]: r for r in rows(graph, "fork_depth_distribution")}
    assert set(got) == set(expected)
    for depth, kinds in expected.items():
        assert got[depth]["threads"] == sum(kinds.values())
        assert (got[depth]["forks"], got[depth]["subagents"]) == (kinds["FORK"], kinds["SUBAGENT"])


async def test_merge_back_rate(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    family = seeded.family
    forks = [t for t in family.threads.values() if t["relationshipToParent"] == "FORK"]

    def merged(thread: dict[str, Any], status: str) -> bool:
        return any(
            x["type"] == "MERGE_BACK" and x["status"] == status for x in thread["outgoingTransfers"]
        )

    worked = [t for t in forks if any(r["status"] == "COMPLETED" for r in t["runs"])]
    done = [t for t in forks if merged(t, "CONSUMED")]
    [row] = rows(graph, "merge_back_rate")
    assert row == {
        "forks": len(forks),
        "withWork": len(worked),
        "mergedBack": len(done),
        "pending": len([t for t in forks if merged(t, "PENDING")]),
        "rate": round(len(done) / len(forks), 3),
    }


@pytest.mark.parametrize("include_superseded", [False, True])
async def test_handoff_tokens(
    seeded: Seeded, graph: readonly.ReadOnlyGraph, include_superseded: bool
) -> None:
    statuses = {"READY", "SUPERSEDED"} if include_superseded else {"READY"}
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for h in seeded.family.handoffs().values():
        if h["status"] in statuses:
            groups[(h["toProviderThread"]["provider"], h["strategy"])].append(h["tokenEstimate"])
    got = rows(graph, "handoff_tokens", includeSuperseded=include_superseded)
    assert {
        (r["provider"], r["strategy"]): (r["handoffs"], r["tokens"], r["maxTokens"]) for r in got
    } == {key: (len(tokens), sum(tokens), max(tokens)) for key, tokens in groups.items()}


async def test_rollback_losses(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    demo, family = seeded.demo, seeded.family
    fork = demo.threads["portable_fork"]
    lost = demo.rolled_back["portable_fork"]
    sent = [spec.PORTABLE_FORK_RUNS[n - 1] for n in lost]  # what those runs reported
    cancelled = [
        x
        for x in family.threads[fork]["outgoingTransfers"]
        if x["status"] == "SUPERSEDED" and x["sourcePoint"]["run"]["ordinal"] in lost
    ]
    [row] = rows(graph, "rollback_losses")
    assert row["thread"] == fork and row["rolledBackRuns"] == lost
    assert row["providers"] == sorted(
        {r["provider"] for r in family.runs(fork) if r["ordinal"] in lost}
    )
    assert row["items"] == sum(len(run.run_items()) for run in sent)
    assert row["files"] == sorted({path for run in sent for path, *_ in run.files})
    assert row["supersededTransfers"] == len(cancelled) == 1
    assert row["hours"] >= 0


async def test_subagent_fanout(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    demo, family, gql = seeded.demo, seeded.family, seeded.gql
    events = await gql(
        "query($id: ID!) { events(threadId: $id, first: 200) { type runId payload } }", id=demo.root
    )
    spawned = [
        e for e in events["events"] if e["type"] in ("subagent.spawned", "subagent.recorded")
    ]
    ordinal = {r["id"]: r["ordinal"] for r in family.runs(demo.root)}
    by_run: dict[int, list[str]] = defaultdict(list)
    for event in spawned:
        by_run[ordinal[event["runId"]]].append(event["payload"]["childThreadId"])
    got = {r["parentRun"]: r for r in rows(graph, "subagent_fanout")}
    assert set(got) == set(by_run)
    for run, children in by_run.items():
        assert sorted(got[run]["children"]) == sorted(children)
        strategies = Counter(
            x["resolutionStrategy"]
            for child in children
            for x in family.threads[child]["incomingTransfers"]
        )
        assert (got[run]["native"], got[run]["portable"]) == (
            strategies["NATIVE_FORK"],
            strategies["PORTABLE_CONTEXT"],
        )
        results = [
            x
            for child in children
            for x in family.threads[child]["outgoingTransfers"]
            if x["type"] == "SUBAGENT_RESULT" and x["status"] == "CONSUMED"
        ]
        assert got[run]["returned"] == len(results)


async def test_pending_transfers(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    pending = {i: x for i, x in seeded.family.transfers().items() if x["status"] == "PENDING"}
    got = {r["transfer"]: r for r in rows(graph, "pending_transfers")}
    assert set(got) == set(pending) == {seeded.demo.transfers["native_fork.late_merge"]}
    for ident, x in pending.items():
        assert (got[ident]["type"], got[ident]["fromThread"], got[ident]["waitsOn"]) == (
            x["type"],
            x["sourceThread"]["id"],
            x["targetThread"]["id"],
        )
    assert rows(graph, "pending_transfers", minAgeMinutes=24 * 60) == []


def covered_ordinals(family: Family, handoff: dict[str, Any]) -> list[int]:
    span = handoff["coveredRunOrdinals"]
    return [
        r["ordinal"]
        for r in family.active_runs(handoff["sourceThread"]["id"])
        if span["from"] <= r["ordinal"] <= span["to"]
    ]


async def test_context_provenance(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    demo, family = seeded.demo, seeded.family
    run_id = demo.runs[("root", 12)]  # a delta handoff and two subagent results
    handoffs = family.handoffs()
    consumed = [
        handoffs[h["id"]]
        for r in family.runs(demo.root)
        if r["id"] == run_id
        for h in r["contextHandoffs"]
    ]
    got = rows(graph, "context_provenance", runId=run_id)
    assert [r["handoff"] for r in got] == [h["id"] for h in consumed]
    for row, h in zip(got, consumed, strict=True):
        assert row["sourceThread"] == h["sourceThread"]["id"]
        assert row["transferType"] == (h["transfer"] or {}).get("type")
        assert row["coveredRuns"] == covered_ordinals(family, h)
        assert sorted(row["fromProviderThreads"]) == sorted(
            p["id"] for p in h["fromProviderThreads"]
        )


async def test_handoff_provenance(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    demo, family = seeded.demo, seeded.family
    h2 = family.handoffs()[demo.starts[("root", 9)]["handoffs"][0]["id"]]
    h1 = demo.starts[("root", 6)]["handoffs"][0]["id"]
    got = rows(graph, "handoff_provenance", handoffId=h2["id"])
    assert [r["run"] for r in got] == covered_ordinals(family, h2) == [6, 7, 8]
    l1 = demo.starts[("root", 6)]["providerThread"]["id"]
    assert {r["ranOn"] for r in got} == {l1}
    assert all(r["handedBefore"] == [h1] for r in got)  # L1 knew runs 1-5 only through H1


def reach(family: Family, thread_id: str, since: int) -> dict[str, tuple[int, set[str]]]:
    """content_reach's rule for one hop, from the API's view: thread → (first run, via)."""
    consumer = family.consumer_of()
    found: dict[str, tuple[int, set[str]]] = {}

    def add(thread: str, run: int, via: str) -> None:
        first, vias = found.get(thread, (run, set()))
        found[thread] = (min(first, run), vias | {via})

    for h in family.handoffs().values():
        if h["id"] not in consumer or h["sourceThread"]["id"] != thread_id:
            continue
        reached, run = consumer[h["id"]]
        later = any(n >= since for n in covered_ordinals(family, h))
        if later and reached != thread_id and run["status"] != "ROLLED_BACK":
            add(reached, run["ordinal"], h["kind"])
    for x in family.transfers().values():
        source = x["sourcePoint"]["run"]
        if (
            x["resolutionStrategy"] == "NATIVE_FORK"
            and x["sourceThread"]["id"] == thread_id
            and source is not None
            and source["ordinal"] >= since
        ):
            add(x["targetThread"]["id"], 1, "NATIVE_FORK")
    return found


def expected_reach(
    family: Family, origin: str, ordinal: int
) -> dict[str, tuple[int, int, set[str]]]:
    first = reach(family, origin, ordinal)
    second: dict[str, tuple[int, set[str]]] = {}
    for thread_id, (since, _) in first.items():
        for reached, (run, vias) in reach(family, thread_id, since).items():
            if reached not in first and reached != origin:
                old_run, old_vias = second.get(reached, (run, set()))
                second[reached] = (min(run, old_run), vias | old_vias)
    return {
        **{t: (1, run, vias) for t, (run, vias) in first.items()},
        **{t: (2, run, vias) for t, (run, vias) in second.items()},
    }


@pytest.mark.parametrize(("role", "ordinal"), [("root", 3), ("native_fork", 1)])
async def test_content_reach(
    seeded: Seeded, graph: readonly.ReadOnlyGraph, role: str, ordinal: int
) -> None:
    demo, family = seeded.demo, seeded.family
    got = rows(graph, "content_reach", runId=demo.runs[(role, ordinal)])
    expected = expected_reach(family, demo.threads[role], ordinal)
    assert {r["thread"]: (r["hops"], r["fromRun"], set(r["via"])) for r in got} == expected
    if role == "native_fork":
        # Merged back into root run 10, then handed to both subagents by root run 11.
        assert {demo.role_of(t): hops for t, (hops, _, _) in expected.items()} == {
            "root": 1,
            "subagent": 2,
            "native_subagent": 2,
        }


# ---- workspaces never meet ----------------------------------------------------------


async def test_another_workspace_reads_only_its_own_family(
    seeded: Seeded, graph: readonly.ReadOnlyGraph
) -> None:
    [mine] = rows(graph, "provider_switches_by_thread")
    [theirs] = rows(graph, "provider_switches_by_thread", workspace="other")
    assert (mine["thread"], theirs["thread"]) == (seeded.demo.root, seeded.other_root)
    assert rows(graph, "merge_back_rate") == rows(graph, "merge_back_rate", workspace="other")
    assert rows(graph, "merge_back_rate", workspace="nobody")[0]["forks"] == 0


def moment(value: Any) -> datetime | None:
    """A DATETIME as the read-only runner prints it (nanoseconds), as a Python time."""
    if value is None:
        return None
    return at(re.sub(r"(\.\d{6})\d*", r"\1", str(value)))


async def test_forks_by_divergence(seeded: Seeded, graph: readonly.ReadOnlyGraph) -> None:
    family = seeded.family
    expected = {
        thread_id: thread["divergence"]
        for thread_id, thread in family.threads.items()
        if thread["parent"] is not None
    }
    got = rows(graph, "forks_by_divergence")
    assert {r["fork"] for r in got} == set(expected)
    for r in got:
        api = expected[r["fork"]]
        assert r["source"] == family.threads[r["fork"]]["parent"]["id"]
        assert r["sourceRunsSinceFork"] == api["sourceRunsSinceFork"]
        assert r["sourceRolledBackPastFork"] == api["sourceRolledBackPastFork"]
        assert r["sourceRolledBackTo"] == api["sourceRolledBackTo"]
        assert r["unmergedRuns"] == api["unmergedRunOrdinals"]
        merged = api["lastMergeBackAt"]
        assert moment(r["lastMergeBackAt"]) == (at(merged) if merged else None)
    ranked = [(not r["sourceRolledBackPastFork"], -len(r["sourceRunsSinceFork"])) for r in got]
    assert ranked == sorted(ranked)
    assert any(r["lastMergeBackAt"] is not None for r in got)  # the demo merges back
