"""`threadline demo`: the family it seeds through GraphQL has every shape it promises."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

from api.cli import app
from api.cli import demo_runs as spec
from api.cli.demo import seed_demo
from api.cli.demo_client import typed_client
from graph.store import Store, Tx
from tests.support.family import Family
from tests.support.graphql import GraphQLClient
from tests.support.managed import cli_env

STRATEGIES = "query($id: ID!) { transfer(id: $id) { status resolutionStrategy consumedBy { id } } }"


async def invoke(neo4j_uri: str, *args: str) -> Result:
    """`threadline ARGS` in a worker thread: the command runs its own event loop."""
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=cli_env(neo4j_uri))


async def test_demo_seeds_the_canonical_example_and_every_lineage_shape(
    gql: GraphQLClient,
) -> None:
    demo = await seed_demo(typed_client(gql.http))
    plan = [demo.starts[("root", n)]["strategy"] for n in range(1, 10)]
    assert plan == [
        *["NO_HANDOFF"] * 5,
        "FULL_HANDOFF_NEW_THREAD",
        "NO_HANDOFF",
        "NO_HANDOFF",
        "DELTA_HANDOFF_EXISTING_THREAD",
    ]
    assert demo.starts[("native_fork", 1)]["strategy"] == "NATIVE_FORK"
    assert demo.starts[("portable_fork", 1)]["strategy"] == "PORTABLE_CONTEXT"
    assert demo.starts[("subagent", 1)]["strategy"] == "PORTABLE_CONTEXT"
    assert demo.starts[("native_subagent", 1)]["strategy"] == "NO_HANDOFF"
    assert demo.starts[("root", 11)]["stalenessSignals"] == ["INCOMPATIBLE_SETTINGS"]
    assert demo.rolled_back == {"portable_fork": [2, 3]}

    status = {
        name: (await gql(STRATEGIES, id=ident))["transfer"]
        for name, ident in demo.transfers.items()
    }
    assert status["native_fork.merge"]["status"] == "CONSUMED"
    assert status["native_fork.merge"]["consumedBy"]["id"] == demo.runs[("root", 10)]
    assert status["native_fork.late_merge"]["status"] == "PENDING"
    assert status["abandoned_fork.fork"]["status"] == "SUPERSEDED"
    assert status["native_subagent.spawn"]["status"] == "RESOLVED_NATIVE"
    for result in ("subagent.result", "native_subagent.result"):
        assert status[result]["consumedBy"]["id"] == demo.runs[("root", 12)]


async def test_demo_lineage_and_content(gql: GraphQLClient) -> None:
    demo = await seed_demo(typed_client(gql.http))
    family = await Family.load(gql, demo.root)
    assert set(family.threads) == set(demo.threads.values())
    children = {
        (demo.role_of(e["from"]), demo.role_of(e["to"]), e["relationship"]) for e in family.edges
    }
    assert children == {
        ("root", "native_fork", "FORK"),
        ("root", "portable_fork", "FORK"),
        ("portable_fork", "abandoned_fork", "FORK"),
        ("root", "subagent", "SUBAGENT"),
        ("root", "native_subagent", "SUBAGENT"),
    }
    run = await gql(
        """query($id: ID!) { run(id: $id) { items { kind path attributes }
        checkpoint { ref diffSummary { path additions deletions changeKind } } } }""",
        id=demo.runs[("root", 2)],
    )
    sent = spec.ROOT_RUNS[1]
    assert [i["kind"] for i in run["run"]["items"]] == [i["kind"] for i in sent.run_items()]
    assert run["run"]["checkpoint"] == sent.checkpoint_input()


def printed_threads(output: str) -> dict[str, str]:
    """role → thread id, from the lines `threadline demo` prints."""
    return dict(re.findall(r"^(\w+) +(thr_\w+)$", output, flags=re.MULTILINE))


async def threads_by_workspace(store: Store) -> dict[str, int]:
    async def read(tx: Tx) -> list[dict[str, Any]]:
        return await tx.rows("testing/threads_by_workspace")

    return {row["workspace"]: row["threads"] for row in await store.read(read)}


async def test_demo_command_seeds_only_its_workspace(
    neo4j_uri: str, gql: GraphQLClient, clean_store: Store
) -> None:
    result = await invoke(neo4j_uri, "demo", "--workspace", "team-demo")
    assert result.exit_code == 0, result.output
    printed = printed_threads(result.output)
    [root] = re.findall(r"http://127\.0\.0\.1:\d+/lineage\?thread=(thr_\w+)", result.output)
    assert root == printed["root"]
    assert await threads_by_workspace(clean_store) == {"team-demo": len(printed)}
    # The open service is workspace `default`: it cannot see the demo's threads.
    assert (await gql("query($id: ID!) { thread(id: $id) { id } }", id=root))["thread"] is None


async def test_demo_command_seeds_a_running_service(live: GraphQLClient, neo4j_uri: str) -> None:
    base = str(live.http.base_url)
    result = await invoke(neo4j_uri, "demo", "--url", base)
    assert result.exit_code == 0, result.output
    printed = printed_threads(result.output)
    assert f"{base}/lineage?thread={printed['root']}" in result.output
    lineage = await live(
        "query($id: ID!) { lineage(threadId: $id) { nodes { thread { id } } } }", id=printed["root"]
    )
    assert {n["thread"]["id"] for n in lineage["lineage"]["nodes"]} == set(printed.values())
