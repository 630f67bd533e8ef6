"""Seeded random mutations from several clients on one family of related threads (roots,
forks, subagents, merge-backs, rollbacks, retries), then the invariants that must hold
whatever the interleaving.

Bounded for CI: `THREADLINE_LOAD_STEPS` (default 40) random steps (a run, a fork, a
rollback, ...) from each of `THREADLINE_LOAD_CLIENTS` (default 8) clients, seeded by
`THREADLINE_LOAD_SEED`. A count of steps, not a time: on a slow or cold server the
clients do as much as on a fast one, and only take longer.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from api.settings import Settings
from graph.store import Store
from resolvers.lineage.points import DELIVERED_TO_PARENT
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.served import FLOOD_RATE

STEPS = int(os.environ.get("THREADLINE_LOAD_STEPS", "40"))
CLIENTS = int(os.environ.get("THREADLINE_LOAD_CLIENTS", "8"))
SEED = int(os.environ.get("THREADLINE_LOAD_SEED", "32"))
PROVIDERS = ("codex", "claude")
# Refusals a racing client may meet; anything else (INTERNAL, UNAVAILABLE, ...) is a bug.
EXPECTED = frozenset({"CONFLICT", "INVALID_INPUT", "UNSUPPORTED_TRANSFER"})
IN_PROGRESS = frozenset({"STARTING", "RUNNING"})

CREATE = 'mutation($c: String) { createThread(title: "root", commandId: $c) { id } }'
START = """mutation($t: ID!, $p: String!, $c: String) {
  startRun(threadId: $t, provider: $p, input: "step", commandId: $c) {
    run { id } providerThread { id nativeRef } consumedTransfers { id } handoffs { id } } }"""
ATTACH = """mutation($id: ID!, $ref: String!, $c: String) {
  attachNativeThread(providerThreadId: $id, nativeRef: $ref, historyMode: LEGACY,
                     commandId: $c) { id } }"""
COMPLETE = """mutation($r: ID!, $cp: CheckpointInput, $c: String) {
  completeRun(runId: $r, nativeTurnRef: "turn", checkpoint: $cp, commandId: $c,
              items: [{kind: DECISION, text: "chose"}]) { id status } }"""
FAIL = """mutation($r: ID!, $c: String) {
  failRun(runId: $r, reason: "broke", commandId: $c) { id status } }"""
FORK = """mutation($t: ID!, $c: String) {
  forkThread(sourceThreadId: $t, at: {latestStable: true}, commandId: $c) {
    id incomingTransfers { sourcePoint { run { ordinal } } } } }"""
ROLLBACK = """mutation($t: ID!, $n: Int!, $c: String) {
  rollbackThread(threadId: $t, toRunOrdinal: $n, commandId: $c) {
    rolledBackRuns { id } supersededTransfers { id } supersededHandoffs { id } } }"""
MERGE_BACK = "mutation($f: ID!, $c: String) { mergeBack(forkThreadId: $f, commandId: $c) { id } }"
SPAWN = """mutation($r: ID!, $c: String) {
  spawnSubagent(parentRunId: $r, task: "look", commandId: $c) { id } }"""
COMPLETE_SUBAGENT = """mutation($t: ID!, $c: String) {
  completeSubagent(childThreadId: $t, result: "found", commandId: $c) { id } }"""

SNAPSHOT = """query($t: ID!) { thread(id: $t) {
  runs(includeRolledBack: true) { id ordinal status }
  incomingTransfers { id type status consumedBy { id } }
  coverage { providerThreadId nativeRunOrdinals } } }"""
EVENTS = """query($t: ID!, $a: ID) { events(threadId: $t, after: $a, first: 200) {
  id type runId payload } }"""


@dataclass
class Family:
    """What the clients know of the family: every thread, and which ones are forks and
    subagents (the targets of mergeBack and completeSubagent)."""

    threads: list[str] = field(default_factory=list)
    forks: list[str] = field(default_factory=list)
    subagents: list[str] = field(default_factory=list)
    failures: list[tuple[str, Any]] = field(default_factory=list)
    replays: int = 0


class Client:
    def __init__(self, gql: GraphQLClient, family: Family, rng: random.Random, name: str):
        self.gql, self.family, self.rng, self.name = gql, family, rng, name
        self.sent = 0

    async def send(self, query: str, **variables: Any) -> dict[str, Any] | None:
        """One mutation with a commandId of its own; an acknowledged one is sometimes sent
        again, as by a client that lost the answer: the retry must answer the same."""
        self.sent += 1
        command = f"{self.name}-{self.sent}"
        body = await self.gql.post(query, c=command, **variables)
        if not body.get("errors") and self.rng.random() < 0.1:
            # A refused command wrote no receipt, so only an acknowledged one must replay.
            again = await self.gql.post(query, c=command, **variables)
            self.family.replays += 1
            if again != body:
                self.family.failures.append(("replay answered otherwise", (body, again)))
        errors = body.get("errors")
        if errors:
            code = errors[0].get("extensions", {}).get("code")
            if code not in EXPECTED:
                self.family.failures.append((query.split("(")[0], errors))
            return None
        data: dict[str, Any] = body["data"]
        return data

    def thread(self) -> str:
        return self.rng.choice(self.family.threads)

    async def cycle(self, thread: str | None = None) -> None:
        """A run from start to its end, other clients' commands in between."""
        started = await self.send(START, t=thread or self.thread(), p=self.rng.choice(PROVIDERS))
        if started is None:
            return
        run, pt = started["startRun"]["run"]["id"], started["startRun"]["providerThread"]
        if pt["nativeRef"] is None:
            await self.send(ATTACH, id=pt["id"], ref=f"native-{pt['id']}")
        if self.rng.random() < 0.3:
            child = await self.send(SPAWN, r=run)
            if child is not None:
                self.family.threads.append(child["spawnSubagent"]["id"])
                self.family.subagents.append(child["spawnSubagent"]["id"])
        if self.rng.random() < 0.1:
            await self.send(FAIL, r=run)
        else:
            checkpoint = {"ref": f"ck-{run}", "diffSummary": []}
            await self.send(COMPLETE, r=run, cp=checkpoint if self.rng.random() < 0.7 else None)

    async def fork(self) -> None:
        """A fork; often its first start at once, sometimes while the source rolls back
        past the fork point (the two claim the fork's transfer)."""
        source = self.thread()
        forked = await self.send(FORK, t=source)
        if forked is None:
            return
        fork = forked["forkThread"]["id"]
        self.family.threads.append(fork)
        self.family.forks.append(fork)
        point = forked["forkThread"]["incomingTransfers"][0]["sourcePoint"]["run"]["ordinal"]
        chance = self.rng.random()
        if chance < 0.3:
            await self.cycle(fork)
        elif chance < 0.6:
            await asyncio.gather(self.cycle(fork), self.send(ROLLBACK, t=source, n=point - 1))

    async def rollback(self) -> None:
        await self.send(ROLLBACK, t=self.thread(), n=self.rng.randint(0, 4))

    async def merge_back(self) -> None:
        if self.family.forks:
            await self.send(MERGE_BACK, f=self.rng.choice(self.family.forks))

    async def complete_subagent(self) -> None:
        if self.family.subagents:
            await self.send(COMPLETE_SUBAGENT, t=self.rng.choice(self.family.subagents))

    async def run(self, count: int) -> None:
        steps = [self.cycle] * 5 + [self.fork] * 2 + [self.rollback] * 3
        steps += [self.merge_back, self.complete_subagent]
        for _ in range(count):
            await self.rng.choice(steps)()


async def page_events(gql: GraphQLClient, thread: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = None
    while True:
        page = (await gql(EVENTS, t=thread, a=after))["events"]
        events += page
        if len(page) < 200:
            return events
        after = page[-1]["id"]


def check_thread(snapshot: dict[str, Any]) -> list[str]:
    """What is wrong with one thread after the load (nothing, when the list is empty)."""
    wrong = []
    runs = snapshot["runs"]
    ordinals = sorted(r["ordinal"] for r in runs)
    if ordinals != list(range(1, len(runs) + 1)):
        wrong.append(f"ordinals {ordinals}")
    if sum(r["status"] in IN_PROGRESS for r in runs) > 1:
        wrong.append("more than one run in progress")
    history = {r["ordinal"] for r in runs if r["status"] not in {"ROLLED_BACK", *IN_PROGRESS}}
    native = [set(c["nativeRunOrdinals"]) for c in snapshot["coverage"]]
    if sum(len(n) for n in native) != len(set().union(*native)) or set().union(*native) != history:
        wrong.append(f"native coverage {native} does not partition history {sorted(history)}")
    rolled_back = {r["id"] for r in runs if r["status"] == "ROLLED_BACK"}
    for x in snapshot["incomingTransfers"]:
        consumed = x["consumedBy"] is not None
        if x["status"] == "CONSUMED" and not consumed:
            wrong.append(f"transfer {x['id']} is CONSUMED by no run")
        if x["status"] not in {"CONSUMED", "SUPERSEDED"} and consumed:
            wrong.append(f"transfer {x['id']} is {x['status']}, consumedBy {x['consumedBy']}")
        # Only a merge-back or subagent result is superseded once consumed: when the run
        # that consumed it was rolled back.
        if x["status"] == "SUPERSEDED" and consumed and not undelivered(x, rolled_back):
            wrong.append(f"transfer {x['id']} superseded and consumed by a live run")
    return wrong


def undelivered(transfer: dict[str, Any], rolled_back: set[str]) -> bool:
    """A merge-back or subagent result whose consuming run was rolled back."""
    consumer = transfer["consumedBy"]
    return (
        transfer["type"] in DELIVERED_TO_PARENT
        and consumer is not None
        and consumer["id"] in rolled_back
    )


def check_transfer_endings(
    transfers: dict[str, dict[str, Any]], events: list[dict[str, Any]]
) -> list[str]:
    """A transfer ends one way, and its log says the same, on whichever thread it is (a
    merge-back or subagent result its consumer's rollback undid: consumed, then superseded)."""
    endings: dict[str, list[str]] = {ident: [] for ident in transfers}
    for event in events:
        if event["type"] in ("transfer.consumed", "transfer.superseded"):
            ident = event["payload"]["transferId"]
            endings.setdefault(ident, []).append(event["type"])
    wrong = []
    expected = {"CONSUMED": ["transfer.consumed"], "SUPERSEDED": ["transfer.superseded"]}
    for ident, found in endings.items():
        status = transfers[ident]["status"] if ident in transfers else "unknown"
        undone = status == "SUPERSEDED" and transfers[ident]["consumedBy"] is not None
        wanted = ["transfer.consumed", "transfer.superseded"] if undone else expected.get(status)
        if found != (wanted or []):
            wrong.append(f"transfer {ident} is {status}; its log says {found}")
    return wrong


@pytest.fixture
async def patient_gql(clean_store: Store) -> AsyncIterator[GraphQLClient]:
    """The app with a budget that a busy 2-core box cannot run out of: this test looks
    for wrong answers, not slow ones."""
    async with make_app_client(clean_store, Settings(db_timeout_s=60, **FLOOD_RATE)) as http:
        http.timeout = httpx.Timeout(120)
        yield GraphQLClient(http)


async def test_a_family_under_random_concurrent_commands_stays_whole(
    patient_gql: GraphQLClient,
) -> None:
    gql = patient_gql
    rng = random.Random(SEED)
    family = Family()
    for n in range(2):
        family.threads.append((await gql(CREATE, c=f"root-{n}"))["createThread"]["id"])
    clients = [Client(gql, family, random.Random(rng.random()), f"c{n}") for n in range(CLIENTS)]
    await asyncio.gather(*[client.run(STEPS) for client in clients])
    assert family.failures == []
    assert sum(c.sent for c in clients) > 100 and family.replays > 0

    wrong: list[str] = []
    transfers: dict[str, dict[str, Any]] = {}
    every_event: list[dict[str, Any]] = []
    for thread in family.threads:
        snapshot = (await gql(SNAPSHOT, t=thread))["thread"]
        events = await page_events(gql, thread)
        every_event += events
        transfers.update({x["id"]: x for x in snapshot["incomingTransfers"]})
        wrong += [f"{thread}: {w}" for w in check_thread(snapshot)]
    wrong += check_transfer_endings(transfers, every_event)
    assert wrong == []
    assert any(x["status"] == "CONSUMED" for x in transfers.values())
    assert any(x["status"] == "SUPERSEDED" for x in transfers.values())
