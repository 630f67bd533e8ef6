"""Workspaces that pick the same thread ids never meet.

Three workspaces run one scenario on the client-chosen thread id "shared": A and B
step by step at the same time, C alone afterwards. Every query of the contract must
then answer A and B exactly what it answers C (ids aside), nothing of the other
workspace may appear anywhere, and the threadEvents subscription of each workspace
delivers its own log and nothing else. Over real HTTP and a real websocket, against a
separate `threadline serve` with a tokens file.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import websockets

from graph.store import Store
from tests.support.graphql import GraphQLClient
from tests.support.served import serve
from tests.support.steps import ATTACH, COMPLETE, As, tokens_file

pytestmark = pytest.mark.process  # starts processes of its own

SHARED = "shared"
TOKENS = {"token-a": ("ws-a", "write"), "token-b": ("ws-b", "write"), "token-c": ("ws-c", "write")}
ITEMS = [
    {"kind": "USER_GOAL", "text": "ship the cache"},
    {"kind": "DECISION", "text": "use an LRU"},
    {"kind": "FILE_CHANGE", "text": "diff", "path": "cache.py", "attributes": {"additions": 3}},
]

START = """mutation($t: ID!, $p: String!, $i: String!) {
  startRun(threadId: $t, provider: $p, input: $i) {
    run { id ordinal } strategy providerAction contextText
    providerThread { id nativeRef } handoffs { id } consumedTransfers { id } } }"""
FORK = """mutation($t: ID!, $r: ID!) {
  forkThread(sourceThreadId: $t, at: {runId: $r}, title: "fork") { id } }"""
WORLD = """query($t: ID!) {
  thread(id: $t) {
    id title cleanContextRequested relationshipToParent
    parent { id } root { id } children { id title }
    activeRun { id } latestStableRun { id ordinal }
    runs(includeRolledBack: true) {
      id ordinal status provider input failureReason nativeTurnRef
      items { kind text path attributes } checkpoint { id ref }
      providerThread { id } contextHandoffs { id strategy }
    }
    providerThreads {
      id provider status nativeRef historyMode forkedFrom { id }
      firstRunOrdinal lastRunOrdinal nativeRunOrdinals
      coverage { nativeRunOrdinals handoffIds coveredRunOrdinals missingRunOrdinals }
      handoffs { id status strategy kind summaryText createdByProvider
                 coveredRunOrdinals { from to } supersededBy { id } }
    }
    coverage { providerThreadId coveredRunOrdinals missingRunOrdinals }
    incomingTransfers { id type status resolutionStrategy payload: sourceProvider
                        sourcePoint { run { id } } consumedBy { id } handoff { id } }
    outgoingTransfers { id type status targetThread { id } }
  }
  lineage(threadId: $t, depth: 5) {
    nodes { depth thread { id title } }
    edges { from to relationship sourceRunOrdinal }
  }
  events(threadId: $t, first: 200) { id type threadId runId payload }
  threads(first: 50) { edges { node { id title } } }
  explain: explainStartContext(threadId: $t, provider: "codex") {
    strategy providerAction coveredRunOrdinals handoffStrategies stalenessSignals
  }
}"""
BY_ID = {
    "run": "query($id: ID!) { found: run(id: $id) { id } }",
    "pt": "query($id: ID!) { found: providerThread(id: $id) { id } }",
    "handoff": "query($id: ID!) { found: handoff(id: $id) { id } }",
    "transfer": "query($id: ID!) { found: transfer(id: $id) { id } }",
    "thread": "query($id: ID!) { found: thread(id: $id) { id } }",
}
# The same lookup as of a past instant (read from the nodes' histories).
THEN = """query($id: ID!, $at: DateTime) { found: thread(id: $id, asOf: $at) {
  id runs { id } children { id } } }"""
SUBSCRIBE = "subscription($t: ID!) { threadEvents(threadId: $t) { id type runId payload } }"


@dataclass
class Workspace:
    """One workspace's client, what its mutations returned, and what it was streamed."""

    name: str
    token: str
    client: GraphQLClient
    ids: dict[str, set[str]] = field(default_factory=dict)
    handmade: set[str] = field(default_factory=set)  # threads made with another's fork id
    streamed: list[dict[str, Any]] = field(default_factory=list)

    def own(self, kind: str, ident: str) -> str:
        self.ids.setdefault(kind, set()).add(ident)
        return ident

    async def make(self, kind: str, query: str, **variables: Any) -> str:
        """A mutation whose one field answers a `kind` node's `{ id }`: that id, owned."""
        [made] = (await self(query, **variables)).values()
        return self.own(kind, made["id"])

    def all_ids(self) -> set[str]:
        return set().union(*self.ids.values())

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        return await self.client(query, **variables)

    async def run(self, thread: str, provider: str, text: str, ref: str) -> dict[str, Any]:
        """start → attach when the provider thread is new → complete; the start's answer."""
        started: dict[str, Any] = (await self(START, t=thread, p=provider, i=text))["startRun"]
        self.remember_start(started)
        pt = started["providerThread"]
        if pt["nativeRef"] is None:
            await self(ATTACH, id=pt["id"], ref=ref, mode="LEGACY")
        await self(
            COMPLETE,
            runId=started["run"]["id"],
            turn=f"turn-{started['run']['ordinal']}",
            items=ITEMS,
            checkpoint={"ref": f"ckpt-{text}", "diffSummary": []},
        )
        return started

    def remember_start(self, started: dict[str, Any]) -> None:
        self.own("run", started["run"]["id"])
        self.own("pt", started["providerThread"]["id"])
        for handoff in started["handoffs"]:
            self.own("handoff", handoff["id"])


async def scenario(ws: Workspace, other_fork: Callable[[], str]) -> AsyncIterator[None]:
    """Every mutation of the contract on thread "shared"; yields between steps."""
    title = f"{ws.name} secret"
    await ws('mutation($t: String) { createThread(id: "shared", title: $t) { id } }', t=title)
    yield
    first = await ws.run(SHARED, "codex", "one", "codex-native")
    await ws.run(SHARED, "codex", "two", "codex-native")
    yield
    await ws.run(SHARED, "claude", "three", "claude-native")
    yield
    fork = await ws.make("thread", FORK, t=SHARED, r=first["run"]["id"])
    ws.ids["fork"] = {fork}
    yield
    await ws.run(fork, "codex", "explore", "codex-fork")
    await ws.make("transfer", "mutation($f: ID!) { mergeBack(forkThreadId: $f) { id } }", f=fork)
    yield
    parent = (await ws(START, t=SHARED, p="codex", i="four"))["startRun"]
    ws.remember_start(parent)
    parent_run = parent["run"]["id"]
    child = await ws.make(
        "thread",
        'mutation($r: ID!) { spawnSubagent(parentRunId: $r, task: "look", provider: "claude")'
        " { id } }",
        r=parent_run,
    )
    await ws.make(
        "thread",
        'mutation($r: ID!) { recordNativeSubagent(parentRunId: $r, provider: "codex", '
        'nativeRef: "sub-native") { id } }',
        r=parent_run,
    )
    yield
    await ws.run(child, "claude", "sub work", "claude-sub")
    await ws.make(
        "transfer",
        'mutation($c: ID!) { completeSubagent(childThreadId: $c, result: "found it") { id } }',
        c=child,
    )
    await ws(COMPLETE, runId=parent_run, turn="turn-4", items=ITEMS, checkpoint=None)
    yield
    failing = (await ws(START, t=SHARED, p="claude", i="five"))["startRun"]
    ws.remember_start(failing)
    restarted = await ws(
        'mutation($r: ID!) { reportStartFailure(runId: $r, reason: "resume failed") '
        "{ providerThread { id } handoffs { id } run { id } } }",
        r=failing["run"]["id"],
    )
    ws.own("pt", restarted["reportStartFailure"]["providerThread"]["id"])
    await ws(ATTACH, id=restarted["reportStartFailure"]["providerThread"]["id"], ref="claude-2")
    await ws(
        'mutation($r: ID!) { failRun(runId: $r, reason: "tests broke") { id } }',
        r=failing["run"]["id"],
    )
    yield
    handoff = restarted["reportStartFailure"]["handoffs"][0]["id"]
    newer = await ws.make(
        "handoff", "mutation($h: ID!) { regenerateHandoff(handoffId: $h) { id } }", h=handoff
    )
    await ws.make(
        "handoff",
        'mutation($h: ID!) { submitHandoffSummary(handoffId: $h, summaryText: "by hand", '
        'createdByProvider: "claude") { id } }',
        h=newer,
    )
    await ws('mutation { requestCleanContext(threadId: "shared") { id } }')
    yield
    await ws('mutation { rollbackThread(threadId: "shared", toRunOrdinal: 3) { thread { id } } }')
    yield
    # A thread made by hand with the id the server gave the other workspace's fork.
    handmade = other_fork()
    ws.handmade.add(handmade)
    await ws('mutation($id: ID!) { createThread(id: $id, title: "by hand") { id } }', id=handmade)
    await ws.run(handmade, "codex", "hand", "codex-hand")
    await ws.run(fork, "claude", "fork again", "claude-fork")
    yield


async def interleaved(a: Workspace, b: Workspace) -> None:
    """Both scenarios, each step of A concurrent with the same step of B."""
    steps_a = scenario(a, lambda: next(iter(b.ids["fork"])))
    steps_b = scenario(b, lambda: next(iter(a.ids["fork"])))
    while True:
        done = await asyncio.gather(
            anext(steps_a, StopAsyncIteration), anext(steps_b, StopAsyncIteration)
        )
        if all(step is StopAsyncIteration for step in done):
            return


async def alone(c: Workspace) -> None:
    """C runs the same scenario with no one beside it (its 'other fork' is a fresh id)."""
    fresh = f"thr_{uuid.uuid4().hex}"
    async for _ in scenario(c, lambda: fresh):
        pass


def ids_in(answer: Any) -> set[str]:
    """Every value in the answer that looks like a server-made id."""
    text = json.dumps(answer)
    return set(re.findall(r"(?:thr|run|pth|hnd|xfr|ckp|evt)_[0-9a-f]{32}", text))


def normalized(answer: Any, workspace: str) -> Any:
    """The answer with server-made ids reduced to their kind, times dropped and lists
    sorted: what must be equal between workspaces that did the same things."""
    text = json.dumps(answer, sort_keys=True).replace(workspace, "WS")
    text = re.sub(r"(thr|run|pth|hnd|xfr|ckp|evt)_[0-9a-f]{32}", r"<\1>", text)
    text = re.sub(r'"\d{4}-\d\d-\d\dT[^"]*"', '"<time>"', text)
    return canonical(json.loads(text))


def canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return sorted((canonical(item) for item in value), key=lambda v: json.dumps(v))
    return value


@pytest.fixture(scope="module")
def secured_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("isolation")
    yield from serve(neo4j_uri, folder, TOKENS_FILE=str(tokens_file(folder, TOKENS)))


@pytest.fixture
async def workspaces(secured_api: str, clean_store: Store) -> AsyncIterator[dict[str, Workspace]]:
    async with httpx.AsyncClient(base_url=secured_api, timeout=60) as http:
        base = GraphQLClient(http)
        yield {
            token[-1]: Workspace(name=workspace, token=token, client=As(base, token))
            for token, (workspace, _) in TOKENS.items()
        }


async def stream(base: str, token: str, into: list[dict[str, Any]]) -> None:
    """Collect the threadEvents of "shared" as seen with `token`, until cancelled."""
    url = base.replace("http://", "ws://") + "/graphql"
    async with websockets.connect(
        url,
        subprotocols=[websockets.Subprotocol("graphql-transport-ws")],
        additional_headers={"Authorization": f"Bearer {token}"},
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {"query": SUBSCRIBE, "variables": {"t": SHARED}},
                }
            )
        )
        async for raw in ws:
            message = json.loads(raw)
            assert message["type"] == "next", message
            into.append(message["payload"]["data"]["threadEvents"])


async def caught_up(streamed: list[Any], expected: int) -> None:
    """Waits (up to 60 s, on a loaded box) until the feed has streamed `expected` events."""
    for _ in range(1200):
        if len(streamed) >= expected:
            return
        await asyncio.sleep(0.05)


async def test_same_ids_in_two_workspaces_never_meet(
    workspaces: dict[str, Workspace], secured_api: str
) -> None:
    a, b, c = workspaces["a"], workspaces["b"], workspaces["c"]
    await interleaved(a, b)
    # Subscribed after the thread exists: the stream replays the log, then follows it.
    listeners = [asyncio.create_task(stream(secured_api, ws.token, ws.streamed)) for ws in (a, b)]
    await alone(c)
    answers = {ws.name: await ws(WORLD, t=SHARED) for ws in (a, b, c)}
    for ws in (a, b):
        await caught_up(ws.streamed, len(answers[ws.name]["events"]))
    for listener in listeners:
        listener.cancel()

    reference = normalized(answers[c.name], c.name)
    for ws, other in ((a, b), (b, a)):
        answer = answers[ws.name]
        assert normalized(answer, ws.name) == reference, ws.name
        foreign = ids_in(answer) & (other.all_ids() - ws.handmade)
        assert not foreign, f"{ws.name} sees {other.name}'s objects: {foreign}"
        assert ws.streamed == [
            {k: e[k] for k in ("id", "type", "runId", "payload")} for e in answer["events"]
        ], f"{ws.name}'s subscription is not its own log"
        foreign_cursor = answers[other.name]["events"][0]["id"]
        refused = await ws.client.error(
            'query($a: ID) { events(threadId: "shared", after: $a) { id } }', a=foreign_cursor
        )
        assert refused["extensions"]["code"] == "INVALID_INPUT"
        await assert_by_id(ws, other)


async def assert_by_id(ws: Workspace, other: Workspace) -> None:
    """Every object is found by id in its own workspace and is null in the other."""
    lookups: list[Awaitable[dict[str, Any]]] = []
    expected: list[bool] = []
    for kind, query in BY_ID.items():
        for owner in (ws, other):
            for ident in sorted(owner.ids.get(kind, set())):
                lookups.append(ws(query, id=ident))
                expected.append(owner is ws or ident in ws.handmade)
    at = datetime.now(UTC).isoformat()
    for owner in (ws, other):
        for ident in sorted(owner.ids.get("thread", set())):
            lookups.append(ws(THEN, id=ident, at=at))
            expected.append(owner is ws or ident in ws.handmade)
    found = [answer["found"] is not None for answer in await asyncio.gather(*lookups)]
    assert found == expected
