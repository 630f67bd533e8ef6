"""Lineage through time: `thread(asOf)` and `lineage(asOf)` on Neo4j, against an oracle.

The test replays the canonical example, then a rollback, a regenerated handoff, a fork
and more runs, logging what it did and what each mutation answered. After every step it
records the instant. The oracle rebuilds, from that log alone, each thread as it stood
after each step: which runs existed and their status, each provider thread's status and
coverage (by the definitions of SEMANTICS "Vocabulary"), each handoff's and transfer's
status. Asked `asOf` each recorded instant, the API must give exactly that, and exactly
what it answered without `asOf` right after the step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from api.settings import Settings
from graph.store import Store
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import ATTACH, new_thread, run_once

START = """mutation($t: ID!, $p: String!) { startRun(threadId: $t, provider: $p, input: "go") {
  run { id ordinal status } providerThread { id status nativeRef }
  handoffs { id status sourceThread { id } coveredRunOrdinals { from to } }
  consumedTransfers { id status } } }"""
COMPLETE = """mutation($id: ID!) { completeRun(runId: $id, nativeTurnRef: "turn") { status } }"""
ROLLBACK = """mutation($t: ID!, $to: Int!) { rollbackThread(threadId: $t, toRunOrdinal: $to) {
  rolledBackRuns { id status } supersededHandoffs { id status }
  affectedProviderThreads { id status } supersededTransfers { id status } } }"""
REGENERATE = """mutation($h: ID!) { regenerateHandoff(handoffId: $h) {
  id status sourceThread { id } toProviderThread { id } coveredRunOrdinals { from to } } }"""
FORK = """mutation($t: ID!, $run: ID!) { forkThread(sourceThreadId: $t, at: {runId: $run}) {
  id incomingTransfers { id status } } }"""
THREAD = """query($id: ID!, $at: DateTime) { thread(id: $id, asOf: $at) {
  id cleanContextRequested
  runs(includeRolledBack: true) { id ordinal status completedAt providerThread { id } }
  activeRun { ordinal }
  providerThreads { id status
    coverage { nativeRunOrdinals handoffIds coveredRunOrdinals missingRunOrdinals }
    handoffs { id status supersededBy { id } } }
  coverage { providerThreadId coveredRunOrdinals missingRunOrdinals }
  incomingTransfers { id status consumedBy { id } }
  outgoingTransfers { id status }
  children { id } } }"""
LINEAGE = """query($id: ID!, $at: DateTime) { lineage(threadId: $id, asOf: $at) {
  nodes { depth thread { id } } edges { from to sourceRunOrdinal } } }"""
HISTORY = ("COMPLETED", "FAILED")


@dataclass
class Run:
    thread: str
    ordinal: int
    provider_thread: str
    status: str


@dataclass
class Handoff:
    to: str
    about: str
    covered: range
    status: str = "READY"
    superseded_by: str | None = None


@dataclass
class Log:
    """What the test did, as the API answered it, folded into the state after each step."""

    runs: dict[str, Run] = field(default_factory=dict)
    pts: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (thread, status)
    handoffs: dict[str, Handoff] = field(default_factory=dict)
    transfers: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # to, from, status
    consumed: dict[str, str] = field(default_factory=dict)  # transfer -> run
    threads: list[str] = field(default_factory=list)

    def history(self, thread: str) -> list[int]:
        return sorted(
            r.ordinal for r in self.runs.values() if r.thread == thread and r.status in HISTORY
        )

    def coverage(self, pt: str) -> dict[str, list[Any]]:
        thread = self.pts[pt][0]
        history = self.history(thread)
        native = [
            r.ordinal
            for r in self.runs.values()
            if r.provider_thread == pt and r.status in HISTORY and r.thread == thread
        ]
        ready = [i for i, h in self.handoffs.items() if h.to == pt and h.status == "READY"]
        handed = {
            o for i in ready if self.handoffs[i].about == thread for o in self.handoffs[i].covered
        }
        covered = sorted(set(native) | (handed & set(history)))
        return {
            "nativeRunOrdinals": sorted(native),
            "handoffIds": ready,
            "coveredRunOrdinals": covered,
            "missingRunOrdinals": [o for o in history if o not in covered],
        }

    def thread(self, thread: str) -> dict[str, Any]:
        """The answer THREAD must give for `thread` as the log says it stands."""
        runs = sorted(
            (r for r in self.runs.values() if r.thread == thread), key=lambda r: r.ordinal
        )
        pts = [p for p, (t, _) in self.pts.items() if t == thread]
        return {
            "runs": [(r.ordinal, r.status, r.provider_thread) for r in runs],
            "active": next((r.ordinal for r in runs if r.status in ("STARTING", "RUNNING")), None),
            "pts": {p: (self.pts[p][1], self.coverage(p)) for p in pts},
            "handoffs": {
                p: {i: (h.status, h.superseded_by) for i, h in self.handoffs.items() if h.to == p}
                for p in pts
            },
            "in": {
                i: (s, self.consumed.get(i))
                for i, (to, _, s) in self.transfers.items()
                if to == thread
            },
            "out": {i: s for i, (_, src, s) in self.transfers.items() if src == thread},
            "children": sorted(t for t in self.threads if t != thread and self.is_child(t, thread)),
        }

    def is_child(self, child: str, parent: str) -> bool:
        return any(to == child and src == parent for to, src, _ in self.transfers.values())


def shape(answer: dict[str, Any]) -> dict[str, Any]:
    """A THREAD answer in the oracle's terms (runs without ids, coverage by id)."""
    return {
        "runs": [
            (r["ordinal"], r["status"], r["providerThread"]["id"] if r["providerThread"] else None)
            for r in answer["runs"]
        ],
        "active": answer["activeRun"]["ordinal"] if answer["activeRun"] else None,
        "pts": {p["id"]: (p["status"], p["coverage"]) for p in answer["providerThreads"]},
        "handoffs": {
            p["id"]: {
                h["id"]: (h["status"], h["supersededBy"]["id"] if h["supersededBy"] else None)
                for h in p["handoffs"]
            }
            for p in answer["providerThreads"]
        },
        "in": {
            x["id"]: (x["status"], x["consumedBy"]["id"] if x["consumedBy"] else None)
            for x in answer["incomingTransfers"]
        },
        "out": {x["id"]: x["status"] for x in answer["outgoingTransfers"]},
        "children": sorted(c["id"] for c in answer["children"]),
    }


class Replay:
    """Drives the API and logs each step; records the instant after it and the answers."""

    def __init__(self, gql: GraphQLClient) -> None:
        self.gql = gql
        self.log = Log()
        self.instants: list[tuple[datetime, dict[str, dict[str, Any]], dict[str, Any]]] = []

    async def step(self) -> None:
        """The instant after a step: the oracle's view and what the API says now."""
        now = {t: await self.gql(THREAD, id=t, at=None) for t in self.log.threads}
        at = datetime.now(UTC)
        oracle = {t: self.log.thread(t) for t in self.log.threads}
        self.instants.append((at, oracle, now))

    async def thread(self) -> str:
        thread = await new_thread(self.gql, "through time")
        self.log.threads.append(thread)
        await self.step()
        return thread

    async def start(self, thread: str, provider: str) -> dict[str, Any]:
        s = (await self.gql(START, t=thread, p=provider))["startRun"]
        pt = s["providerThread"]
        self.log.pts[pt["id"]] = (thread, pt["status"])
        self.log.runs[s["run"]["id"]] = Run(
            thread, s["run"]["ordinal"], pt["id"], s["run"]["status"]
        )
        for h in s["handoffs"]:
            cover = h["coveredRunOrdinals"]
            span = range(cover["from"], cover["to"] + 1)
            self.log.handoffs[h["id"]] = Handoff(
                pt["id"], h["sourceThread"]["id"], span, h["status"]
            )
        for x in s["consumedTransfers"]:
            to, src, _ = self.log.transfers[x["id"]]
            self.log.transfers[x["id"]] = (to, src, x["status"])
            self.log.consumed[x["id"]] = s["run"]["id"]
        await self.step()
        if pt["nativeRef"] is None:
            attached = await self.gql(ATTACH, id=pt["id"], ref=f"native-{pt['id']}", mode="LEGACY")
            self.log.pts[pt["id"]] = (thread, attached["attachNativeThread"]["status"])
            self.log.runs[s["run"]["id"]].status = "RUNNING"
            await self.step()
        return s

    async def complete(self, started: dict[str, Any]) -> None:
        done = await self.gql(COMPLETE, id=started["run"]["id"])
        self.log.runs[started["run"]["id"]].status = done["completeRun"]["status"]
        await self.step()

    async def run(self, thread: str, provider: str) -> dict[str, Any]:
        started = await self.start(thread, provider)
        await self.complete(started)
        return started

    async def rollback(self, thread: str, to: int) -> None:
        r = (await self.gql(ROLLBACK, t=thread, to=to))["rollbackThread"]
        for run in r["rolledBackRuns"]:
            self.log.runs[run["id"]].status = run["status"]
        for h in r["supersededHandoffs"]:
            self.log.handoffs[h["id"]].status = h["status"]
        for pt in r["affectedProviderThreads"]:
            self.log.pts[pt["id"]] = (thread, pt["status"])
        for x in r["supersededTransfers"]:
            to_, src, _ = self.log.transfers[x["id"]]
            self.log.transfers[x["id"]] = (to_, src, x["status"])
        await self.step()

    async def regenerate(self, handoff: str) -> str:
        new = (await self.gql(REGENERATE, h=handoff))["regenerateHandoff"]
        cover = new["coveredRunOrdinals"]
        self.log.handoffs[new["id"]] = Handoff(
            new["toProviderThread"]["id"],
            new["sourceThread"]["id"],
            range(cover["from"], cover["to"] + 1),
            new["status"],
        )
        old = self.log.handoffs[handoff]
        old.status, old.superseded_by = "SUPERSEDED", new["id"]
        await self.step()
        return str(new["id"])

    async def fork(self, thread: str, run: str) -> str:
        f = (await self.gql(FORK, t=thread, run=run))["forkThread"]
        self.log.threads.append(f["id"])
        for x in f["incomingTransfers"]:
            self.log.transfers[x["id"]] = (f["id"], thread, x["status"])
        await self.step()
        return str(f["id"])


async def test_the_graph_as_it_was_at_every_step(gql: GraphQLClient) -> None:
    replay = Replay(gql)
    thread = await replay.thread()
    started = [await replay.run(thread, p) for p in ["codex"] * 5 + ["claude"] * 3 + ["codex"]]
    c1, l1 = started[0]["providerThread"]["id"], started[5]["providerThread"]["id"]
    h1, h2 = started[5]["handoffs"][0]["id"], started[8]["handoffs"][0]["id"]
    await replay.rollback(thread, 5)
    assert replay.log.pts[c1][1] == "ROLLED_BACK" and replay.log.pts[l1][1] == "DIVERGENT"
    # H1 was injected into run 6, H2 covers 6-8: both left the history.
    assert {replay.log.handoffs[h].status for h in (h1, h2)} == {"SUPERSEDED"}
    fork = await replay.fork(thread, started[4]["run"]["id"])
    first = await replay.run(fork, "codex")  # a native fork of C1 at run 5
    await replay.run(thread, "codex")  # C1 is reused and ACTIVE again
    switched = await replay.run(thread, "claude")  # L1 diverged: a new claude provider thread
    assert first["consumedTransfers"][0]["status"] == "CONSUMED"
    h3 = switched["handoffs"][0]["id"]
    h3_again = await replay.regenerate(h3)

    # The log itself tells the story of the spec: the canonical table at run 9 ...
    at_run_9 = next(
        o
        for _, o, _ in replay.instants
        if len(o[thread]["runs"]) == 9 and o[thread]["runs"][-1][1] == "COMPLETED"
    )
    assert at_run_9[thread]["pts"][c1][1]["coveredRunOrdinals"] == list(range(1, 10))
    assert at_run_9[thread]["pts"][l1][1]["missingRunOrdinals"] == [9]
    assert at_run_9[thread]["handoffs"][c1] == {h2: ("READY", None)}

    for at, oracle, now in replay.instants:
        for thread_id in replay.log.threads:
            got = (await gql(THREAD, id=thread_id, at=at.isoformat()))["thread"]
            if thread_id not in oracle:
                assert got is None  # asked before it existed
                continue
            assert shape(got) == oracle[thread_id], at
            assert got == now[thread_id]["thread"], at  # exactly the answer given then
        lineage = (await gql(LINEAGE, id=thread, at=at.isoformat()))["lineage"]
        assert {n["thread"]["id"] for n in lineage["nodes"]} == set(oracle)
    assert replay.log.handoffs[h3].superseded_by == h3_again


async def test_before_a_thread_existed_and_in_the_future(gql: GraphQLClient) -> None:
    before = datetime.now(UTC) - timedelta(seconds=1)
    thread = await new_thread(gql, "young")
    assert (await gql(THREAD, id=thread, at=before.isoformat()))["thread"] is None
    lineage = (await gql(LINEAGE, id=thread, at=before.isoformat()))["lineage"]
    assert lineage == {"nodes": [], "edges": []}
    future = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    assert await gql(THREAD, id=thread, at=future) == await gql(THREAD, id=thread, at=None)
    # A time without a zone is UTC.
    naive = (datetime.now(UTC) + timedelta(days=1)).replace(tzinfo=None).isoformat()
    assert await gql(THREAD, id=thread, at=naive) == await gql(THREAD, id=thread, at=None)


EXPLAIN = """query($t: ID!, $p: String!, $at: DateTime) {
  explainStartContext(threadId: $t, provider: $p, asOf: $at) {
    strategy providerAction providerThread { id status } handoffStrategies coveredRunOrdinals
    tokenEstimate explanation recordedRun { ordinal } differsFromRecord } }"""
STARTED_AT = "query($id: ID!) { run(id: $id) { startedAt } }"


async def test_explain_start_context_replays_a_past_start(
    gql: GraphQLClient, clean_store: Store
) -> None:
    thread = await new_thread(gql, "post-mortem")
    started = [await run_once(gql, thread, p) for p in ["codex"] * 5 + ["claude"] * 3 + ["codex"]]
    run_9 = started[8]
    at = (await gql(STARTED_AT, id=run_9["run"]["id"]))["run"]["startedAt"]
    then = (await gql(EXPLAIN, t=thread, p="codex", at=at))["explainStartContext"]
    assert (then["strategy"], then["providerAction"]) == (
        run_9["strategy"],
        run_9["providerAction"],
    )
    assert then["providerThread"] == {"id": run_9["providerThread"]["id"], "status": "ACTIVE"}
    assert then["handoffStrategies"] == [h["strategy"] for h in run_9["handoffs"]]
    assert then["coveredRunOrdinals"] == [6, 7, 8]
    assert then["tokenEstimate"] == sum(h["tokenEstimate"] for h in run_9["handoffs"])
    assert then["recordedRun"] == {"ordinal": 9} and not then["differsFromRecord"]
    assert "recorded this same decision" in then["explanation"][-1]
    now = (await gql(EXPLAIN, t=thread, p="codex", at=None))["explainStartContext"]
    assert now["strategy"] == "NO_HANDOFF" and now["recordedRun"] is None

    # Today's settings would retire the codex thread (3 runs elsewhere > 2): the replay
    # differs, and the run's record is what the answer gives.
    async with make_app_client(clean_store, Settings(max_off_provider_runs=2)) as http:
        strict = await GraphQLClient(http)(EXPLAIN, t=thread, p="codex", at=at)
    plan = strict["explainStartContext"]
    assert plan["differsFromRecord"] and plan["recordedRun"] == {"ordinal": 9}
    assert plan["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    assert plan["providerThread"]["id"] == run_9["providerThread"]["id"]
    assert plan["coveredRunOrdinals"] == then["coveredRunOrdinals"]
    assert "FULL_HANDOFF_NEW_THREAD" in plan["explanation"][-1]
    assert "the run's record is answered" in plan["explanation"][-1]

    # Another provider at that instant is another question: the replay alone.
    other = (await gql(EXPLAIN, t=thread, p="claude", at=at))["explainStartContext"]
    assert other["recordedRun"] is None and other["strategy"] == "NO_HANDOFF"  # L1 saw 1-8
    during = (datetime.fromisoformat(at) + timedelta(microseconds=1)).isoformat()
    await gql.refused("CONFLICT", EXPLAIN, t=thread, p="codex", at=during)
    before = (datetime.fromisoformat(at) - timedelta(days=1)).isoformat()
    await gql.refused("NOT_FOUND", EXPLAIN, t=thread, p="codex", at=before)
