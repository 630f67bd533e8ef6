"""The harness as a client of the service: GraphQL over real HTTP, nothing in-process.

`ServiceThread` drives one app thread the way a coding-agent client does: startRun →
attachNativeThread → completeRun, switching provider every 10 runs (the issue's table),
with realistic items and checkpoints and a `commandId` on every mutation (a client that
retries must send one). Bolt round trips per operation come from the service's
`/metrics` (`threadline_bolt_round_trips_total`), read before and after an operation
while no other client is active.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bench import content
from graph.errors import ErrorCode
from graph.models import HistoryMode

PROVIDERS = ("codex", "claude")
SWITCH_EVERY = 10
HISTORY_MODES = {
    "codex": HistoryMode.PAGINATED,
    "claude": HistoryMode.UNKNOWN,
}  # as the bulk generator's clients
ROUND_TRIPS_METRIC = "threadline_bolt_round_trips_total"

CREATE_THREAD = """
mutation($title: String, $commandId: String) {
  createThread(title: $title, commandId: $commandId) { id }
}"""
START = """
mutation($threadId: ID!, $provider: String!, $input: String!, $model: String, $commandId: String) {
  startRun(threadId: $threadId, provider: $provider, input: $input, model: $model,
           commandId: $commandId) {
    strategy providerAction contextText
    run { id ordinal status }
    providerThread { id nativeRef }
  }
}"""
ATTACH = """
mutation($id: ID!, $ref: String!, $mode: HistoryMode, $commandId: String) {
  attachNativeThread(providerThreadId: $id, nativeRef: $ref, historyMode: $mode,
                     commandId: $commandId) { id status }
}"""
COMPLETE = """
mutation($runId: ID!, $turn: String, $items: [RunItemInput!], $checkpoint: CheckpointInput,
         $commandId: String) {
  completeRun(runId: $runId, nativeTurnRef: $turn, items: $items, checkpoint: $checkpoint,
              commandId: $commandId) { id status }
}"""
FAIL = """
mutation($runId: ID!, $reason: String!, $commandId: String) {
  failRun(runId: $runId, reason: $reason, commandId: $commandId) { id status }
}"""
FORK_AT_RUN = """
mutation($id: ID!, $runId: ID!, $title: String, $commandId: String) {
  forkThread(sourceThreadId: $id, at: {runId: $runId}, title: $title, commandId: $commandId) {
    id
  }
}"""
SPAWN = """
mutation($runId: ID!, $task: String!, $provider: String, $commandId: String) {
  spawnSubagent(parentRunId: $runId, task: $task, provider: $provider, commandId: $commandId) {
    id
  }
}"""
# The read: a thread's runs and the coverage of each of its provider threads.
THREAD_COVERAGE = """
query($id: ID!) {
  thread(id: $id) {
    runs { ordinal status }
    providerThreads { id coverage { nativeRunOrdinals coveredRunOrdinals missingRunOrdinals } }
  }
}"""
# Full-text search as an agent asks it: two words most generated threads hold.
SEARCH = """query($q: String!, $first: Int) { search(query: $q, first: $first) {
  thread { id } runOrdinal index score } }"""
# The thread list a UI opens on: the newest page of the workspace's threads.
THREADS_PAGE = """query($first: Int) { threads(first: $first, newestFirst: true) {
  edges { node { id } } pageInfo { hasNextPage } } }"""
LINEAGE = """
query($id: ID!, $depth: Int!) {
  lineage(threadId: $id, direction: BOTH, depth: $depth) {
    nodes { depth thread { id title } }
    edges { from to relationship sourceRunOrdinal }
  }
}"""


class BenchError(RuntimeError):
    """The service answered with an error (or not at all)."""

    def __init__(self, message: str, extensions: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.extensions = extensions or {}


class GraphQL:
    """Posts GraphQL documents with a bearer token; answers `data` or raises BenchError.

    On aiohttp rather than httpx: the clients share the box with the service and Neo4j,
    and httpx spent about 1.2 ms of CPU per request against aiohttp's 0.3 ms (measured
    with bench/cpu.py), CPU the service's throughput figure would otherwise lose.
    """

    def __init__(self, base_url: str, token: str | None, connections: int = 64) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._connections = connections
        self._session: aiohttp.ClientSession | None = None
        # For each commandId sent, whether its latest answer was UNAVAILABLE with no outcome
        # ("nothing was written"): audited against the receipts in the graph
        # (bench/recovery.py). A commandId sent again may be written by the later request.
        self._unwritten: dict[str, bool] = {}

    @property
    def http(self) -> aiohttp.ClientSession:
        """Made on first use: an aiohttp session belongs to the running event loop."""
        if self._session is None:
            self._session = aiohttp.ClientSession(
                base_url=self.base_url,
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=120),
                connector=aiohttp.TCPConnector(limit=self._connections),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        try:
            async with self.http.post(
                "/graphql", json={"query": query, "variables": variables}
            ) as response:
                if "json" not in response.headers.get("content-type", ""):
                    text = await response.text()
                    raise BenchError(f"HTTP {response.status}: {text[:300]}")
                body = await response.json()
        except aiohttp.ClientError as error:
            raise BenchError(f"{type(error).__name__}: {error}") from error
        first = (body.get("errors") or [{}])[0]
        extensions = first.get("extensions", {})
        code = extensions.get("code")
        if isinstance(variables.get("commandId"), str):
            unwritten = code == ErrorCode.UNAVAILABLE and "outcome" not in extensions
            self._unwritten[variables["commandId"]] = unwritten
        if body.get("errors"):
            raise BenchError(f"{code or 'ERROR'}: {first.get('message')}", extensions)
        data: dict[str, Any] = body["data"]
        return data

    @property
    def said_unwritten(self) -> list[str]:
        """The commandIds whose latest answer said that nothing was written."""
        return [command for command, unwritten in self._unwritten.items() if unwritten]

    async def round_trips(self) -> int:
        """The service's Bolt round trips so far (all requests of the process)."""
        async with self.http.get("/metrics") as response:
            text = await response.text()
        for line in text.splitlines():
            if line.startswith(ROUND_TRIPS_METRIC + " "):
                return int(float(line.split()[1]))
        raise BenchError(f"/metrics has no {ROUND_TRIPS_METRIC}: is the service instrumented?")


@dataclass
class Timed:
    seconds: float
    round_trips: int | None = None


@dataclass
class Cycle:
    ordinal: int
    strategy: str
    start: Timed
    attach: Timed
    complete: Timed
    run_id: str = ""

    @property
    def seconds(self) -> float:
        return self.start.seconds + self.attach.seconds + self.complete.seconds


@dataclass
class ServiceThread:
    """One app thread driven through the service, provider switching every 10 runs."""

    gql: GraphQL
    thread_id: str
    rng: random.Random
    refs: dict[str, str] = field(default_factory=dict)  # provider thread id -> native ref
    ordinal: int = 0

    @classmethod
    async def create(cls, gql: GraphQL, rng: random.Random, title: str) -> ServiceThread:
        data = await gql(CREATE_THREAD, title=title, commandId=command_id(rng))
        return cls(gql, str(data["createThread"]["id"]), rng)

    async def cycle(
        self, count_round_trips: bool = False, during: Callable[[str], Awaitable[Any]] | None = None
    ) -> Cycle:
        """startRun → attachNativeThread → completeRun; each timed on its own. `during` is
        called with the run's id while it is in progress (to spawn subagents from it)."""
        provider = provider_at(self.ordinal + 1)
        said = content.run_content(self.rng, self.ordinal + 1, self.thread_id[-8:])
        started, start = await self._timed(
            count_round_trips,
            START,
            threadId=self.thread_id,
            provider=provider,
            input=said.input,
            model=content.model_for(provider),
            commandId=command_id(self.rng),
        )
        resolution = started["startRun"]
        run, pt = resolution["run"], resolution["providerThread"]
        self.ordinal = int(run["ordinal"])
        ref = pt["nativeRef"] or self.refs.get(pt["id"]) or native_ref(self.rng, provider)
        self.refs[pt["id"]] = ref
        _, attach = await self._timed(
            count_round_trips,
            ATTACH,
            id=pt["id"],
            ref=ref,
            mode=HISTORY_MODES[provider],
            commandId=command_id(self.rng),
        )
        if during is not None:
            await during(run["id"])
        _, complete = await self._timed(
            count_round_trips,
            COMPLETE,
            runId=run["id"],
            turn=f"turn-{self.ordinal}",
            items=said.items,
            checkpoint=said.checkpoint,
            commandId=command_id(self.rng),
        )
        return Cycle(self.ordinal, resolution["strategy"], start, attach, complete, run["id"])

    async def _timed(
        self, count: bool, query: str, **variables: Any
    ) -> tuple[dict[str, Any], Timed]:
        before = await self.gql.round_trips() if count else 0
        began = time.perf_counter()
        data = await self.gql(query, **variables)
        seconds = time.perf_counter() - began
        trips = await self.gql.round_trips() - before if count else None
        return data, Timed(seconds, trips)


def provider_at(ordinal: int) -> str:
    """Runs 1-10 on codex, 11-20 on claude, 21-30 on codex, ..."""
    return PROVIDERS[((ordinal - 1) // SWITCH_EVERY) % len(PROVIDERS)]


def command_id(rng: random.Random) -> str:
    return f"bench-{rng.getrandbits(96):024x}"


def native_ref(rng: random.Random, provider: str) -> str:
    return f"{provider}-{rng.getrandbits(48):012x}"


async def timed_query(
    gql: GraphQL, count_round_trips: bool, query: str, **variables: Any
) -> tuple[dict[str, Any], Timed]:
    before = await gql.round_trips() if count_round_trips else 0
    began = time.perf_counter()
    data = await gql(query, **variables)
    seconds = time.perf_counter() - began
    trips = await gql.round_trips() - before if count_round_trips else None
    return data, Timed(seconds, trips)
