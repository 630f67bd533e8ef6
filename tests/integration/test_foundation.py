"""The skeleton: a thread round-trips through GraphQL and Neo4j; health, metrics, schema."""

from __future__ import annotations

import gc
from pathlib import Path

import httpx

from api.graphql.schema import build_schema
from api.process import collector
from api.settings import Settings
from graph import migrations
from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient

ROOT = Path(__file__).resolve().parents[2]


async def test_create_thread_round_trips_through_neo4j(gql: GraphQLClient, store: Store) -> None:
    created = await gql('mutation { createThread(title: "hello") { id title createdBy } }')
    thread_id = created["createThread"]["id"]
    read = await gql("query($id: ID!) { thread(id: $id) { id title } }", id=thread_id)
    assert read["thread"] == {"id": thread_id, "title": "hello"}

    async def count(tx: Tx) -> int:
        rows = await tx.rows("thread/by_ids", ids=[thread_id], workspace="default")
        return len(rows)

    assert await store.read(count) == 1


async def test_unknown_thread_is_null(gql: GraphQLClient) -> None:
    assert (await gql('{ thread(id: "nope") { id } }'))["thread"] is None


async def test_the_app_serves_with_its_start_up_objects_frozen(gql: GraphQLClient) -> None:
    """api/process/collector.py: the lifespan freezes what start-up built and collects the young
    generation less often (the test's own settings come back when it ends, test_collector)."""
    await gql('mutation { createThread(title: "gc") { id } }')
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD


async def test_health_ready_and_metrics(http: httpx.AsyncClient, gql: GraphQLClient) -> None:
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    ready = await http.get("/readyz")
    assert ready.status_code == 200
    await gql('mutation { createThread(title: "m") { id } }')
    metrics = (await http.get("/metrics")).text
    assert 'threadline_graphql_operations_total{operation="createThread"' in metrics
    assert "threadline_graphql_operation_seconds_bucket" in metrics


async def test_invalid_documents_get_a_code(gql: GraphQLClient) -> None:
    await gql.refused("INVALID_INPUT", "{ nosuchfield }")


def test_schema_file_matches_code() -> None:
    exported = build_schema(Settings()).as_str().strip()
    assert (ROOT / "schema.graphql").read_text().strip() == exported, (
        "schema.graphql is stale: run `threadline export-schema > schema.graphql`"
    )


async def test_migrations_are_idempotent(store: Store) -> None:
    """Migrating again changes no constraint or index, and every key has its workspace."""

    async def schema(tx: Tx) -> list[dict[str, object]]:
        return await tx.rows("testing/schema")

    await migrations.migrate(store)
    first = await store.read(schema)
    await migrations.migrate(store)
    assert await store.read(schema) == first
    by_name = {row["name"]: row for row in first}
    assert by_name["run_workspace_thread_ordinal"]["properties"] == [
        "workspace",
        "threadId",
        "ordinal",
    ]
    assert "run_thread_ordinal" not in by_name  # the key that let workspaces collide
