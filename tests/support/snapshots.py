"""Snapshots in tests: the committed one each release makes, and exports to compare.

`python -m tests.support.snapshots FILE` (with THREADLINE_TEST_NEO4J_URI, and its password
when it has one) seeds workspace `snapshot` of that Neo4j with the demo family, a usage
limit reported and cleared, and a command with a commandId, then writes its snapshot to
FILE through `graph.backup`, as `threadline backup` does. The workspace must be empty.
"""

from __future__ import annotations

import asyncio
import io
import os
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory

from api.cli.demo import seed_demo
from api.cli.demo_client import typed_client
from api.settings import Settings
from graph import backup, migrations, queries
from graph.snapshot import Counts, Header, canonical, node_line, relationship_line, trailer_line
from graph.store import Store
from tests.support.graphql import GraphQLClient, connect_test_store, make_app_client
from tests.support.steps import tokens_file

WORKSPACE = "snapshot"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots"
TIMEOUT_S = 300.0
REPORT_LIMIT = """
mutation ($commandId: String) {
  reportProviderLimit(provider: "claude", reason: "5-hour limit reached",
    resetsAt: "2099-01-01T00:00:00Z", commandId: $commandId) { provider active }
}
"""
CLEAR_LIMIT = 'mutation { clearProviderLimit(provider: "claude") { provider active } }'


async def export(store: Store, workspace: str) -> str:
    """A workspace's snapshot text, taken as `threadline backup` takes it."""
    sink = io.StringIO()
    now = datetime.now(UTC).isoformat()
    await backup.backup(store, workspace, sink, now, TIMEOUT_S)
    return sink.getvalue()


async def canonical_export(store: Store, workspace: str) -> str:
    """A workspace's canonical export (graph.snapshot.canonical of its snapshot)."""
    return canonical((await export(store, workspace)).splitlines())


@contextmanager
def token_for(workspace: str) -> Iterator[tuple[Settings, str]]:
    """Settings whose tokens file holds one write token of `workspace`, and the token."""
    token = secrets.token_urlsafe(16)
    with TemporaryDirectory() as folder:
        tokens = tokens_file(Path(folder), {token: (workspace, "write")})
        yield Settings(tokens_file=tokens, db_timeout_s=TIMEOUT_S), token


async def seed(store: Store, workspace: str = WORKSPACE) -> None:
    """The demo family, a usage limit reported (with a commandId) and cleared."""
    with token_for(workspace) as (settings, token):
        async with make_app_client(store, settings) as http:
            http.headers["Authorization"] = f"Bearer {token}"
            await seed_demo(typed_client(http))
            gql = GraphQLClient(http)
            await gql(REPORT_LIMIT, commandId="snapshot-limit")
            await gql(CLEAR_LIMIT)


def tiny_snapshot(workspace: str, *, reverse: bool = False) -> list[str]:
    """A two-node snapshot of `workspace` (its nodes in reverse order with `reverse`)."""
    thread = {"labels": ["Thread"], "id": "t1", "element": "a"}
    run = {"labels": ["Run"], "id": "r1", "element": "b"}
    nodes = [
        node_line(thread, {"id": "t1", "workspace": workspace, "title": "x"}),
        node_line(run, {"id": "r1", "workspace": workspace, "ordinal": 1}),
    ]
    body = [*nodes[:: -1 if reverse else 1], relationship_line(thread, "HAS_RUN", run, {})]
    header = Header(workspace, queries.schema_version(), "2026-12-02T00:00:00+00:00")
    return [header.line(), *body, trailer_line(Counts(2, 1))]


async def _seeded_snapshot() -> str:
    store = connect_test_store(os.environ["THREADLINE_TEST_NEO4J_URI"])
    try:
        await migrations.migrate(store)
        await seed(store)
        return await export(store, WORKSPACE)
    finally:
        await store.close()


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(asyncio.run(_seeded_snapshot()))
