"""lineage() against a hand-built family of forks and subagents, every direction and depth."""

from __future__ import annotations

from typing import Any

from graph import queries
from graph.store import Store
from tests.support.graphql import GraphQLClient
from tests.support.steps import COMPLETE, FORK, SPAWN, new_thread, run_once, start

LINEAGE = """query($id: ID!, $direction: LineageDirection, $depth: Int) {
  lineage(threadId: $id, direction: $direction, depth: $depth) {
    nodes { thread { id } depth } edges { from to relationship sourceRunOrdinal } } }"""


async def build_family(gql: GraphQLClient) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """R ─fork→ A ─subagent→ C ─fork→ D, and R ─fork→ B; plus an unrelated E."""
    r = await new_thread(gql, "R")
    r1 = await run_once(gql, r, "codex")
    r2 = await run_once(gql, r, "codex")
    a = (await gql(FORK, id=r, at={"runId": r1["run"]["id"]}))["forkThread"]["id"]
    b = (await gql(FORK, id=r, at={"runId": r2["run"]["id"]}))["forkThread"]["id"]
    a1 = await run_once(gql, a, "codex")
    running = await start(gql, a, "codex", "spawn")
    c = (await gql(SPAWN, run=running["run"]["id"], task="sub"))["spawnSubagent"]["id"]
    await gql(COMPLETE, runId=running["run"]["id"], turn="a2")
    c1 = await run_once(gql, c, "claude")
    d = (await gql(FORK, id=c, at={"runId": c1["run"]["id"]}))["forkThread"]["id"]
    await new_thread(gql, "E")
    assert a1["run"]["ordinal"] == 1
    ids = {"R": r, "A": a, "B": b, "C": c, "D": d}
    parents = {"A": ("R", "FORK"), "B": ("R", "FORK"), "C": ("A", "SUBAGENT"), "D": ("C", "FORK")}
    return ids, parents


def expected(
    start: str, direction: str, depth: int, parents: dict[str, tuple[str, str]]
) -> dict[str, int]:
    found = {start: 0}
    if direction in ("ANCESTORS", "BOTH"):
        node, hops = start, 0
        while node in parents and hops < depth:
            node, hops = parents[node][0], hops + 1
            found[node] = hops
    if direction in ("DESCENDANTS", "BOTH"):
        frontier, hops = [start], 0
        while frontier and hops < depth:
            hops += 1
            frontier = [c for c, (p, _) in parents.items() if p in frontier]
            found.update({c: hops for c in frontier})
    return found


async def test_lineage_matches_the_family(gql: GraphQLClient) -> None:
    ids, parents = await build_family(gql)
    names = {v: k for k, v in ids.items()}
    ordinals = {"A": 1, "B": 2, "C": 1, "D": 1}
    for start_name in ids:
        for direction in ("ANCESTORS", "DESCENDANTS", "BOTH"):
            for depth in range(0, 5):
                got = (await gql(LINEAGE, id=ids[start_name], direction=direction, depth=depth))[
                    "lineage"
                ]
                nodes = {names[n["thread"]["id"]]: n["depth"] for n in got["nodes"]}
                want = expected(start_name, direction, depth, parents)
                assert nodes == want, (start_name, direction, depth)
                edges = {
                    (names[e["from"]], names[e["to"]], e["relationship"], e["sourceRunOrdinal"])
                    for e in got["edges"]
                }
                assert edges == {
                    (p, child, rel, ordinals[child])
                    for child, (p, rel) in parents.items()
                    if child in want and p in want
                }


async def test_lineage_defaults_limits_and_unknown(gql: GraphQLClient) -> None:
    ids, _ = await build_family(gql)
    both = (await gql(LINEAGE, id=ids["A"]))["lineage"]
    assert len(both["nodes"]) == 4  # A, R, C, D: BOTH, depth 10 by default
    capped = (await gql(LINEAGE, id=ids["R"], direction="DESCENDANTS", depth=100000))["lineage"]
    assert len(capped["nodes"]) == 5
    await gql.refused("INVALID_INPUT", LINEAGE, id=ids["R"], depth=-1)
    missing = (await gql(LINEAGE, id="nope"))["lineage"]
    assert missing == {"nodes": [], "edges": []}
    family = await gql(
        """query($id: ID!) { thread(id: $id) {
        root { id } parent { id } children { id } } }""",
        id=ids["C"],
    )
    assert family["thread"]["root"]["id"] == ids["R"]
    assert family["thread"]["parent"]["id"] == ids["A"]
    assert family["thread"]["children"] == [{"id": ids["D"]}]


BY_ID = """query($ids: [ID!]!) { threadsById(ids: $ids) { id parent { id } } }"""


async def test_threads_by_id_answer_in_the_order_asked(gql: GraphQLClient) -> None:
    """What the lineage page asks for the boxes it draws: null for an id the workspace does
    not hold, and no more ids than a page holds."""
    ids, _ = await build_family(gql)
    asked = [ids["D"], "thr_nobody", ids["R"], ids["D"]]
    found = (await gql(BY_ID, ids=asked))["threadsById"]
    assert found == [
        {"id": ids["D"], "parent": {"id": ids["C"]}},
        None,
        {"id": ids["R"], "parent": None},
        {"id": ids["D"], "parent": {"id": ids["C"]}},
    ]
    await gql.refused("INVALID_INPUT", BY_ID, ids=[ids["R"]] * 201)


async def lineage_db_hits(store: Store, thread_id: str) -> int:
    """Database hits of the lineage query, read from Neo4j's own PROFILE."""
    text = "PROFILE " + queries.with_hops("thread/lineage", 10)
    async with store._driver.session() as session:
        result = await session.run(
            text,
            threadId=thread_id,
            workspace="default",  # type: ignore[arg-type]
            direction="BOTH",
            includeSide=False,
        )
        summary = await result.consume()
    return _hits(summary.profile or {})


def _hits(plan: dict[str, Any]) -> int:
    return int(plan.get("dbHits", 0)) + sum(_hits(child) for child in plan.get("children", []))


async def test_lineage_cost_does_not_grow_with_the_graph(gql: GraphQLClient, store: Store) -> None:
    ids, _ = await build_family(gql)
    before = await lineage_db_hits(store, ids["A"])
    for n in range(30):  # unrelated families: more graph, same answer
        other = await new_thread(gql, f"other {n}")
        done = await run_once(gql, other, "codex")
        await gql(FORK, id=other, at={"runId": done["run"]["id"]})
    assert before > 0
    assert await lineage_db_hits(store, ids["A"]) == before
