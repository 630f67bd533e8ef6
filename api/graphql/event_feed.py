"""threadEvents fan-out: one Neo4j poll serves every subscriber in this process.

Each watched (workspace, thread) has a feed that remembers the last event it delivered.
One poller reads the new events of every feed in a single round trip and hands them to
the feed's subscribers. A subscriber that joins reads the older events itself, once, up
to the feed's position at the moment it joined, then takes the rest from the feed. Events
come from Neo4j, so any API process serves any subscriber.

Every event reaches a subscription once and in order, from its start, however subscribers
come and go. Two things make it so rather than likely:
- a poll hands its events only to the feed object whose position it read from. The last
  subscriber of a thread may leave while a poll is in flight and a new one start a fresh
  feed; the poll's events then go to the old feed, which nobody reads, never into the new
  one, whose position they would move past events its subscribers have not had;
- each subscription keeps its own position and takes from its feed only the event that
  follows it: events it already has are dropped, and missing ones, if a feed ever skipped
  any, are read from Neo4j before the event that follows them. Events are numbered
  1, 2, 3... in each thread (cypher/plan/apply.cypher), so a gap is seen as one.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from graph import repo
from graph.errors import ErrorCode, ThreadlineError
from graph.models import EventNode
from graph.store import Store
from graph.tx import Tx

log = logging.getLogger("threadline.events")
PAGE = 100
Key = tuple[str, str]  # (workspace, thread id)


@dataclass(eq=False)
class Subscriber:
    """One subscription's inbox; bounded, so a reader that stops reading cannot grow it."""

    capacity: int
    queue: asyncio.Queue[EventNode] = field(init=False)
    overflowed: bool = False

    def __post_init__(self) -> None:
        self.queue = asyncio.Queue(maxsize=self.capacity)

    def deliver(self, event: EventNode) -> None:
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.overflowed = True


@dataclass(eq=False)
class Feed:
    seq: int = 0  # the last event delivered to the subscribers
    subscribers: set[Subscriber] = field(default_factory=set)


class EventFeeds:
    def __init__(self, store: Store, interval_s: float, capacity: int = 1000) -> None:
        self._store = store
        self._interval_s = interval_s
        self._capacity = capacity
        self._feeds: dict[Key, Feed] = {}
        self._poller: asyncio.Task[None] | None = None
        self.polls = 0  # round trips made by the poller, for tests and metrics

    async def events(
        self, workspace: str, thread_id: str, after_seq: int = 0
    ) -> AsyncIterator[EventNode]:
        """Every event of the thread after the `after_seq`th (from the first by default),
        then each new one as it commits: each once, in order."""
        key = (workspace, thread_id)
        feed = self._feeds.get(key)
        if feed is None:
            # A new feed starts where its first subscriber does: a client resuming a long
            # log does not have the poller read it all again.
            feed = self._feeds[key] = Feed(seq=after_seq)
        subscriber = Subscriber(self._capacity)
        joined_at = feed.seq
        feed.subscribers.add(subscriber)
        self._ensure_poller()
        seq = after_seq  # the last event this subscription yielded
        try:
            async for event in self._between(key, seq, joined_at):
                seq = event.seq
                yield event
            while True:
                if subscriber.overflowed:
                    raise ThreadlineError(
                        ErrorCode.UNAVAILABLE,
                        f"This subscription fell more than {self._capacity} events behind; "
                        "subscribe again.",
                    )
                event = await subscriber.queue.get()
                if event.seq <= seq:
                    continue  # already read with the history (or before `after_seq`)
                if event.seq > seq + 1:
                    log.warning("feed %s skipped events %d-%d", key, seq + 1, event.seq - 1)
                    async for missed in self._between(key, seq, event.seq - 1):
                        seq = missed.seq
                        yield missed
                seq = event.seq
                yield event
        finally:
            feed.subscribers.discard(subscriber)
            if not feed.subscribers and self._feeds.get(key) is feed:
                del self._feeds[key]

    async def close(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller

    async def _between(self, key: Key, after_seq: int, until_seq: int) -> AsyncIterator[EventNode]:
        """The thread's events after `after_seq` up to `until_seq`, read page by page."""
        seq = after_seq
        while seq < until_seq:
            page = (await self._read([(key[0], key[1], seq)])).get(key, [])
            for event in page:
                if event.seq > until_seq:
                    return
                seq = event.seq
                yield event
            if len(page) < PAGE:
                return

    def _ensure_poller(self) -> None:
        if self._poller is None or self._poller.done():
            # A context of its own: the poller outlives the request that started it and must
            # not inherit that request's deadline.
            self._poller = asyncio.create_task(
                self._poll_while_watched(), context=contextvars.Context()
            )

    async def _poll_while_watched(self) -> None:
        while self._feeds:
            try:
                full = await self._poll_once()
            except ThreadlineError as error:
                # Neo4j is away: subscribers wait; the next poll picks up where this stopped.
                log.debug("event poll failed: %s", error.message)
                full = False
            if not full:
                await asyncio.sleep(self._interval_s)

    async def _poll_once(self) -> bool:
        """Deliver new events of every feed; True when some feed has more waiting."""
        # The feed objects themselves, not their keys: a key's feed may be deleted and made
        # anew during the read, and the new one must not get events past its position.
        watched = list(self._feeds.items())
        found = await self._read(
            [(ws, thread, feed.seq) for (ws, thread), feed in watched], poll=True
        )
        full = False
        for key, feed in watched:
            events = found.get(key, [])
            for event in events:
                if event.seq <= feed.seq:
                    continue
                feed.seq = event.seq
                for subscriber in feed.subscribers:
                    subscriber.deliver(event)
            full = full or len(events) == PAGE
        return full

    async def _read(
        self, feeds: list[tuple[str, str, int]], *, poll: bool = False
    ) -> dict[Key, list[EventNode]]:
        async def work(tx: Tx) -> dict[Key, list[EventNode]]:
            self.polls += poll  # counted where the round trip is, for the tests' audit
            return await repo.events_since(tx, feeds, PAGE)

        return await self._store.read(work)
