"""Schema-driven fuzzing: valid operations built from schema.graphql, sent to the app.

hypothesis-graphql builds queries and mutations from the published schema: any root
fields, any selection, argument values of the declared types. ID arguments are the ids of
a seeded workspace as often as random strings, so commands reach real threads, runs,
handoffs and transfers; DateTime and JSON arguments have strategies of their own; strings
are random or the service's provider kinds and a few reused words (commandIds that two
commands share). The workspace is not wiped between operations: each one meets what the
earlier ones left, as in a long-lived service.

Every answer must be JSON, never an HTTP 5xx, and every error must carry a code other than
INTERNAL. The app runs in-process (no network, no server start-up), with an exception that
escapes it answered as HTTP 500.

Bounded for the normal suite: `DEFAULT_EXAMPLES` operations at most, in batches of
`BATCH`, none started after `DEFAULT_SECONDS` (seeding not counted). Before a release, a
longer run: `THREADLINE_FUZZ_EXAMPLES=20000` (no time bound then, unless
`THREADLINE_FUZZ_SECONDS` sets one). Seeded: the same code sends the same operations.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import graphql
import httpx
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis_graphql import from_schema, nodes

from api.cli.demo import seed_demo
from api.cli.demo_client import typed_client
from api.settings import Settings
from graph.errors import ErrorCode
from graph.store import Store
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.served import FLOOD_RATE

SCHEMA = (Path(__file__).parents[2] / "schema.graphql").read_text()
DEFAULT_EXAMPLES = 1000
DEFAULT_SECONDS = 35.0
# Every code a client may be answered with; INTERNAL is a bug.
CODES = {code.value for code in ErrorCode} - {ErrorCode.INTERNAL.value}

IDS = """
query($root: ID!) {
  providers { kind }
  lineage(threadId: $root, direction: DESCENDANTS, depth: 100) {
    nodes { thread {
      id createdAt
      runs(includeRolledBack: true) { id startedAt checkpoint { id } contextHandoffs { id } }
      providerThreads { id handoffs { id } }
      incomingTransfers { id }
    } }
  }
}
"""
EVENTS = "query($id: ID!) { events(threadId: $id, first: 200) { id at } }"


def budget() -> tuple[int, float | None]:
    """How many operations, and for how many seconds at most (None: no time bound)."""
    examples = os.environ.get("THREADLINE_FUZZ_EXAMPLES")
    seconds = os.environ.get("THREADLINE_FUZZ_SECONDS")
    if examples is None:
        return DEFAULT_EXAMPLES, float(seconds or DEFAULT_SECONDS)
    return int(examples), float(seconds) if seconds else None


EXAMPLES, SECONDS = budget()


@dataclass
class Workspace:
    """What the seeded workspace holds, as the fuzzer's arguments use it."""

    ids: list[str]
    instants: list[datetime]
    words: list[str]


async def seeded_workspace(gql: GraphQLClient) -> Workspace:
    demo = await seed_demo(typed_client(gql.http))
    found = await gql(IDS, root=demo.root)
    ids: list[str] = []
    instants: list[datetime] = []
    for node in found["lineage"]["nodes"]:
        thread = node["thread"]
        ids.append(thread["id"])
        instants.append(datetime.fromisoformat(thread["createdAt"]))
        for run in thread["runs"]:
            ids.append(run["id"])
            instants.append(datetime.fromisoformat(run["startedAt"]))
            ids.extend(h["id"] for h in run["contextHandoffs"])
            if run["checkpoint"]:
                ids.append(run["checkpoint"]["id"])
        for pt in thread["providerThreads"]:
            ids.append(pt["id"])
            ids.extend(h["id"] for h in pt["handoffs"])
        ids.extend(x["id"] for x in thread["incomingTransfers"])
        events = await gql(EVENTS, id=thread["id"])
        ids.extend(e["id"] for e in events["events"])
    # Order kept as found, not sorted: server-made ids are random, their positions are not.
    unique = list(dict.fromkeys(ids))
    kinds = [p["kind"] for p in found["providers"]]
    return Workspace(unique, instants, [*kinds, "c-1", "c-2"])


def json_value(value: Any) -> graphql.ValueNode:
    """A JSON value as the GraphQL literal the JSON scalar reads."""
    if value is None:
        return nodes.Null
    if isinstance(value, bool):
        return nodes.Boolean(value)
    if isinstance(value, int):
        return nodes.Int(value)
    if isinstance(value, float):
        return nodes.Float(value)
    if isinstance(value, str):
        return nodes.String(value)
    if isinstance(value, list):
        return nodes.List([json_value(item) for item in value])
    return nodes.Object(
        [
            graphql.ObjectFieldNode(name=graphql.NameNode(value=key), value=json_value(item))
            for key, item in value.items()
        ]
    )


# The alphabet hypothesis-graphql gives strings: any character UTF-8 can carry.
TEXT = st.text(st.characters(codec="utf-8", max_codepoint=0xFFFF, exclude_categories=["Cs"]))
GRAPHQL_NAMES = st.from_regex(r"[_A-Za-z][_0-9A-Za-z]{0,8}", fullmatch=True)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(GRAPHQL_NAMES, inner, max_size=4),
    max_leaves=12,
)
OFFSETS = [None, UTC, timezone(timedelta(hours=-12)), timezone(timedelta(hours=14))]


def operations(workspace: Workspace) -> st.SearchStrategy[str]:
    instants = st.sampled_from(workspace.instants) | st.datetimes(
        timezones=st.sampled_from(OFFSETS)
    )
    scalars: dict[str, st.SearchStrategy[graphql.ValueNode]] = {
        "ID": (st.sampled_from(workspace.ids) | TEXT).map(nodes.String)
        | st.integers(-(2**31), 2**31 - 1).map(nodes.Int),
        "String": (TEXT | st.sampled_from(workspace.words)).map(nodes.String),
        "DateTime": (instants.map(datetime.isoformat) | TEXT).map(nodes.String),
        "JSON": JSON_VALUES.map(json_value),
    }
    return from_schema(SCHEMA, custom_scalars=scalars)


# Each batch is one seeded Hypothesis run: the same operations on every run of the same
# code, and a time bound that can stop between runs (a run that stops drawing midway is
# an inconsistent test to Hypothesis).
BATCH = 100
RUN = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass
class Fuzz:
    http: httpx.AsyncClient = field(repr=False)
    operations: st.SearchStrategy[str] = field(repr=False)
    sent: int = 0
    answers: Counter[str] = field(default_factory=Counter)

    def run(self, loop: asyncio.AbstractEventLoop, examples: int, seconds: float | None) -> None:
        """Hypothesis in this thread, the app on `loop`: batches until `examples`
        operations are sent or `seconds` have passed."""
        deadline = None if seconds is None else time.monotonic() + seconds
        number = 0
        while self.sent < examples and (deadline is None or time.monotonic() < deadline):

            @seed(number)
            @settings(RUN, max_examples=min(BATCH, examples - self.sent))
            @given(operation=self.operations)
            def batch(operation: str) -> None:
                asyncio.run_coroutine_threadsafe(self.send(operation), loop).result()

            batch()
            number += 1

    async def send(self, operation: str) -> None:
        self.sent += 1
        response = await self.http.post("/graphql", json={"query": operation})
        problem = self.problem(response)
        if problem is not None:
            # Hypothesis names the example by how it was built: the text is said here.
            raise AssertionError(f"operation {self.sent}: {problem}\n{operation}")

    def problem(self, response: httpx.Response) -> str | None:
        """What is wrong with an answer, or None."""
        if response.status_code >= 500:
            return f"HTTP {response.status_code}: {response.text[:500]}"
        try:
            body = response.json()
        except ValueError:
            return f"HTTP {response.status_code}, not JSON: {response.text[:500]!r}"
        if not isinstance(body, dict):
            return f"an answer that is not an object: {body!r:.500}"
        errors = body.get("errors") or []
        if not errors:
            self.answers["ok"] += 1
            return None
        for error in errors:
            code = (error.get("extensions") or {}).get("code")
            if code not in CODES:
                return f"an error with code {code!r}: {error}"
            self.answers[code] += 1
        return None


async def test_schema_operations(clean_store: Store) -> None:
    async with make_app_client(
        clean_store, Settings(**FLOOD_RATE), raise_app_exceptions=False
    ) as http:
        workspace = await seeded_workspace(GraphQLClient(http))
        fuzz = Fuzz(http, operations(workspace))
        # Hypothesis calls its tests synchronously: it runs in a thread of its own while
        # this loop serves the app and the store.
        await asyncio.to_thread(fuzz.run, asyncio.get_running_loop(), EXAMPLES, SECONDS)
    print(f"\nschema fuzz: {fuzz.sent} operations sent, answers {dict(fuzz.answers)}")
    # A generator that stopped producing operations, or only refused ones, fuzzed nothing.
    assert fuzz.sent >= min(EXAMPLES, BATCH), fuzz.sent
    assert fuzz.answers["ok"] > 0, fuzz.answers
