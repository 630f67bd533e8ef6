"""The pull path (docs/MODEL.md "The pull path"): `Thread.items` answers each active run's
input as its item -1 (kind USER_GOAL) before the run's own items, filters and pages it as
any item, and so returns every item a handoff lists in `omitted`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from graph.store import Store
from tests.support.graphql import GraphQLClient, with_claude_cap
from tests.support.steps import ATTACH, new_thread, run_once, start

ITEMS = """query($t: ID!, $first: Int, $after: String, $kinds: [RunItemKind!], $runs: [Int!]) {
  thread(id: $t) { items(first: $first, after: $after, kinds: $kinds, runOrdinals: $runs) {
    edges { cursor node { runId runOrdinal index kind text key path } }
    pageInfo { hasNextPage endCursor } } } }"""

RUNS = "query($t: ID!) { thread(id: $t) { runs { id ordinal input } } }"
ROLLBACK = """mutation($id: ID!, $to: Int!) {
  rollbackThread(threadId: $id, toRunOrdinal: $to) { thread { id } } }"""


def item(kind: str, text: str) -> dict[str, Any]:
    return {"kind": kind, "text": text}


async def three_runs(gql: GraphQLClient) -> str:
    """Runs 1-3, each with a decision and a command; run 2 has a goal item too."""
    thread = await new_thread(gql, "pull")
    for n in (1, 2, 3):
        items = [item("DECISION", f"decision {n}"), item("COMMAND", f"make {n}")]
        if n == 2:
            items.append(item("USER_GOAL", f"goal {n}"))
        await run_once(gql, thread, "codex", f"request {n}", items=items)
    return thread


async def pages(gql: GraphQLClient, thread: str, first: int, **filters: Any) -> list[Any]:
    """Every page of the thread's items, `first` at a time: [(nodes, hasNextPage)]."""
    found, after = [], None
    while True:
        answer = (await gql(ITEMS, t=thread, first=first, after=after, **filters))["thread"]
        page = answer["items"]
        found.append(([e["node"] for e in page["edges"]], page["pageInfo"]["hasNextPage"]))
        if not page["pageInfo"]["hasNextPage"]:
            return found
        assert page["pageInfo"]["endCursor"] == page["edges"][-1]["cursor"]
        after = page["pageInfo"]["endCursor"]


def places(nodes: list[dict[str, Any]]) -> list[tuple[int, int, str]]:
    return [(n["runOrdinal"], n["index"], n["kind"]) for n in nodes]


async def test_each_run_input_is_its_item_minus_one_before_its_items(gql: GraphQLClient) -> None:
    thread = await three_runs(gql)
    [(nodes, more)] = await pages(gql, thread, first=50)
    assert not more
    assert places(nodes) == [
        (1, -1, "USER_GOAL"),
        (1, 0, "DECISION"),
        (1, 1, "COMMAND"),
        (2, -1, "USER_GOAL"),
        (2, 0, "DECISION"),
        (2, 1, "COMMAND"),
        (2, 2, "USER_GOAL"),
        (3, -1, "USER_GOAL"),
        (3, 0, "DECISION"),
        (3, 1, "COMMAND"),
    ]
    runs = {r["ordinal"]: r for r in (await gql(RUNS, t=thread))["thread"]["runs"]}
    for node in nodes:
        if node["index"] == -1:
            run = runs[node["runOrdinal"]]
            assert (node["runId"], node["text"]) == (run["id"], run["input"])
            assert (node["key"], node["path"]) == (None, None)


@pytest.mark.parametrize("first", [1, 2, 3, 4])
async def test_pages_cross_run_boundaries_at_every_size(gql: GraphQLClient, first: int) -> None:
    thread = await three_runs(gql)
    [(whole, _)] = await pages(gql, thread, first=50)
    paged = await pages(gql, thread, first=first)
    assert [node for nodes, _ in paged for node in nodes] == whole
    assert all(len(nodes) == first for nodes, _ in paged[:-1])
    assert [more for _, more in paged] == [True] * (len(paged) - 1) + [False]


async def test_a_page_that_ends_on_an_input_goes_on_with_its_items(gql: GraphQLClient) -> None:
    thread = await three_runs(gql)
    first = (await gql(ITEMS, t=thread, first=4))["thread"]["items"]
    assert places([e["node"] for e in first["edges"]])[-1] == (2, -1, "USER_GOAL")
    after = first["pageInfo"]["endCursor"]
    rest = (await gql(ITEMS, t=thread, first=2, after=after))["thread"]["items"]
    assert places([e["node"] for e in rest["edges"]]) == [(2, 0, "DECISION"), (2, 1, "COMMAND")]


async def test_kinds_and_run_ordinals_filter_inputs_too(gql: GraphQLClient) -> None:
    thread = await three_runs(gql)
    [(goals, _)] = await pages(gql, thread, first=50, kinds=["USER_GOAL"])
    assert places(goals) == [
        (1, -1, "USER_GOAL"),
        (2, -1, "USER_GOAL"),
        (2, 2, "USER_GOAL"),
        (3, -1, "USER_GOAL"),
    ]
    assert [n["text"] for n in goals] == ["request 1", "request 2", "goal 2", "request 3"]
    [(commands, _)] = await pages(gql, thread, first=50, kinds=["COMMAND", "DECISION"])
    assert all(n["index"] >= 0 for n in commands) and len(commands) == 6
    [(second, _)] = await pages(gql, thread, first=50, runs=[2])
    assert places(second) == [
        (2, -1, "USER_GOAL"),
        (2, 0, "DECISION"),
        (2, 1, "COMMAND"),
        (2, 2, "USER_GOAL"),
    ]
    paged = await pages(gql, thread, first=1, kinds=["USER_GOAL"], runs=[1, 3])
    assert places([n for nodes, _ in paged for n in nodes]) == [
        (1, -1, "USER_GOAL"),
        (3, -1, "USER_GOAL"),
    ]


async def test_rolled_back_runs_leave_the_pull_path_and_a_running_one_shows_its_input(
    gql: GraphQLClient,
) -> None:
    thread = await three_runs(gql)
    await gql(ROLLBACK, id=thread, to=1)
    await start(gql, thread, "codex", "request 4")  # in progress: its input, no items yet
    [(nodes, _)] = await pages(gql, thread, first=50)
    assert places(nodes) == [
        (1, -1, "USER_GOAL"),
        (1, 0, "DECISION"),
        (1, 1, "COMMAND"),
        (4, -1, "USER_GOAL"),
    ]
    assert nodes[-1]["text"] == "request 4"


# ---- every omitted entry can be pulled ----------------------------------------------

CAP = 300
START = """mutation($t: ID!) { startRun(threadId: $t, provider: "claude", input: "carry on") {
  providerThread { id nativeRef } handoffs { summaryText omitted { runOrdinal index kind } } } }"""


@pytest.fixture
async def small(clean_store: Store, tmp_path: Path) -> AsyncIterator[GraphQLClient]:
    async with with_claude_cap(clean_store, tmp_path, CAP) as client:
        yield client


async def test_every_omitted_entry_is_an_item_of_the_pull_path(small: GraphQLClient) -> None:
    gql = small
    thread = await new_thread(gql, "crowded")
    for n in range(1, 13):
        long_request = f"Request {n}: " + "please look at this part of the code " * 12
        commands = [item("COMMAND", f"make part-{n}-{k} " + "y" * 100) for k in range(3)]
        await run_once(gql, thread, "codex", long_request, items=commands)
    started = (await gql(START, t=thread))["startRun"]
    await gql(ATTACH, id=started["providerThread"]["id"], ref="n-crowded")
    [handoff] = started["handoffs"]
    omitted = handoff["omitted"]
    inputs_left_out = [o for o in omitted if o["index"] == -1]
    assert inputs_left_out, "the budget is meant to leave some runs' inputs out"
    pulled = {
        (n["runOrdinal"], n["index"], n["kind"])
        for nodes, _ in await pages(gql, thread, first=7)
        for n in nodes
    }
    assert {(o["runOrdinal"], o["index"], o["kind"]) for o in omitted} <= pulled
