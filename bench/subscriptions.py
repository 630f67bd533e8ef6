"""`python -m bench subscriptions`: can one API process hold many live subscribers?

One `threadline serve` holds `--threads` threads of one workspace and `--subscribers`
graphql-transport-ws connections, each with one `threadEvents` subscription, spread
evenly over the threads (1,000 over 100 by default: 10 per thread). A writer then cycles
the threads through startRun → attachNativeThread → completeRun at a steady `--pace`
(mutations per second) for `--duration` seconds. Every event each subscriber receives is
matched with the mutation that caused it: right after each mutation is acknowledged the
writer reads the thread's new events (`events(after:)`), so it knows exactly which
events that mutation wrote. The figures: delivery latency (receive time minus the
mutation's acknowledgement, and minus its sending), whether every subscriber received
every event of its thread once and in order, and the API process's RSS idle, with every
subscriber connected, and at its peak during the writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import neo4j
import typer

from bench import service
from bench.cli import NEO4J_PASSWORD, NOTE, OTHER_NEO4J_URI, OTHER_OUTPUT
from bench.client import GraphQL, ServiceThread
from bench.measure import stderr_log
from bench.results import Stat, percentile
from bench.runner import machine, versions

WORKSPACE = "subs"
PROTOCOL = "graphql-transport-ws"
TARGET_P99_S = 1.0
TARGET_RSS_MB = 400.0
CONNECTING = 50  # sockets opening at once: a crowd reconnecting, not a stampede
WARM_CYCLES = 3  # on a thread nobody watches, before anything is measured
SETTLE_S = 2.0  # after a phase, before its RSS is read: buffers freed, the loop idle
DRAIN_S = 30.0  # how long the subscribers may take to receive the last writes' events
SUBSCRIBE = """
subscription($id: ID!) { threadEvents(threadId: $id) { id type } }"""
EVENTS = """
query($id: ID!, $after: ID, $first: Int!) {
  events(threadId: $id, after: $after, first: $first) { id }
}"""
PAGE = 100
Log = Callable[[str], None]


def api_env(subscribers: int, poll_s: float) -> dict[str, str]:
    """The API's settings for this benchmark, beside service.API_RATE_LIMIT (which lifts
    the per-token rate limit: every `subscribe` takes from it, 1,000 in a few seconds).
    All the subscribers share one token, so its cap on open connections (20 by default,
    meant for one client) is raised to their number."""
    return {
        "THREADLINE_MAX_CONNECTIONS_PER_TOKEN": str(subscribers),
        "THREADLINE_SUBSCRIPTION_POLL_S": str(poll_s),
    }


class Acknowledging(GraphQL):
    """A GraphQL client that, while it writes `thread`, remembers for every event a
    mutation wrote when that mutation was sent and acknowledged.

    The writer sends one mutation at a time, so the thread's events after the last one
    seen, read right after an acknowledgement, are exactly that mutation's."""

    def __init__(self, base_url: str, token: str | None) -> None:
        super().__init__(base_url, token)
        self.thread: str | None = None
        self.caused: dict[str, tuple[float, float]] = {}  # event id -> (sent, acknowledged)
        self.last_event: dict[str, str | None] = {}  # thread -> the last event seen

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        sent = time.perf_counter()
        data = await super().__call__(query, **variables)
        acknowledged = time.perf_counter()
        if self.thread is not None and query.lstrip().startswith("mutation"):
            for event in await self.events_after(self.thread, self.last_event[self.thread]):
                self.caused[event] = (sent, acknowledged)
        return data

    async def events_after(self, thread: str, after: str | None) -> list[str]:
        """The ids of the thread's events after `after` (all of them for None), in order;
        remembered as the last seen."""
        found: list[str] = []
        while True:
            data = await super().__call__(EVENTS, id=thread, after=after, first=PAGE)
            page = [str(event["id"]) for event in data["events"]]
            found += page
            after = page[-1] if page else after
            if len(page) < PAGE:
                self.last_event[thread] = after
                return found

    def acknowledgements(self) -> list[float]:
        """Seconds from sending to acknowledgement of each timed mutation."""
        return [acked - sent for sent, acked in set(self.caused.values())]


@dataclass
class Inbox:
    """What one subscriber received: each event's id and when it arrived."""

    thread_id: str
    received: list[tuple[str, float]] = field(default_factory=list)
    error: str | None = None

    @property
    def ids(self) -> list[str]:
        return [event for event, _ in self.received]


async def listen(
    session: aiohttp.ClientSession, url: str, inbox: Inbox, gate: asyncio.Semaphore
) -> None:
    """One subscriber: connect, subscribe to its thread, then note every event until
    cancelled. `gate` bounds how many connect at once."""
    try:
        async with contextlib.AsyncExitStack() as stack:
            async with gate:
                ws = await stack.enter_async_context(
                    session.ws_connect(url, protocols=(PROTOCOL,), max_msg_size=0)
                )
                await _handshake(ws, inbox.thread_id)
            await _read(ws, inbox)
    except (aiohttp.ClientError, TimeoutError, TypeError, ValueError, KeyError) as error:
        inbox.error = f"{type(error).__name__}: {error}"


async def _handshake(ws: aiohttp.ClientWebSocketResponse, thread_id: str) -> None:
    await ws.send_json({"type": "connection_init", "payload": {}})
    answer = await ws.receive_json(timeout=60)
    if answer.get("type") != "connection_ack":
        raise ValueError(f"connection_init answered {answer}")
    payload = {"query": SUBSCRIBE, "variables": {"id": thread_id}}
    await ws.send_json({"id": "1", "type": "subscribe", "payload": payload})


async def _read(ws: aiohttp.ClientWebSocketResponse, inbox: Inbox) -> None:
    async for message in ws:
        at = time.perf_counter()
        if message.type != aiohttp.WSMsgType.TEXT:
            continue
        body = json.loads(message.data)
        kind = body.get("type")
        if kind == "next" and not body["payload"].get("errors"):
            inbox.received.append((str(body["payload"]["data"]["threadEvents"]["id"]), at))
        elif kind == "ping":
            await ws.send_json({"type": "pong"})
        elif kind in ("next", "error", "complete"):
            inbox.error = json.dumps(body)[:300]
            return
    inbox.error = inbox.error or f"closed: {ws.close_code}"


@dataclass
class Delivery:
    """Every (event, subscriber) pair of the run, against what each should have had."""

    expected: int  # events x the subscribers of their thread, history included
    received: int
    lost: int
    duplicated: int
    out_of_order: int  # subscribers whose events did not arrive in the thread's order
    complete: int  # subscribers that got every event of their thread
    errors: list[str]
    since_ack: list[float]  # seconds, per timed (event, subscriber) pair
    since_sent: list[float]

    @classmethod
    def of(
        cls, inboxes: list[Inbox], expected: dict[str, list[str]], gql: Acknowledging
    ) -> Delivery:
        since_ack, since_sent = [], []
        lost = duplicated = out_of_order = complete = received = 0
        for inbox in inboxes:
            ids, wanted = inbox.ids, expected[inbox.thread_id]
            received += len(ids)
            lost += len(set(wanted) - set(ids))
            duplicated += len(ids) - len(set(ids))
            out_of_order += [i for i in ids if i in wanted] != [w for w in wanted if w in ids]
            complete += ids == wanted
            for event, at in inbox.received:
                if event in gql.caused:
                    sent, acked = gql.caused[event]
                    since_ack.append(at - acked)
                    since_sent.append(at - sent)
        return cls(
            expected=sum(len(expected[inbox.thread_id]) for inbox in inboxes),
            received=received,
            lost=lost,
            duplicated=duplicated,
            out_of_order=out_of_order,
            complete=complete,
            errors=[inbox.error for inbox in inboxes if inbox.error],
            since_ack=since_ack,
            since_sent=since_sent,
        )


@dataclass
class Memory:
    """The API process's RSS in MB (VmRSS; `hwm`: VmHWM, its peak over the whole run)."""

    idle: float = 0.0
    connected: float = 0.0
    writes_peak: float = 0.0
    hwm: float = 0.0


@dataclass
class Outcome:
    subscribers: int
    threads: int
    duration_s: float
    pace: float
    poll_s: float
    connect_s: float = 0.0
    writes_s: float = 0.0
    mutations: int = 0
    events_written: int = 0
    memory: Memory = field(default_factory=Memory)
    delivery: Delivery | None = None
    acks: list[float] = field(default_factory=list)
    load: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    started: str = field(default_factory=lambda: f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC")


def rss_mb(pid: int | None) -> tuple[float, float]:
    """(VmHWM, VmRSS) of the API process, 0 when it cannot be read."""
    found = service.memory_mb(pid) if pid is not None else None
    return found or (0.0, 0.0)


async def _sample_rss(pid: int | None, memory: Memory, stop: asyncio.Event) -> None:
    while not stop.is_set():
        memory.writes_peak = max(memory.writes_peak, rss_mb(pid)[1])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.2)


async def _write(
    gql: Acknowledging, threads: list[ServiceThread], duration_s: float, pace: float
) -> int:
    """Cycle the threads round robin, one mutation at a time, at `pace` mutations a
    second on average (slower if the service cannot keep it). Answers the mutations."""
    began, mutations = time.perf_counter(), 0
    for thread in itertools.cycle(threads):
        if time.perf_counter() - began >= duration_s:
            break
        gql.thread = thread.thread_id
        await thread.cycle()
        mutations += 3
        await asyncio.sleep(max(0.0, began + mutations / pace - time.perf_counter()))
    gql.thread = None
    return mutations


async def _until(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def _spread(threads: list[ServiceThread], subscribers: int) -> list[Inbox]:
    return [Inbox(threads[n % len(threads)].thread_id) for n in range(subscribers)]


async def measure(api: service.Api, outcome: Outcome, log: Log) -> Outcome:
    """Create the threads, connect the subscribers, write, and collect what arrived."""
    gql = Acknowledging(api.url, api.token(WORKSPACE))
    rng = random.Random()  # new commandIds on every run, also on a reused Neo4j
    url = api.url.replace("http://", "ws://") + "/graphql"
    headers = {"Authorization": f"Bearer {api.token(WORKSPACE)}"}
    session = aiohttp.ClientSession(headers=headers, connector=aiohttp.TCPConnector(limit=0))
    tasks: list[asyncio.Task[None]] = []
    try:
        threads = [
            await ServiceThread.create(gql, rng, f"Watched {n}") for n in range(outcome.threads)
        ]
        for thread in threads:
            await gql.events_after(thread.thread_id, None)
        warm = await ServiceThread.create(gql, rng, "Warm-up")
        for _ in range(WARM_CYCLES):  # the first cycles of a fresh process are slow
            await warm.cycle()
        await asyncio.sleep(SETTLE_S)
        outcome.memory.idle = rss_mb(api.pid)[1]
        log(f"{outcome.threads} threads; API RSS idle {outcome.memory.idle:.0f} MB")
        inboxes = _spread(threads, outcome.subscribers)
        gate, began = asyncio.Semaphore(CONNECTING), time.perf_counter()
        tasks = [asyncio.create_task(listen(session, url, i, gate)) for i in inboxes]
        await _until(lambda: all(i.received or i.error for i in inboxes), 600)
        outcome.connect_s = time.perf_counter() - began
        await asyncio.sleep(SETTLE_S)
        outcome.memory.connected = rss_mb(api.pid)[1]
        failed = sum(1 for i in inboxes if i.error)
        log(
            f"{outcome.subscribers - failed} subscribers in {outcome.connect_s:.1f} s "
            f"({failed} failed); API RSS {outcome.memory.connected:.0f} MB"
        )
        stop = asyncio.Event()
        sampler = asyncio.create_task(_sample_rss(api.pid, outcome.memory, stop))
        began = time.perf_counter()
        outcome.mutations = await _write(gql, threads, outcome.duration_s, outcome.pace)
        outcome.writes_s = time.perf_counter() - began
        stop.set()
        await sampler
        outcome.events_written = len(gql.caused)
        log(f"{outcome.mutations} mutations in {outcome.writes_s:.1f} s; draining")
        expected = {t.thread_id: await gql.events_after(t.thread_id, None) for t in threads}
        await _until(
            lambda: all(i.error or len(i.received) >= len(expected[i.thread_id]) for i in inboxes),
            DRAIN_S,
        )
        outcome.memory.hwm = rss_mb(api.pid)[0]
        outcome.delivery = Delivery.of(inboxes, expected, gql)
        outcome.acks = gql.acknowledgements()
        return outcome
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await session.close()
        await gql.close()


def _facts(neo4j_uri: str, auth: tuple[str, str] | None) -> dict[str, str]:
    with neo4j.GraphDatabase.driver(neo4j_uri, auth=auth) as driver:
        return {**machine(), **versions(driver, "neo4j")}


def run(
    folder: Path,
    neo4j_uri: str,
    auth: tuple[str, str] | None,
    outcome: Outcome,
    log: Log = stderr_log,
) -> Outcome:
    """One API process on the Neo4j at `neo4j_uri`, measured; stopped at the end."""
    outcome.facts = _facts(neo4j_uri, auth)
    outcome.load["start"] = os.getloadavg()
    env = api_env(outcome.subscribers, outcome.poll_s)
    api = service.start_api(folder, neo4j_uri, auth, "neo4j", [WORKSPACE], None, env)
    try:
        asyncio.run(measure(api, outcome, log))
    finally:
        api.stop()
    outcome.load["end"] = os.getloadavg()
    return outcome


# ---- the report ------------------------------------------------------------------------


def _ms(values: list[float], q: float) -> str:
    return f"{percentile(sorted(values), q) * 1000:.0f} ms" if values else "n/a"


def _verdict(met: bool) -> str:
    return "met" if met else "**MISSED**"


def _targets(outcome: Outcome, delivery: Delivery) -> list[str]:
    p99 = percentile(sorted(delivery.since_ack), 99) if delivery.since_ack else float("inf")
    peak = max(outcome.memory.connected, outcome.memory.writes_peak)
    return [
        "| figure | measured | target | verdict |",
        "| --- | --- | --- | --- |",
        f"| delivery latency p99 (receive - acknowledgement) | {p99 * 1000:.0f} ms | "
        f"< {TARGET_P99_S * 1000:.0f} ms | {_verdict(p99 < TARGET_P99_S)} |",
        f"| API RSS, {outcome.subscribers:,} subscribers, peak during the writes | "
        f"{peak:.0f} MB | < {TARGET_RSS_MB:.0f} MB | {_verdict(peak < TARGET_RSS_MB)} |",
        f"| (event, subscriber) pairs lost | {delivery.lost:,} of {delivery.expected:,} | 0 | "
        f"{_verdict(delivery.lost == 0)} |",
    ]


def _latency(delivery: Delivery) -> list[str]:
    rows = [("receive - acknowledgement", delivery.since_ack)]
    rows.append(("receive - sending", delivery.since_sent))
    table = [
        "| measured from | pairs | p50 | p95 | p99 | max |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, values in rows:
        cells = " | ".join(_ms(values, q) for q in (50, 95, 99, 100))
        table.append(f"| {label} | {len(values):,} | {cells} |")
    early = sum(1 for value in delivery.since_ack if value < 0)
    return [*table, "", f"{early:,} pairs arrived before the writer had the acknowledgement."]


def _events(outcome: Outcome, delivery: Delivery) -> list[str]:
    acks = Stat.of(outcome.acks) if outcome.acks else None
    lines = [
        f"- {outcome.mutations} mutations in {outcome.writes_s:.1f} s "
        f"({outcome.mutations / max(outcome.writes_s, 1e-9):.1f}/s asked {outcome.pace:g}/s); "
        f"they wrote {outcome.events_written} events.",
        f"- (event, subscriber) pairs: expected {delivery.expected:,} (every event of each "
        f"subscriber's thread, its history included), received {delivery.received:,}, lost "
        f"{delivery.lost:,}, duplicated {delivery.duplicated:,}; subscribers out of order "
        f"{delivery.out_of_order}, with every event {delivery.complete:,} of "
        f"{outcome.subscribers:,}.",
    ]
    if acks is not None:
        lines.append(
            f"- The writer's mutations, acknowledged in p50 {acks.p50:.0f} ms, "
            f"p99 {acks.p99:.0f} ms (each followed by its `events(after:)` read)."
        )
    if delivery.errors:
        lines.append(
            f"- {len(delivery.errors)} subscribers ended in error, e.g. `{delivery.errors[0]}`."
        )
    return lines


def _memory(outcome: Outcome) -> list[str]:
    memory = outcome.memory
    per_socket = (memory.connected - memory.idle) * 1024 / max(outcome.subscribers, 1)
    return [
        "| idle, before subscribers | subscribers connected | peak during the writes | "
        "VmHWM over the run |",
        "| --- | --- | --- | --- |",
        f"| {memory.idle:.0f} MB | {memory.connected:.0f} MB | {memory.writes_peak:.0f} MB | "
        f"{memory.hwm:.0f} MB |",
        "",
        f"About {per_socket:.0f} KB per connected subscriber (connected - idle, over "
        f"{outcome.subscribers:,}); the connections opened in {outcome.connect_s:.1f} s, "
        f"{CONNECTING} at a time.",
    ]


def _load(outcome: Outcome) -> str:
    def avg(key: str) -> str:
        return " / ".join(f"{value:.2f}" for value in outcome.load.get(key, ()))

    return f"start {avg('start')}, end {avg('end')} (1 / 5 / 15 min)"


def render(outcome: Outcome, command: str, notes: tuple[str, ...] = ()) -> str:
    delivery = outcome.delivery
    assert delivery is not None
    lines = [
        f"# Subscriptions: {outcome.subscribers:,} live subscribers on one API process",
        "",
        f"Produced by `{command}` (bench/README.md), started {outcome.started}.",
        "",
        *(line for note in notes for line in (f"> {note}", "")),
        "## Machine and versions",
        "",
        "| | |",
        "| --- | --- |",
        *(f"| {key} | {value} |" for key, value in outcome.facts.items()),
        f"| load average | {_load(outcome)} |",
        "",
        "## What ran",
        "",
        f"- One `threadline serve` process on a throwaway Neo4j 5.26 (or `--neo4j-uri`), "
        f"{outcome.threads} threads in workspace `{WORKSPACE}`.",
        f"- {outcome.subscribers:,} websocket connections (graphql-transport-ws, aiohttp, no "
        f"compression offered), one `threadEvents` subscription each, "
        f"{outcome.subscribers // max(outcome.threads, 1)} per thread, all with one token.",
        f"- A writer cycled the threads round robin through startRun → attachNativeThread → "
        f"completeRun, one mutation at a time, at {outcome.pace:g} mutations/s for "
        f"{outcome.duration_s:g} s.",
        f"- `THREADLINE_SUBSCRIPTION_POLL_S={outcome.poll_s:g}`: the API reads new events "
        "once per interval for all its subscribers, so delivery latency includes up to one "
        "interval of waiting (about half of one on average).",
        f"- Limits lifted for the bench: `THREADLINE_MAX_CONNECTIONS_PER_TOKEN="
        f"{outcome.subscribers}` (default 20, meant for one client: these sockets share one "
        "token) and the "
        "per-token rate limit (`THREADLINE_RATE_LIMIT_RPS` and `_BURST` 1,000,000, as for "
        "every bench API: each `subscribe` takes from it). Nothing else differs from "
        "`threadline serve`.",
        "- Latency of an (event, subscriber) pair: when the subscriber read the event, minus "
        "when the writer had the acknowledgement of the mutation that wrote it (and, second "
        "row, minus when it sent that mutation); one clock, the harness's.",
        "",
        "## Targets",
        "",
        *_targets(outcome, delivery),
        "",
        "## Delivery latency",
        "",
        *_latency(delivery),
        "",
        "## Events",
        "",
        *_events(outcome, delivery),
        "",
        "## API memory (RSS)",
        "",
        *_memory(outcome),
        "",
        "## What limits the figure",
        "",
        f"- The box has {os.cpu_count()} cores, shared by Neo4j, the API process and the "
        f"harness, which runs all {outcome.subscribers:,} clients and the writer in one "
        f"Python process: client-side parsing and scheduling are part of every latency. "
        f"Load average: {_load(outcome)}.",
        "- The poll interval bounds the median from below: an event waits for the next poll.",
    ]
    return "\n".join(lines) + "\n"


def _options(**values: object) -> Iterator[str]:
    for name, value in values.items():
        if value is not None:
            yield f"--{name.replace('_', '-')} {shlex.quote(str(value))}"


def _on_neo4j(outcome: Outcome, neo4j_uri: str | None, password: str | None) -> None:
    """`run` on the given Neo4j, or on a throwaway one started and stopped here."""
    with service.neo4j_or_throwaway("subscriptions", neo4j_uri, password) as (home, uri, auth):
        run(home / "runs", uri, auth, outcome)


SUBSCRIBERS = typer.Option(1000, "--subscribers", help="Websocket subscribers.")
THREADS = typer.Option(100, "--threads", help="Threads they watch, evenly.")
DURATION = typer.Option(60.0, "--duration", help="Seconds of writes.")
PACE = typer.Option(6.0, "--pace", help="Mutations per second, across the threads.")
POLL_S = typer.Option(0.5, "--poll-s", help="The API's THREADLINE_SUBSCRIPTION_POLL_S.")


def subscriptions(
    subscribers: int = SUBSCRIBERS,
    threads: int = THREADS,
    duration: float = DURATION,
    pace: float = PACE,
    poll_s: float = POLL_S,
    neo4j_uri: str | None = OTHER_NEO4J_URI,
    neo4j_password: str | None = NEO4J_PASSWORD,
    output: Path | None = OTHER_OUTPUT,
    note: str | None = NOTE,
) -> None:
    """Many websocket subscribers on one API process: delivery latency, lost events, RSS."""
    if subscribers < 1 or threads < 1 or threads > subscribers:
        raise typer.BadParameter("needs 1 <= --threads <= --subscribers")
    outcome = Outcome(subscribers, threads, duration, pace, poll_s)
    try:
        _on_neo4j(outcome, neo4j_uri, neo4j_password)
    except (OSError, RuntimeError) as error:  # ServiceError, LocalNeo4jError, BenchError
        typer.echo(f"The benchmark stopped: {error}", err=True)
        raise typer.Exit(1) from error
    options = _options(
        subscribers=subscribers,
        threads=threads,
        duration=duration,
        pace=pace,
        poll_s=poll_s,
        output=output,
    )
    command = " ".join(["python -m bench subscriptions", *options])
    text = render(outcome, command, (note,) if note else ())
    typer.echo(text)
    if output is not None:
        output.write_text(text)
    delivery = outcome.delivery
    if delivery is None or delivery.lost or delivery.errors:
        typer.echo("Some subscribers lost events or failed: see the report.", err=True)
        raise typer.Exit(2)
