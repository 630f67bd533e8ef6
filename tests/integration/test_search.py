"""Full-text search on Neo4j: ranked hits in titles, run inputs and items, a workspace's
own only, and an index built for what was written before it existed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from api.settings import Settings
from graph import migrations, queries
from graph.store import Store
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import As, run_once, tokens_file

SEARCH = """query($q: String!, $kinds: [RunItemKind!], $first: Int) {
  search(query: $q, kinds: $kinds, first: $first) {
    thread { id title } runOrdinal index kind snippet score } }"""
TOKENS = {"a": ("ws-a", "write"), "b": ("ws-b", "write")}


@pytest.fixture
async def clients(clean_store: Store, tmp_path: Path) -> AsyncIterator[dict[str, GraphQLClient]]:
    settings = Settings(tokens_file=tokens_file(tmp_path, TOKENS))
    async with make_app_client(clean_store, settings) as http:
        base = GraphQLClient(http)
        yield {name: As(base, name) for name in TOKENS}


async def seeded(gql: GraphQLClient) -> dict[str, str]:
    """Three threads: one about the retry policy in its title, input and a decision; one
    naming retries once, in an item; one about something else."""
    made = {}
    for ident, title in (
        ("retries", "Retry policy for the uploader"),
        ("cache", "Cache eviction"),
        ("docs", "Write the API docs"),
    ):
        await gql(
            "mutation($id: ID!, $t: String) { createThread(id: $id, title: $t) { id } }",
            id=ident,
            t=title,
        )
        made[ident] = ident
    await run_once(
        gql,
        "retries",
        "codex",
        "decide the retry policy: backoff and jitter",
        items=[
            {"kind": "DECISION", "text": "Retry policy: exponential backoff with full jitter"},
            {"kind": "COMMAND", "text": "pytest tests/test_upload.py"},
        ],
    )
    await run_once(
        gql,
        "cache",
        "codex",
        "pick an eviction rule",
        items=[{"kind": "DECISION", "text": "Use an LRU; a failed read is not retried as policy"}],
    )
    await run_once(gql, "docs", "claude", "document the endpoints")
    return made


async def test_hits_are_ranked_with_their_place_and_a_snippet(
    clients: dict[str, GraphQLClient],
) -> None:
    gql = clients["a"]
    await seeded(gql)
    hits = (await gql(SEARCH, q="retry policy"))["search"]
    places = [(h["thread"]["id"], h["runOrdinal"], h["index"], h["kind"]) for h in hits]
    # The retry thread's title, input and decision each hold both words: they rank above the
    # cache thread's item, which holds one ("policy"; "retried" is another word).
    assert set(places[:3]) == {
        ("retries", None, None, None),
        ("retries", 1, -1, "USER_GOAL"),
        ("retries", 1, 0, "DECISION"),
    }
    assert places[3:] == [("cache", 1, 0, "DECISION")]
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    for hit in hits:
        assert "policy" in hit["snippet"].lower()
    assert ("docs", None, None, None) not in places

    # A hit inside a run's input, and one inside an item, each where Thread.items has it.
    inputs = (await gql(SEARCH, q="jitter", kinds=["USER_GOAL"]))["search"]
    assert [(h["runOrdinal"], h["index"], h["kind"]) for h in inputs] == [(1, -1, "USER_GOAL")]
    assert "backoff and jitter" in inputs[0]["snippet"]
    items = (await gql(SEARCH, q="jitter", kinds=["DECISION"]))["search"]
    assert [(h["runOrdinal"], h["index"], h["kind"]) for h in items] == [(1, 0, "DECISION")]
    around = await gql(
        """query { thread(id: "retries") { items(runOrdinals: [1], kinds: [DECISION]) {
        edges { node { index text } } } } }"""
    )
    [edge] = around["thread"]["items"]["edges"]
    assert edge["node"]["index"] == 0 and "jitter" in edge["node"]["text"]

    assert len((await gql(SEARCH, q="retry policy", first=2))["search"]) == 2
    assert (await gql(SEARCH, q="nothing-like-this"))["search"] == []
    # Words of a query the index holds no word for match nothing (not every text).
    for unindexed in ("_", "_ __", "½", "²"):
        assert (await gql(SEARCH, q=unindexed, first=50))["search"] == [], unindexed
    assert (await gql(SEARCH, q="_", kinds=["DECISION"]))["search"] == []
    assert (await gql(SEARCH, q="jitter", kinds=[], first=None))["search"] == []  # no kinds


async def test_a_query_of_no_words_is_refused(clients: dict[str, GraphQLClient]) -> None:
    refused = await clients["a"].error(SEARCH, q=" ()*: ")
    assert refused["extensions"]["code"] == "INVALID_INPUT"
    # Lucene's syntax in a query is only a separator.
    await clients["a"](SEARCH, q='title:"x" AND (y OR z~) [a TO b] \\')


async def test_no_hit_from_another_workspace(clients: dict[str, GraphQLClient]) -> None:
    await seeded(clients["a"])
    assert (await clients["b"](SEARCH, q="retry policy"))["search"] == []
    await clients["b"]('mutation { createThread(id: "retries", title: "B retry") { id } }')
    hits = (await clients["b"](SEARCH, q="retry policy"))["search"]
    assert [(h["thread"]["title"], h["runOrdinal"]) for h in hits] == [("B retry", None)]


async def test_one_query_a_field_ranks_as_one_query_over_the_three_fields(
    clean_store: Store, clients: dict[str, GraphQLClient]
) -> None:
    gql = clients["a"]
    await seeded(gql)
    for n in range(6):  # texts of many lengths, so the scores differ
        await gql('mutation($id: ID!) { createThread(id: $id, title: "retry") { id } }', id=f"t{n}")
        await run_once(
            gql,
            f"t{n}",
            "codex",
            "retry " + "word " * n,
            items=[{"kind": "DECISION", "text": "policy " * (n + 1) + "other " * (6 - n)}],
        )
    hits = (await gql(SEARCH, q="retry policy", first=40))["search"]
    terms = "retry policy"
    async with clean_store._driver.session() as session:
        result = await session.run(
            queries.load("testing/search_one_query"),  # type: ignore[arg-type]
            lucene=f'+workspace:"ws-a"^0 +(title:({terms}) input:({terms}) text:({terms}))',
            workspace="ws-a",
            limit=200,
        )
        combined = [(row["text"], row["score"]) async for row in result]
    assert len(hits) == len(combined) > 12
    assert sorted(h["score"] for h in hits) == pytest.approx(sorted(s for _, s in combined))
    assert len({h["score"] for h in hits}) > 3


async def test_hits_of_rolled_back_runs_do_not_hide_the_live_ones(
    clients: dict[str, GraphQLClient],
) -> None:
    gql = clients["a"]
    await gql('mutation { createThread(id: "t", title: "Burrows") { id } }')
    long = "We chose to keep the pangolin as the mascot " + "and more words " * 20
    await run_once(gql, "t", "codex", "pick a mascot", items=[{"kind": "DECISION", "text": long}])
    for _ in range(2):  # short texts, so each ranks above the live decision
        await run_once(
            gql, "t", "codex", "again", items=[{"kind": "TODO", "text": "pangolin"}] * 60
        )
    await gql('mutation { rollbackThread(threadId: "t", toRunOrdinal: 1) { thread { id } } }')
    hits = (await gql(SEARCH, q="pangolin", first=5))["search"]
    assert [(h["runOrdinal"], h["index"], h["kind"]) for h in hits] == [(1, 0, "DECISION")]


async def test_the_migration_builds_the_index_for_data_written_before_it(
    clean_store: Store, gql: GraphQLClient
) -> None:
    async with clean_store._driver.session() as session:
        await session.run(queries.load("testing/drop_search_index"))  # type: ignore[arg-type]
    try:
        await gql('mutation { createThread(id: "old", title: "Written before the index") { id } }')
        await run_once(gql, "old", "codex", "an old input about sharding")
        await migrations.migrate(clean_store)
    finally:
        await migrations.migrate(
            clean_store
        )  # the index back for every later test, whatever happened
    hits = (await gql(SEARCH, q="sharding index"))["search"]
    assert {(h["thread"]["id"], h["index"]) for h in hits} == {("old", -1), ("old", None)}
