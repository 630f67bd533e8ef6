"""Input limits, GraphQL limits, production mode, error masking, atomic failures."""

from __future__ import annotations

import httpx
import strawberry

from api.graphql.errors import CodedErrors
from api.settings import Settings
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import COMPLETE, new_thread, run_once


async def test_text_name_and_list_limits(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    long_input = "x" * 100_001
    error = await gql.error(
        'mutation($t: ID!, $i: String!) { startRun(threadId: $t, provider: "codex", input: $i) '
        "{ strategy } }",
        t=thread,
        i=long_input,
    )
    assert error["extensions"]["code"] == "INVALID_INPUT" and "input" in error["message"]
    await gql.refused(
        "INVALID_INPUT", "mutation($t: String) { createThread(title: $t) { id } }", t="t" * 501
    )
    started = await gql(
        'mutation($t: ID!) { startRun(threadId: $t, provider: "codex", '
        'input: "ok") { run { id } } }',
        t=thread,
    )
    items = [{"kind": "DECISION", "text": "d"}] * 1001
    error = await gql.error(
        "mutation($r: ID!, $items: [RunItemInput!]) { completeRun(runId: $r, "
        "items: $items) { id } }",
        r=started["startRun"]["run"]["id"],
        items=items,
    )
    assert error["extensions"]["code"] == "INVALID_INPUT" and "1001" in error["message"]
    negative = {
        "diffSummary": [{"path": "a.py", "additions": -3, "deletions": 1, "changeKind": "M"}]
    }
    error = await gql.error(COMPLETE, runId=started["startRun"]["run"]["id"], checkpoint=negative)
    assert error["extensions"]["code"] == "INVALID_INPUT" and "a.py" in error["message"]
    still = await gql("query($t: ID!) { thread(id: $t) { runs { status } } }", t=thread)
    assert still["thread"]["runs"] == [{"status": "STARTING"}]  # nothing was written


async def test_graphql_depth_alias_and_token_limits(gql: GraphQLClient) -> None:
    deep = '{ thread(id: "x") { ' + "parent { " * 20 + "id" + " }" * 20 + " } }"
    assert (await gql.error(deep))["extensions"]["code"] == "INVALID_INPUT"
    aliases = "{ " + " ".join(f"a{n}: providers {{ kind }}" for n in range(40)) + " }"
    assert (await gql.error(aliases))["extensions"]["code"] == "INVALID_INPUT"
    tokens = "{ providers { " + " ".join(["kind"] * 6000) + " } }"
    assert (await gql.error(tokens))["extensions"]["code"] == "INVALID_INPUT"


async def test_oversized_body_is_413(http: httpx.AsyncClient) -> None:
    body = '{"query": "{ providers { kind } }", "pad": "' + "x" * (5 * 1024 * 1024) + '"}'
    response = await http.post(
        "/graphql", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"


async def test_production_mode_has_no_graphiql_or_introspection(clean_store: Store) -> None:
    async with make_app_client(clean_store, Settings(production=True)) as http:
        page = await http.get("/graphql", headers={"accept": "text/html"})
        assert "GraphiQL" not in page.text
        body = await http.post("/graphql", json={"query": "{ __schema { types { name } } }"})
        assert body.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
        works = await http.post("/graphql", json={"query": "{ providers { kind } }"})
        assert works.json()["data"]["providers"]


async def test_unexpected_errors_are_masked_with_a_correlation_id() -> None:
    @strawberry.type
    class Query:
        @strawberry.field
        def boom(self) -> str:
            raise RuntimeError("secret internals at /srv/app.py line 3")

    schema = strawberry.Schema(query=Query, extensions=[CodedErrors])
    result = await schema.execute("{ boom }")
    [error] = result.errors or []
    assert error.extensions is not None and error.extensions["code"] == "INTERNAL"
    assert error.extensions["correlationId"] in error.message
    assert "secret" not in error.message and "Traceback" not in error.message


async def test_failed_mutation_writes_nothing(store: Store, clean_store: Store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    file = tmp_path / "providers.toml"
    file.write_text("[providers.mute]\naccepts_handoff = false\n")
    async with make_app_client(clean_store, Settings(providers_file=file)) as http:
        gql = GraphQLClient(http)
        thread = await new_thread(gql)
        await run_once(gql, thread, "codex")

        async def count(tx: Tx) -> int:
            row = await tx.row("testing/count_nodes")
            return int(row["nodes"]) if row else -1

        before = await store.read(count)
        await gql.refused(
            "UNSUPPORTED_TRANSFER",
            'mutation($t: ID!) { startRun(threadId: $t, provider: "mute", '
            'input: "x") { strategy } }',
            t=thread,
        )
        assert await store.read(count) == before


async def test_a_request_runs_one_mutation_field_or_none(gql: GraphQLClient) -> None:
    two = (
        'mutation { a: createThread(id: "first-of-two") { id } '
        'b: startRun(threadId: "nope", provider: "codex", input: "x") { strategy } }'
    )
    error = await gql.refused("INVALID_INPUT", two)
    assert "createThread, startRun" in error["message"], error
    through_a_fragment = (
        'mutation { ...Both } fragment Both on Mutation { createThread(id: "first-of-two") '
        '{ id } again: createThread(id: "second-of-two") { id } }'
    )
    await gql.refused("INVALID_INPUT", through_a_fragment)
    found = await gql(
        '{ a: thread(id: "first-of-two") { id } b: thread(id: "second-of-two") { id } }'
    )
    assert found == {"a": None, "b": None}  # refused before anything ran
    one = await gql('mutation { __typename createThread(id: "alone") { id } }')
    assert one["createThread"]["id"] == "alone"
