"""Tokens, scopes and workspaces, for every query and mutation of the contract."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from api.auth import TokenBook, refuse_open_public_bind
from api.settings import Settings
from graph.store import Store
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import As, tokens_file

TOKENS = {"alice-write": ("a", "write"), "alice-read": ("a", "read"), "bob": ("b", "admin")}


@pytest.fixture
async def secured(clean_store: Store, tmp_path: Path) -> AsyncIterator[GraphQLClient]:
    settings = Settings(tokens_file=tokens_file(tmp_path, TOKENS))
    async with make_app_client(clean_store, settings) as http:
        yield GraphQLClient(http)


async def alice_world(alice: GraphQLClient) -> dict[str, str]:
    """Workspace a: a thread with a codex run, a claude switch in progress, a fork."""
    t = (await alice('mutation { createThread(title: "secret", id: "shared-id") { id } }'))[
        "createThread"
    ]["id"]
    first = (
        await alice(
            """mutation($t: ID!) { startRun(threadId: $t, provider: "codex",
        input: "x") { run { id } providerThread { id } } }""",
            t=t,
        )
    )["startRun"]
    await alice(
        """mutation($p: ID!) { attachNativeThread(providerThreadId: $p,
        nativeRef: "n") { id } }""",
        p=first["providerThread"]["id"],
    )
    await alice(
        """mutation($r: ID!) { completeRun(runId: $r, checkpoint: {diffSummary: []})
        { id } }""",
        r=first["run"]["id"],
    )
    fork = (
        await alice(
            """mutation($t: ID!, $r: ID!) { forkThread(sourceThreadId: $t,
        at: {runId: $r}) { id incomingTransfers { id } } }""",
            t=t,
            r=first["run"]["id"],
        )
    )["forkThread"]
    second = (
        await alice(
            """mutation($t: ID!) { startRun(threadId: $t, provider: "claude",
        input: "y") { run { id } handoffs { id } } }""",
            t=t,
        )
    )["startRun"]
    checkpoint = (
        await alice("query($r: ID!) { run(id: $r) { checkpoint { id } } }", r=first["run"]["id"])
    )["run"]["checkpoint"]["id"]
    return {
        "thread": t,
        "run": first["run"]["id"],
        "pt": first["providerThread"]["id"],
        "fork": fork["id"],
        "transfer": fork["incomingTransfers"][0]["id"],
        "running": second["run"]["id"],
        "handoff": second["handoffs"][0]["id"],
        "checkpoint": checkpoint,
    }


QUERIES_BY_ID = {
    "thread": "query($id: ID!) { thread(id: $id) { id } }",
    "run": "query($id: ID!) { run(id: $id) { id } }",
    "pt": "query($id: ID!) { providerThread(id: $id) { id } }",
    "transfer": "query($id: ID!) { transfer(id: $id) { id } }",
    "handoff": "query($id: ID!) { handoff(id: $id) { id } }",
}

MUTATIONS: list[tuple[str, str, dict[str, str]]] = [
    (
        "startRun",
        'mutation($id: ID!) { startRun(threadId: $id, provider: "codex", input: "x") '
        "{ strategy } }",
        {"id": "thread"},
    ),
    (
        "attachNativeThread",
        'mutation($id: ID!) { attachNativeThread(providerThreadId: $id, nativeRef: "z") { id } }',
        {"id": "pt"},
    ),
    (
        "reportStartFailure",
        'mutation($id: ID!) { reportStartFailure(runId: $id, reason: "r") { strategy } }',
        {"id": "running"},
    ),
    ("completeRun", "mutation($id: ID!) { completeRun(runId: $id) { id } }", {"id": "running"}),
    (
        "failRun",
        'mutation($id: ID!) { failRun(runId: $id, reason: "r") { id } }',
        {"id": "running"},
    ),
    (
        "forkThread",
        "mutation($id: ID!, $r: ID!) { forkThread(sourceThreadId: $id, at: {runId: $r}) { id } }",
        {"id": "thread", "r": "run"},
    ),
    ("mergeBack", "mutation($id: ID!) { mergeBack(forkThreadId: $id) { id } }", {"id": "fork"}),
    (
        "spawnSubagent",
        'mutation($id: ID!) { spawnSubagent(parentRunId: $id, task: "t") { id } }',
        {"id": "running"},
    ),
    (
        "recordNativeSubagent",
        "mutation($id: ID!) { recordNativeSubagent(parentRunId: $id, "
        'provider: "codex", nativeRef: "q") { id } }',
        {"id": "running"},
    ),
    (
        "completeSubagent",
        'mutation($id: ID!) { completeSubagent(childThreadId: $id, result: "r") { id } }',
        {"id": "fork"},
    ),
    (
        "rollbackThread",
        "mutation($id: ID!) { rollbackThread(threadId: $id, toRunOrdinal: 0) { thread { id } } }",
        {"id": "thread"},
    ),
    (
        "regenerateHandoff",
        "mutation($id: ID!) { regenerateHandoff(handoffId: $id) { id } }",
        {"id": "handoff"},
    ),
    (
        "submitHandoffSummary",
        "mutation($id: ID!) { submitHandoffSummary(handoffId: $id, "
        'summaryText: "s", createdByProvider: "claude") { id } }',
        {"id": "handoff"},
    ),
    (
        "requestCleanContext",
        "mutation($id: ID!) { requestCleanContext(threadId: $id) { id } }",
        {"id": "thread"},
    ),
]


async def test_other_workspace_sees_nothing(secured: GraphQLClient) -> None:
    alice, bob = As(secured, "alice-write"), As(secured, "bob")
    world = await alice_world(alice)
    for key, query in QUERIES_BY_ID.items():
        assert (await alice(query, id=world[key])) != {key: None}
        found = await bob(query, id=world[key])
        assert list(found.values()) == [None], key
    assert (await bob("{ threads { edges { node { id } } } }"))["threads"]["edges"] == []
    assert (await bob("query($id: ID!) { events(threadId: $id) { id } }", id=world["thread"]))[
        "events"
    ] == []
    lineage = await bob(
        "query($id: ID!) { lineage(threadId: $id) { nodes { depth } } }", id=world["thread"]
    )
    assert lineage["lineage"]["nodes"] == []
    await bob.refused(
        "NOT_FOUND",
        'query($id: ID!) { explainStartContext(threadId: $id, provider: "codex") { strategy } }',
        id=world["thread"],
    )
    for name, query, variables in MUTATIONS:
        error = await bob.error(query, **{k: world[v] for k, v in variables.items()})
        assert error["extensions"]["code"] == "NOT_FOUND", name
    # the same client-chosen id is free in another workspace
    mine = await bob('mutation { createThread(id: "shared-id") { id } }')
    assert mine["createThread"]["id"] == "shared-id"
    assert (await alice('{ thread(id: "shared-id") { title } }'))["thread"]["title"] == "secret"


async def test_read_tokens_cannot_mutate(secured: GraphQLClient) -> None:
    alice, reader = As(secured, "alice-write"), As(secured, "alice-read")
    world = await alice_world(alice)
    assert (await reader(QUERIES_BY_ID["thread"], id=world["thread"]))["thread"] is not None
    await reader.refused("FORBIDDEN", "mutation { createThread { id } }")
    for name, query, variables in MUTATIONS:
        error = await reader.error(query, **{k: world[v] for k, v in variables.items()})
        assert error["extensions"]["code"] == "FORBIDDEN", name


@pytest.mark.parametrize("token", [None, "wrong-token"])
async def test_missing_or_bad_token_is_unauthenticated(
    secured: GraphQLClient, token: str | None
) -> None:
    anonymous = As(secured, token)
    for query in (
        "{ providers { kind } }",
        "mutation { createThread { id } }",
        '{ thread(id: "x") { id } }',
    ):
        await anonymous.refused("UNAUTHENTICATED", query)


@pytest.mark.parametrize("token", [None, "wrong-token"])
async def test_unauthenticated_callers_learn_nothing_of_the_schema(
    secured: GraphQLClient, token: str | None
) -> None:
    """A caller without a valid token is refused before the document is validated, so a
    misspelt field earns no "Did you mean ...?" naming the real ones."""
    anonymous = As(secured, token)
    for query in ("{ threadz { id } }", "{ thread(id: 1) { idd } }", "mutation { startRn }"):
        body = await anonymous.post(query)
        assert [e["extensions"]["code"] for e in body["errors"]] == ["UNAUTHENTICATED"]
        assert "thread" not in body["errors"][0]["message"].lower()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await secured.http.post("/graphql", json={"query": "{ x }"}, headers=headers)
    assert response.status_code == 401  # well-formed or not: the status says "sign in"


async def test_metrics_need_a_valid_token(secured: GraphQLClient) -> None:
    """/metrics counts every workspace's operations: no token, no counts."""
    for headers in ({}, {"Authorization": "Bearer wrong-token"}):
        refused = await secured.http.get("/metrics", headers=headers)
        assert refused.status_code == 401
        assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    read_only = {"Authorization": "Bearer alice-read"}
    mutation = {"query": 'mutation { createThread(id: "refused") { id } }'}
    forbidden = await secured.http.post("/graphql", json=mutation, headers=read_only)
    assert forbidden.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    scraped = await secured.http.get("/metrics", headers=read_only)
    assert scraped.status_code == 200
    assert "threadline_bolt_round_trips_total" in scraped.text
    # Refusals are counted, those before GraphQL runs too.
    events = {
        sample.labels["event"]: sample.value
        for family in text_string_to_metric_families(scraped.text)
        for sample in family.samples
        if sample.name == "threadline_audit_events_total"
    }
    assert events["unauthenticated"] >= 2 and events["forbidden"] >= 1, events


def test_open_service_binds_only_to_loopback() -> None:
    open_book = TokenBook.from_toml(None)
    for host in ("127.0.0.1", "::1", "localhost"):
        refuse_open_public_bind(host, open_book)
    with pytest.raises(ValueError, match="loopback"):
        refuse_open_public_bind("0.0.0.0", open_book)
    secured = TokenBook.from_toml(
        '[[tokens]]\nname="x"\nsha256="' + "0" * 64 + '"\nscopes=["read"]\nworkspace="w"\n'
    )
    refuse_open_public_bind("0.0.0.0", secured)
