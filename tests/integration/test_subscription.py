"""threadEvents: one Neo4j poll per process serves every subscriber, in order, no gaps."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from api.graphql.event_feed import EventFeeds
from graph import repo
from graph.models import EventNode
from graph.store import Store
from tests.support.direct import create_thread, request_clean_context
from tests.support.graphql import connect_test_store

SUBSCRIBERS = 12


@pytest.fixture
async def feeds(clean_store: Store) -> AsyncIterator[EventFeeds]:
    """One process's feeds over the clean store, polling every 50 ms."""
    made = EventFeeds(clean_store, interval_s=0.05)
    try:
        yield made
    finally:
        await made.close()


@pytest.fixture
async def thread(clean_store: Store) -> str:
    """A thread of workspace "w": its log so far, its creation."""
    return (await create_thread(clean_store, "w", "t")).id


@asynccontextmanager
async def subscribed(feeds: EventFeeds, thread: str) -> AsyncIterator[AsyncIterator[EventNode]]:
    """A subscriber to `thread`'s events in workspace "w", closed on the way out."""
    stream = feeds.events("w", thread)
    try:
        yield stream
    finally:
        await stream.aclose()  # type: ignore[attr-defined]


async def take(stream: AsyncIterator[EventNode], count: int) -> list[str]:
    return [(await asyncio.wait_for(anext(stream), 10)).type for _ in range(count)]


async def test_one_poll_serves_every_subscriber(
    clean_store: Store, feeds: EventFeeds, neo4j_uri: str
) -> None:
    # The writer is "another process": its own driver, so the feed's reads count alone.
    other_process = connect_test_store(neo4j_uri)
    threads = [(await create_thread(other_process, "w", f"t{n}")).id for n in range(3)]
    streams = [feeds.events("w", threads[n % 3]) for n in range(SUBSCRIBERS)]
    try:
        # Each subscriber first gets the log so far: its thread's creation.
        for stream in streams:
            assert await take(stream, 1) == ["thread.created"]
        polls, reads = feeds.polls, clean_store.round_trips
        for thread in threads:
            await request_clean_context(other_process, "w", thread)
        for stream in streams:
            assert await take(stream, 1) == ["thread.cleanContextRequested"]
        assert feeds.polls > polls
        assert clean_store.round_trips - reads == feeds.polls - polls, "one read per poll"
    finally:
        for stream in streams:
            await stream.aclose()  # type: ignore[attr-defined]
        await other_process.close()


async def test_a_late_subscriber_gets_the_whole_log_once(
    clean_store: Store, feeds: EventFeeds, thread: str
) -> None:
    async with subscribed(feeds, thread) as early:
        await take(early, 1)
        await request_clean_context(clean_store, "w", thread)
        await take(early, 1)
        async with subscribed(feeds, thread) as late:
            await request_clean_context(clean_store, "w", thread)
            assert await take(late, 3) == [
                "thread.created",
                "thread.cleanContextRequested",
                "thread.cleanContextRequested",
            ]
        assert await take(early, 1) == ["thread.cleanContextRequested"]


async def test_a_subscription_reads_what_its_feed_skipped(
    clean_store: Store, feeds: EventFeeds, thread: str
) -> None:
    # A feed should never skip an event; if one did, its subscribers would still get it:
    # each checks the numbers of the events it is handed against the last one it had.
    async with subscribed(feeds, thread) as stream:
        await take(stream, 1)
        feeds._feeds[("w", thread)].seq += 2  # as if it had delivered the next two already
        for _ in range(4):
            await request_clean_context(clean_store, "w", thread)
        got = [(await asyncio.wait_for(anext(stream), 10)).id for _ in range(4)]
    log = await clean_store.read(lambda tx: repo.events_page(tx, "w", thread, None, 10))
    assert log is not None and got == [event.id for event in log[1:]]
