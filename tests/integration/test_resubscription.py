"""threadEvents over real websockets while subscriptions come and go: every stream is its
thread's log as the `events` query reads it, from its start, nothing missing or repeated."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import websockets

from graph.store import Store
from tests.support.direct import create_thread, request_clean_context, request_clean_contexts
from tests.support.graphql import GraphQLClient
from tests.support.served import FLOOD_ENV, serve

pytestmark = pytest.mark.process  # starts processes of its own

WORKSPACE = "default"  # the served API's
SUBSCRIBE = """subscription($id: ID!, $after: ID) {
  threadEvents(threadId: $id, after: $after) { id type }
}"""
EVENTS = """query($id: ID!, $after: ID) {
  events(threadId: $id, after: $after, first: 100) { id }
}"""
WAIT_S = 30  # for one message; a stream that stalls fails here instead of hanging CI
BATCH = 25  # events written per transaction when a test makes a long log


@pytest.fixture(scope="module")
def fast_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`threadline serve` polling often: the tests wait less for each new feed's first
    poll. The race is not in the pauses but in the back-to-back polls of a feed catching
    up, which happen whatever the interval."""
    yield from serve(
        neo4j_uri, tmp_path_factory.mktemp("feeds"), SUBSCRIPTION_POLL_S="0.05", **FLOOD_ENV
    )


@pytest.fixture
async def live(fast_api: str, clean_store: Store) -> AsyncIterator[GraphQLClient]:
    async with httpx.AsyncClient(base_url=fast_api, timeout=60) as http:
        yield GraphQLClient(http)


async def long_thread(store: Store, events: int) -> str:
    """A thread whose log has `events` events (its creation, then clean-context requests)."""
    thread = (await create_thread(store, WORKSPACE, "long")).id
    for written in range(1, events, BATCH):
        await request_clean_contexts(store, WORKSPACE, thread, min(BATCH, events - written))
    return thread


async def logged(live: GraphQLClient, thread: str) -> list[str]:
    """The thread's event ids as the `events` query pages through them."""
    ids: list[str] = []
    while True:
        page = (await live(EVENTS, id=thread, after=ids[-1] if ids else None))["events"]
        ids += [event["id"] for event in page]
        if len(page) < 100:
            return ids


@asynccontextmanager
async def socket(live: GraphQLClient) -> AsyncIterator[Any]:
    url = str(live.http.base_url).replace("http://", "ws://").rstrip("/") + "/graphql"
    async with websockets.connect(
        url, subprotocols=[websockets.Subprotocol("graphql-transport-ws")], max_queue=None
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init"}))
        assert (await receive(ws))["type"] == "connection_ack"
        yield ws


async def receive(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
    return message


async def subscribe(ws: Any, op: str, thread: str, after: str | None = None) -> None:
    payload = {"query": SUBSCRIBE, "variables": {"id": thread, "after": after}}
    await ws.send(json.dumps({"id": op, "type": "subscribe", "payload": payload}))


async def complete(ws: Any, op: str) -> None:
    await ws.send(json.dumps({"id": op, "type": "complete"}))


async def answer(ws: Any, op: str) -> dict[str, Any]:
    """The next message about `op` (but its end): others may still be in flight for an
    operation completed before."""
    while (message := await receive(ws))["id"] != op or message["type"] == "complete":
        pass
    return message


def event_id(message: dict[str, Any]) -> str:
    assert message["type"] == "next" and "errors" not in message["payload"], message
    return str(message["payload"]["data"]["threadEvents"]["id"])


ATTEMPTS = 50
LONG_LOG = 301  # three pages and one event: a joining feed catches up in back-to-back polls


async def test_resubscribing_at_the_first_event_gets_the_log_from_its_start(
    live: GraphQLClient, clean_store: Store
) -> None:
    # On one socket: subscribe `a`; at its first event, complete it and subscribe `b` at
    # once. `a` was the thread's only subscriber, so its feed goes while the poller is still
    # catching up on the log, and `b` starts a new one.
    thread = await long_thread(clean_store, LONG_LOG)
    log = await logged(live, thread)
    assert len(log) == LONG_LOG
    async with socket(live) as ws:
        for attempt in range(ATTEMPTS):
            a, b = f"a{attempt}", f"b{attempt}"
            await subscribe(ws, a, thread)
            assert event_id(await answer(ws, a)) == log[0]
            await complete(ws, a)
            await subscribe(ws, b, thread)
            got: list[str] = []
            while len(got) < len(log):
                message = await receive(ws)
                if message["id"] == b:
                    got.append(event_id(message))
                    # Checked as it comes: a stream that starts late fails at its first event.
                    assert got == log[: len(got)], (
                        f"attempt {attempt}: event {len(got)} of b is event "
                        f"{log.index(got[-1]) + 1} of the log"
                    )
            await complete(ws, b)


async def test_a_resumed_subscription_starts_after_the_event_it_names(
    live: GraphQLClient, clean_store: Store
) -> None:
    thread = await long_thread(clean_store, 150)
    log = await logged(live, thread)
    async with socket(live) as ws:
        for op, after in enumerate([log[0], log[120], log[-1]]):
            await subscribe(ws, str(op), thread, after)
            start = log.index(after) + 1
            assert [event_id(await answer(ws, str(op))) for _ in log[start:]] == log[start:]
            await request_clean_context(clean_store, WORKSPACE, thread)
            log = await logged(live, thread)
            assert event_id(await answer(ws, str(op))) == log[-1], "then the live ones"
            await complete(ws, str(op))


async def test_an_unknown_after_is_invalid_input(live: GraphQLClient, clean_store: Store) -> None:
    thread = await long_thread(clean_store, 2)
    other = await long_thread(clean_store, 2)
    async with socket(live) as ws:
        for op, after in enumerate(["nope", (await logged(live, other))[0]]):
            await subscribe(ws, str(op), thread, after)
            refusal = await answer(ws, str(op))
            errors = (
                refusal["payload"] if refusal["type"] == "error" else refusal["payload"]["errors"]
            )
            assert errors[0]["extensions"]["code"] == "INVALID_INPUT"
            assert after in errors[0]["message"]


# ---- churn ------------------------------------------------------------------------------

THREADS = 4
SEEDED = 150  # more than a page: a new feed catches up in back-to-back polls
SUBSCRIPTIONS = 24  # in all, over the sockets
OPEN = 4  # at once, over the sockets
LONGEST = 170  # events a subscription takes at most before it leaves (past the seeded log)
MOST_WRITES = 3000  # a bound: the writer stops when the churn is done, long before this


@dataclass
class Stream:
    """One subscription as the client saw it."""

    thread: str
    after: str | None
    wanted: int  # events to take before leaving
    got: list[str] = field(default_factory=list)


@dataclass
class Churn:
    threads: list[str]
    rng: random.Random
    streams: list[Stream] = field(default_factory=list)

    def next_stream(self, left: Stream | None) -> Stream:
        """Another subscription: often the thread just left, at once (a rejoin), then
        sometimes resuming after the last event it had; else any thread from its start."""
        thread, after = self.rng.choice(self.threads), None
        if left is not None and self.rng.random() < 0.6:
            thread = left.thread
            if self.rng.random() < 0.5:
                after = left.got[-1]
        # Half leave within their first few events, while their feed may still be catching
        # up on the log: the moment a leave used to be able to cost the next join events.
        wanted = self.rng.randint(1, 5) if self.rng.random() < 0.5 else self.rng.randint(1, LONGEST)
        stream = Stream(thread, after, wanted)
        self.streams.append(stream)
        return stream


async def churn_socket(ws: Any, churn: Churn, tag: str, subscriptions: int, at_once: int) -> None:
    """`at_once` subscriptions at a time on this socket: each leaves once it has its number
    of events and another one takes its place at once, until `subscriptions` have come and
    gone."""
    open_: dict[str, Stream] = {}
    started = 0

    async def start(left: Stream | None) -> None:
        nonlocal started
        stream = churn.next_stream(left)
        op = f"{tag}-{started}"
        started += 1
        open_[op] = stream
        await subscribe(ws, op, stream.thread, stream.after)

    for _ in range(at_once):
        await start(None)
    while open_:
        message = await receive(ws)
        stream = open_.get(message["id"])
        if stream is None:
            continue  # completed already: what was in flight is not part of its stream
        stream.got.append(event_id(message))
        if len(stream.got) == stream.wanted:
            await complete(ws, message["id"])
            del open_[message["id"]]
            if started < subscriptions:
                await start(stream)


def check(stream: Stream, log: list[str]) -> None:
    """What a subscription got is its thread's log from its start: nothing missing,
    repeated or out of order."""
    start = 0 if stream.after is None else log.index(stream.after) + 1
    if stream.got != log[start : start + len(stream.got)]:
        numbers = [log.index(event) + 1 if event in log else None for event in stream.got]
        raise AssertionError(
            f"a subscription to {stream.thread} from event {start + 1} got events {ranges(numbers)}"
        )


def ranges(numbers: list[int | None]) -> str:
    """1-3, 7, 9-10: a stream's event numbers, short enough to read in a failure."""
    runs: list[list[int | None]] = []
    for number in numbers:
        last = runs[-1][-1] if runs else None
        if number is not None and last is not None and number == last + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


@pytest.mark.parametrize("sockets", [1, 4])
async def test_churned_subscriptions_get_every_event_once_in_order(
    live: GraphQLClient, clean_store: Store, sockets: int
) -> None:
    threads = [await long_thread(clean_store, SEEDED) for _ in range(THREADS)]
    churn = Churn(threads, random.Random(sockets))
    churned = asyncio.Event()

    async def write() -> None:
        """One event at a time, round the threads, while the subscriptions churn (those
        that wait for live events end only when they come)."""
        for n in range(MOST_WRITES):
            if churned.is_set():
                return
            await request_clean_context(clean_store, WORKSPACE, threads[n % THREADS])

    writer = asyncio.create_task(write())
    try:
        async with AsyncExitStack() as stack:
            wss = [await stack.enter_async_context(socket(live)) for _ in range(sockets)]
            await asyncio.gather(
                *(
                    churn_socket(ws, churn, f"s{n}", SUBSCRIPTIONS // sockets, OPEN // sockets)
                    for n, ws in enumerate(wss)
                )
            )
    finally:
        churned.set()
        await writer
    assert len(churn.streams) == SUBSCRIPTIONS
    logs = {thread: await logged(live, thread) for thread in threads}
    assert all(len(log) > SEEDED for log in logs.values()), "written while churning"
    for stream in churn.streams:
        check(stream, logs[stream.thread])
