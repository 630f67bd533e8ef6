"""Neo4j is SIGKILLed under load: what clients are told is true and bounded.

`threadline serve` starts its own Neo4j (its child, in a home of its own), six clients
write through it, and the Neo4j is killed mid-load, left down for a while, then started
again by the CLI without restarting the API. Half the clients send a commandId and
retry with it; the others never retry an attempt whose outcome may be unknown, and
give every attempt its own observable effect, so an audit through Bolt can tell which
attempts committed. Asserted:
- nothing acknowledged is lost; no attempt answered plain UNAVAILABLE committed (an
  answer that hid a commit must say `outcome: UNKNOWN`); a commandId is acted on once;
- every attempt gets an answer, and writes are acknowledged again once Neo4j is back;
- /readyz says why while Neo4j is dead, and the dead Neo4j is reaped (no zombie), its end
  told by `threadline neo4j status` in another process;
- recovery: with no API restart, /readyz answers 200 again and writes are acknowledged
  again (a probe's `createThread`, sent every 0.2 s, and the load's).
How soon after Neo4j answers Bolt again readiness and the first write come is printed,
not asserted (a busy machine moves it): `python -m bench recovery` measures it against
its target (docs/SCALING.md, "After Neo4j restarts"). The slowest answer against
DB_TIMEOUT_S and latency before and after the outage are printed too. Run with -s.

That serve is also where a first serve's start-up lines are checked, and a later serve's
on the Neo4j it started: each needs a Neo4j started cold, the slowest thing a test does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import GraphDatabase

from api.settings import Settings
from bench.recovery import first_bolt_answer, first_ready
from graph import queries
from graph.runtime.ports import free_ports
from tests.support.managed import borrowing_jars, cli, parent_of
from tests.support.served import FLOOD_ENV, USERS_DB_TIMEOUT_S
from tests.support.stages import STAGES, said_in_order, serving

# It starts processes of its own; on a busy machine Neo4j's first start and the service's
# first warm-up alone can take minutes.
pytestmark = [pytest.mark.process, pytest.mark.timeout(900)]
FIRST_READY_S = 480

WORKERS = 6
BASELINE_ACKS = 30  # acknowledged mutations before the kill
OUTAGE_S = 4.0
AFTER_ACKS = 30  # acknowledged mutations once latency has had time to settle
PHASE_TIMEOUT_S = 120.0
SETTLED_AFTER_READY_S = 1.0  # "within about a second of readiness"
# The service runs with the users' request bound (USERS_DB_TIMEOUT_S): its environment has
# no THREADLINE_* setting but those the fixture names.

CREATE = (
    'mutation($id: ID!, $c: String) { createThread(id: $id, title: "load", commandId: $c) { id } }'
)
START = (
    'mutation($t: ID!, $i: String!, $c: String) { startRun(threadId: $t, provider: "codex", '
    "input: $i, commandId: $c) { run { id } providerThread { id } } }"
)
ATTACH = (
    "mutation($p: ID!, $r: String!, $c: String) { attachNativeThread(providerThreadId: $p, "
    "nativeRef: $r, commandId: $c) { id } }"
)
COMPLETE = (
    "mutation($r: ID!, $t: String, $c: String) { completeRun(runId: $r, nativeTurnRef: $t, "
    "checkpoint: {diffSummary: []}, commandId: $c) { id } }"
)


@dataclass
class Attempt:
    kind: str
    effect: dict[str, str]  # what the audit looks for
    command_id: str | None
    started: float
    elapsed: float
    outcome: str  # ack, UNAVAILABLE, UNKNOWN, another code, or "transport"


@dataclass
class Load:
    base: str
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    attempts: list[Attempt] = field(default_factory=list)
    acked_commands: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    async def acknowledged(self, count: int, since: float) -> None:
        """Wait until `count` mutations started after `since` were acknowledged."""
        deadline = time.monotonic() + PHASE_TIMEOUT_S
        while sum(a.outcome == "ack" and a.started >= since for a in self.attempts) < count:
            assert time.monotonic() < deadline, f"the load made no progress: {self.lately()}"
            await asyncio.sleep(0.1)

    def lately(self) -> Counter[str]:
        """The outcomes of the last attempts, to say why the load is stuck."""
        return Counter(attempt.outcome for attempt in self.attempts[-50:]) + Counter(
            self.errors[-20:]
        )

    async def send(
        self,
        http: httpx.AsyncClient,
        kind: str,
        query: str,
        effect: dict[str, str],
        command_id: str | None,
        **variables: Any,
    ) -> dict[str, Any] | None:
        started = time.monotonic()
        try:
            response = await http.post(
                "/graphql", json={"query": query, "variables": {**variables, "c": command_id}}
            )
        except httpx.TransportError:
            self.attempts.append(Attempt(kind, effect, command_id, started, 0, "transport"))
            return None
        elapsed = time.monotonic() - started
        assert response.status_code < 500, response.text
        body = response.json()
        outcome = "ack"
        if body.get("errors"):
            extensions = body["errors"][0]["extensions"]
            outcome = extensions.get("outcome") or extensions["code"]  # UNKNOWN, COMMITTED
            self.errors.append(body["errors"][0]["message"])
        self.attempts.append(Attempt(kind, effect, command_id, started, elapsed, outcome))
        if outcome == "ack" and command_id:
            self.acked_commands.add(command_id)
        return body["data"] if outcome == "ack" else None

    async def step(
        self,
        http: httpx.AsyncClient,
        kind: str,
        query: str,
        key: str,
        command: bool,
        effect: dict[str, str],
        **variables: Any,
    ) -> dict[str, Any] | None:
        """One mutation until it is acknowledged. With a commandId, every retry sends the
        same id; without one, only an attempt known to have written nothing is retried,
        and each attempt carries its own effect (`key` + attempt number)."""
        for attempt in range(1000):
            if self.stop.is_set():
                return None
            tag = key if command else f"{key}-a{attempt}"
            shaped = {name: value.format(tag=tag) for name, value in effect.items()}
            args = {
                name: value.format(tag=tag) if isinstance(value, str) else value
                for name, value in variables.items()
            }
            data = await self.send(http, kind, query, shaped, key if command else None, **args)
            if data is not None:
                return data
            outcome = self.attempts[-1].outcome
            if not command and outcome != "UNAVAILABLE":
                return None  # unknown, made but unread, or refused: this cycle ends here
            await asyncio.sleep(0.05)
        return None

    async def worker(self, number: int) -> None:
        command = number % 2 == 0
        async with httpx.AsyncClient(base_url=self.base, timeout=60) as http:
            for cycle in range(100_000):
                if self.stop.is_set():
                    return
                await self.cycle(http, f"w{number}-{cycle}", command)

    async def cycle(self, http: httpx.AsyncClient, key: str, command: bool) -> None:
        created = await self.step(
            http,
            "createThread",
            CREATE,
            f"{key}-create",
            command,
            {"thread": "fault-{tag}"},
            id="fault-{tag}",
        )
        if created is None:
            return
        thread = created["createThread"]["id"]
        started = await self.step(
            http,
            "startRun",
            START,
            f"{key}-start",
            command,
            {"thread": thread, "input": "in-{tag}"},
            t=thread,
            i="in-{tag}",
        )
        if started is None:
            return
        run, pt = started["startRun"]["run"]["id"], started["startRun"]["providerThread"]["id"]
        if (
            await self.step(
                http,
                "attachNativeThread",
                ATTACH,
                f"{key}-attach",
                command,
                {"pt": pt, "ref": "ref-{tag}"},
                p=pt,
                r="ref-{tag}",
            )
            is None
        ):
            return
        await self.step(
            http,
            "completeRun",
            COMPLETE,
            f"{key}-complete",
            command,
            {"run": run, "turn": "turn-{tag}"},
            r=run,
            t="turn-{tag}",
        )


@dataclass
class FirstServe:
    """A first `threadline serve` in a new home: it starts a Neo4j of its own (its child)."""

    home: Path
    env: dict[str, str]  # its THREADLINE_ variables but the port
    base: str
    process: subprocess.Popen[str]
    said: list[str]  # what it said up to "ready at"


@pytest.fixture(scope="module")
def first_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstServe]:
    """Shared by the module's tests: one cold Neo4j start and warm-up, not one a test."""
    home = borrowing_jars(tmp_path_factory.mktemp("own") / "home")
    bolt, http, port = free_ports(3)
    env = {
        "THREADLINE_HOME": str(home),
        "THREADLINE_NEO4J_BOLT_PORT": str(bolt),
        "THREADLINE_NEO4J_HTTP_PORT": str(http),
        **{f"THREADLINE_{key}": value for key, value in FLOOD_ENV.items()},
    }
    try:
        with serving(port, env) as lines:
            said = said_in_order(lines, port, ("starting Neo4j",), FIRST_READY_S)
            yield FirstServe(home, env, f"http://127.0.0.1:{port}", lines.process, said)
    finally:
        Settings(home=home).local_neo4j().stop()
        shutil.rmtree(home, ignore_errors=True)


def test_a_first_and_a_later_serve_each_say_a_short_true_sequence(
    first_serve: FirstServe,
) -> None:
    bolt = first_serve.env["THREADLINE_NEO4J_BOLT_PORT"]
    # The jars are there already (the suite's): nothing is fetched, nothing said of it.
    assert first_serve.said[0] == f"starting Neo4j 5.26.30 at bolt://127.0.0.1:{bolt}"
    assert len(first_serve.said) == 1 + len(STAGES), first_serve.said
    (port,) = free_ports(1)
    with serving(port, first_serve.env) as lines:
        later = said_in_order(lines, port, ("Neo4j",), FIRST_READY_S)
    assert later[0] == f"Neo4j 5.26.30 already runs at bolt://127.0.0.1:{bolt}"
    assert len(lines.seen) == len(later), lines.seen


async def test_sigkill_under_load_answers_true_and_bounded(first_serve: FirstServe) -> None:
    base, home, serve = first_serve.base, first_serve.home, first_serve.process
    neo4j = Settings(home=home).local_neo4j()
    load = Load(base)
    workers = [asyncio.create_task(load.worker(n)) for n in range(WORKERS)]
    await load.acknowledged(BASELINE_ACKS, since=0.0)
    killed_at = time.monotonic()
    pid = neo4j.running_pid()
    assert pid is not None and parent_of(pid) == serve.pid
    os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(OUTAGE_S)
    reaped = not await asyncio.to_thread(Path(f"/proc/{pid}").exists)
    status = await asyncio.to_thread(cli, home, "neo4j", "status")  # from another process
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        down = await http.get("/readyz")
    bolt = asyncio.create_task(asyncio.to_thread(first_bolt_answer, neo4j.uri, neo4j.credentials()))
    readiness = asyncio.create_task(first_ready(base))
    probe = asyncio.create_task(first_write(base))
    restarted = await asyncio.to_thread(cli, home, "neo4j", "start")
    assert restarted.returncode == 0, restarted.stderr
    bolt_at, ready_at, probed_at = await bolt, await readiness, await probe
    await load.acknowledged(AFTER_ACKS, since=ready_at + SETTLED_AFTER_READY_S)
    load.stop.set()
    await asyncio.gather(*workers)

    audit = await asyncio.to_thread(audited, neo4j.uri, neo4j.credentials(), load)
    report(load, audit, killed_at, ready_at, USERS_DB_TIMEOUT_S)
    acked_at = min(
        a.started + a.elapsed for a in load.attempts if a.outcome == "ack" and a.started > killed_at
    )
    print(
        f"recovery: once Neo4j answered Bolt, /readyz was 200 after {ready_at - bolt_at:.2f} s, "
        f"the probe's createThread was acknowledged after {probed_at - bolt_at:.2f} s and the "
        f"first of the load's writes after {acked_at - bolt_at:.2f} s"
    )
    assert reaped, "the killed Neo4j is left a zombie of the API process"
    assert status.returncode == 4 and status.stdout.startswith("exited (signal SIGKILL)"), status
    assert down.status_code == 503 and "SIGKILL" in down.json()["reason"], down.text
    outcomes = Counter(a.outcome for a in load.attempts)
    assert outcomes["UNAVAILABLE"] > 0, "no outage was seen"
    assert outcomes["transport"] == 0, "a request got no answer at all"
    assert audit["lost"] == [], "acknowledged but not in the graph"
    assert audit["hidden"] == [], "answered UNAVAILABLE (nothing written) but committed"
    assert audit["falselyCommitted"] == [], "answered outcome COMMITTED but not in the graph"
    assert audit["unacted"] == [], "a commandId acknowledged without its effect"
    assert audit["duplicated"] == 0 and audit["halfApplied"] == 0
    settled = ready_at + SETTLED_AFTER_READY_S
    after = [a for a in load.attempts if a.outcome == "ack" and a.started >= settled]
    assert after, "nothing was acknowledged after Neo4j came back"


async def first_write(base: str) -> float:
    """When a `createThread` (one commandId, sent again every 0.2 s, as a client that checks
    the service can write would) is first acknowledged."""
    deadline = time.monotonic() + PHASE_TIMEOUT_S
    payload = {"query": CREATE, "variables": {"id": "fault-probe", "c": "fault-probe"}}
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if "errors" not in (await http.post("/graphql", json=payload)).json():
                    return time.monotonic()
            await asyncio.sleep(0.2)
    raise AssertionError("no write was acknowledged again")


def audited(uri: str, auth: tuple[str, str] | None, load: Load) -> dict[str, Any]:
    """Which attempts' effects are in the graph, and what a half-done write would leave."""
    rows = [{"i": index, "kind": a.kind, **a.effect} for index, a in enumerate(load.attempts)]
    with GraphDatabase.driver(uri, auth=auth) as driver:
        present_rows, _, _ = driver.execute_query(queries.load("testing/effects"), attempts=rows)
        integrity, _, _ = driver.execute_query(queries.load("testing/integrity"))
        duplicated, _, _ = driver.execute_query(queries.load("testing/duplicated_runs"))
    present = {row["i"] for row in present_rows}
    halves = integrity[0]
    return {
        "present": present,
        "lost": [a for i, a in enumerate(load.attempts) if a.outcome == "ack" and i not in present],
        "hidden": [
            a
            for i, a in enumerate(load.attempts)
            if a.command_id is None and a.outcome == "UNAVAILABLE" and i in present
        ],
        "falselyCommitted": [
            a for i, a in enumerate(load.attempts) if a.outcome == "COMMITTED" and i not in present
        ],
        "unacted": [
            a
            for i, a in enumerate(load.attempts)
            if a.command_id in load.acked_commands and a.outcome == "ack" and i not in present
        ],
        "duplicated": int(duplicated[0]["threads"]),
        "halfApplied": sum(int(halves[key]) for key in halves),
    }


def report(
    load: Load, audit: dict[str, Any], killed_at: float, ready_at: float, bound: float
) -> None:
    outcomes = Counter(a.outcome for a in load.attempts)
    unknown = [i for i, a in enumerate(load.attempts) if a.outcome == "UNKNOWN"]
    resolved = {
        a.command_id
        for a in load.attempts
        if a.command_id and a.outcome in ("UNKNOWN", "UNAVAILABLE", "transport")
    } & load.acked_commands
    during = [a.elapsed for a in load.attempts if killed_at <= a.started < ready_at]
    # Sent while Neo4j was down, answered with success once it was back: how long after.
    caught = [
        a.started + a.elapsed - ready_at
        for a in load.attempts
        if a.outcome == "ack" and killed_at <= a.started < ready_at
    ]
    before = [a.elapsed for a in load.attempts if a.outcome == "ack" and a.started < killed_at]
    after = [
        a.elapsed
        for a in load.attempts
        if a.outcome == "ack" and a.started >= ready_at + SETTLED_AFTER_READY_S
    ]
    print(
        f"\nfault test: sent {len(load.attempts)}, acknowledged {outcomes['ack']}, "
        f"unavailable {outcomes['UNAVAILABLE']}, unknown outcome {len(unknown)} "
        f"(committed {sum(1 for i in unknown if i in audit['present'])}), "
        f"made but unread {outcomes['COMMITTED']}, resolved by commandId {len(resolved)}, "
        f"lost {len(audit['lost'])}, "
        f"hidden commits {len(audit['hidden'])}, duplicated {audit['duplicated']}, "
        f"half-applied {audit['halfApplied']}; slowest answer "
        f"{max(a.elapsed for a in load.attempts):.2f} s (DB_TIMEOUT_S {bound:g} s), "
        f"slowest during the outage "
        f"{max(during, default=0):.2f} s; {len(caught)} sent while Neo4j was down succeeded, "
        f"the last {max(caught, default=0):.2f} s after /readyz was 200; median before the kill "
        f"{statistics.median(before) * 1000:.0f} ms, {SETTLED_AFTER_READY_S:g} s after ready "
        f"{statistics.median(after or [0]) * 1000:.0f} ms"
    )
