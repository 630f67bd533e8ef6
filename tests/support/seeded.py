"""The demo graph the analysis and console tests read: seeded twice, into `default`
and into `other`, so an answer that crossed workspaces would not match."""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from api.cli.demo import DemoFamily, seed_demo
from api.cli.demo_client import typed_client
from api.settings import Settings
from graph.console import readonly
from graph.store import Store
from tests.support.family import Family
from tests.support.graphql import GraphQLClient, make_app_client, wipe


@dataclass
class Seeded:
    demo: DemoFamily
    family: Family
    gql: GraphQLClient
    other_root: str


@asynccontextmanager
async def seeded_demo(store: Store, folder: Path) -> AsyncIterator[Seeded]:
    await wipe(store)
    async with make_app_client(store) as http:
        gql = GraphQLClient(http)
        demo = await seed_demo(typed_client(gql.http))
        other = await _seed_other_workspace(store, folder)
        yield Seeded(demo, await Family.load(gql, demo.root), gql, other.root)


async def _seed_other_workspace(store: Store, folder: Path) -> DemoFamily:
    token = secrets.token_urlsafe(16)
    tokens = folder / "tokens.toml"
    tokens.write_text(
        f'[[tokens]]\nname = "other"\nsha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
        'scopes = ["write"]\nworkspace = "other"\n'
    )
    async with make_app_client(store, Settings(tokens_file=tokens)) as http:
        http.headers["Authorization"] = f"Bearer {token}"
        return await seed_demo(typed_client(http))


@contextmanager
def read_only_graph(neo4j_uri: str) -> Iterator[readonly.ReadOnlyGraph]:
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    auth = ("neo4j", password) if password else None
    with readonly.connect(neo4j_uri, auth, "neo4j") as connected:
        yield connected
