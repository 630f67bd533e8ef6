"""`threadline demo`: the family it seeds through GraphQL has every shape it promises."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
from click.testing import Result
from typer.testing import CliRunner

from api.cli import app
from api.cli import demo_runs as spec
from api.cli.demo import DemoStopped, seed_demo
from api.cli.demo_client import typed_client
from api.settings import Settings
from graph.runtime.ports import free_ports
from graph.store import Store
from graph.tx import Tx
from tests.support.family import Family
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.managed import cli, cli_env
from tests.support.outage import Outage
from tests.support.steps import tokens_file

STRATEGIES = "query($id: ID!) { transfer(id: $id) { status resolutionStrategy consumedBy { id } } }"


async def invoke(neo4j_uri: str, *args: str, **env: str) -> Result:
    """`threadline ARGS` in a worker thread: the command runs its own event loop. No service
    answers at its default THREADLINE_PORT, unless a test says otherwise."""
    (idle,) = free_ports(1)
    settings = {**cli_env(neo4j_uri), "THREADLINE_PORT": str(idle), **env}
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=settings)


def one_line(result: Result) -> str:
    """What a failed command said: exactly one line, no traceback (besides the line that
    says it runs in-process, and where)."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    (line,) = [each for each in lines if not each.startswith("in-process (")]
    return line


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


async def test_demo_command_seeds_only_its_workspace_and_says_nothing_else(
    neo4j_uri: str, gql: GraphQLClient, clean_store: Store, tmp_path: Path
) -> None:
    # A process of its own: no test harness's logging stands around the in-process app.
    (idle,) = free_ports(1)
    env = {**cli_env(neo4j_uri), "THREADLINE_PORT": str(idle)}
    result = await asyncio.to_thread(cli, tmp_path, "demo", "--workspace", "team-demo", **env)
    assert result.returncode == 0, result.stderr
    # One line says it writes in-process, and where; nothing else.
    assert result.stderr.splitlines() == [
        "in-process (--workspace team-demo is written directly): seeding "
        f"Neo4j at {neo4j_uri} (configured: THREADLINE_NEO4J_URI), workspace 'team-demo'"
    ]
    printed = printed_threads(result.stdout)
    [root] = re.findall(r"http://127\.0\.0\.1:\d+/lineage\?thread=(thr_\w+)", result.stdout)
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


async def test_a_service_that_refuses_connections_is_one_line(neo4j_uri: str) -> None:
    (port,) = free_ports(1)
    line = one_line(await invoke(neo4j_uri, "demo", "--url", f"http://127.0.0.1:{port}"))
    assert f"no Threadline answers at http://127.0.0.1:{port}" in line
    assert "scripts/serve" in line


async def test_a_graphql_address_is_taken_as_the_service(
    live: GraphQLClient, neo4j_uri: str
) -> None:
    base = str(live.http.base_url).rstrip("/")
    result = await invoke(neo4j_uri, "demo", "--url", f"{base}/graphql/")
    assert result.exit_code == 0, result.output
    root = printed_threads(result.output)["root"]
    assert f"Open {base}/lineage?thread={root}" in result.output


async def test_without_url_the_demo_seeds_the_service_that_answers(
    live: GraphQLClient, neo4j_uri: str
) -> None:
    port = str(live.http.base_url.port)
    result = await invoke(neo4j_uri, "demo", THREADLINE_PORT=port)
    assert result.exit_code == 0, result.output
    assert f"seeding the service at http://127.0.0.1:{port}" in result.output
    root = printed_threads(result.output)["root"]
    seen = await live("query($id: ID!) { thread(id: $id) { id } }", id=root)
    assert seen["thread"] == {"id": root}


async def test_a_neo4j_that_does_not_answer_is_one_line(neo4j_uri: str, tmp_path: Path) -> None:
    (port,) = free_ports(1)
    away = {"THREADLINE_NEO4J_URI": f"bolt://127.0.0.1:{port}", "THREADLINE_HOME": str(tmp_path)}
    result = await invoke(neo4j_uri, "demo", "--workspace", "team-demo", **away)
    line = one_line(result)
    assert f"Neo4j at bolt://127.0.0.1:{port}" in line and "unavailable" in line
    # It began nothing, so a rerun has nothing to carry on: it says the same one line.
    assert one_line(await invoke(neo4j_uri, "demo", "--workspace", "team-demo", **away)) == line


async def test_an_outage_while_seeding_is_retried_with_the_same_command_ids(
    clean_store: Store, http: httpx.AsyncClient
) -> None:
    """Neo4j away for five requests in a row: the first two answered UNAVAILABLE before
    anything ran, the next three after the command committed (its answer lost). The demo
    retries each step with its commandId, so nothing is written twice."""
    outage = Outage(http, away=range(10, 15), committed=range(12, 15))
    async with outage.client() as flaky:
        demo = await seed_demo(typed_client(flaky))
    assert outage.refused == 5
    assert await threads_by_workspace(clean_store) == {"default": len(demo.threads)}
    assert demo.rolled_back == {"portable_fork": [2, 3]}


async def test_a_step_that_keeps_failing_is_named_and_a_rerun_finishes_the_family(
    clean_store: Store, http: httpx.AsyncClient
) -> None:
    outage = Outage(http, away=range(30, 10_000))
    async with outage.client() as flaky:
        try:
            # Retried for 3 s, not a user's 60: how long changes nothing of what is said.
            await seed_demo(typed_client(flaky), key="rerun", retry_s=3)
        except DemoStopped as stopped:
            left, said = dict(stopped.family.threads), str(stopped)
        else:
            raise AssertionError("the demo went through an outage")
    assert "\n" not in said
    # Request 30 is step 30, unless a slow answer on a busy machine was retried before it.
    stopped_at = re.match(r"The demo stopped at step (\d+) \(\w+ [^)]+\): UNAVAILABLE", said)
    assert stopped_at and int(stopped_at.group(1)) <= 30, said
    assert left and all(f"{role} {ident}" in said for role, ident in left.items())
    assert "run the same command again to finish the family" in said
    assert ".." not in said and " 1 threads" not in said

    demo = await seed_demo(typed_client(http), key="rerun")
    assert {role: demo.threads[role] for role in left} == left  # the same threads, finished
    assert await threads_by_workspace(clean_store) == {"default": len(demo.threads)}
    assert len(demo.threads) == 6


async def test_a_service_that_wants_a_token_stops_the_demo_at_its_first_step(
    clean_store: Store, tmp_path: Path
) -> None:
    tokens = tokens_file(tmp_path, {"a-token": ("team", "write")})
    async with make_app_client(clean_store, Settings(tokens_file=tokens)) as http:
        try:
            await seed_demo(typed_client(http))
        except DemoStopped as stopped:
            said = str(stopped)
        else:
            raise AssertionError("seeded without a token")
    assert said.startswith("The demo stopped at step 1 (createThread root): UNAUTHENTICATED")
    assert "--token or THREADLINE_TOKEN" in said and said.endswith("It left no thread.")
