"""Per-request DataLoaders: every nested field is one batched query, never N+1.

Loaders built for a past instant read the same statements and answer each node as it was
then (resolvers/past/as_of.py): a node made later is absent, changed fields have their values
of that instant, and coverage is computed over the thread rebuilt from its histories.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cached_property
from typing import TypeVar

from strawberry.dataloader import DataLoader

from graph import codec, history, repo
from graph.history import Timeline, Versioned
from graph.models import (
    ENDED,
    CheckpointNode,
    HandoffNode,
    HandoffQuality,
    ProviderLimitNode,
    ProviderThreadNode,
    RunDigest,
    RunItem,
    RunNode,
    ThreadNode,
    TransferNode,
)
from graph.ranges import Ranges
from graph.store import Store
from graph.thread_state import ThreadState
from graph.tx import Row, Tx
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.quality import assess
from resolvers.limits import limit_of
from resolvers.lineage.divergence import Divergence, divergence, opening
from resolvers.past import as_of
from resolvers.past.as_of import Instant

T = TypeVar("T")
Then = Callable[[Versioned[T], Instant], T | None]


class Loaders:
    """Each loader is made on first use: most requests (every mutation) use none or few."""

    def __init__(self, store: Store, workspace: str, instant: Instant | None = None) -> None:
        self._store = store
        self._workspace = workspace
        self.instant = instant

    @cached_property
    def thread(self) -> DataLoader[str, ThreadNode | None]:
        return self._one("thread/by_ids", codec.thread_from, as_of.thread_at)

    @cached_property
    def run(self) -> DataLoader[str, RunNode | None]:
        return self._one("run/by_ids", codec.run_from, as_of.run_at)

    @cached_property
    def provider_thread(self) -> DataLoader[str, ProviderThreadNode | None]:
        return self._one(
            "provider_thread/by_ids", codec.provider_thread_from, as_of.provider_thread_at
        )

    @cached_property
    def handoff(self) -> DataLoader[str, HandoffNode | None]:
        return self._one("handoff/by_ids", codec.handoff_from, as_of.handoff_at)

    @cached_property
    def checkpoint(self) -> DataLoader[str, CheckpointNode | None]:
        return self._one("checkpoint/by_ids", codec.checkpoint_from, _checkpoint_at)

    @cached_property
    def runs_of_thread(self) -> DataLoader[str, list[RunNode]]:
        return self._many("run/by_threads", codec.run_from, as_of.run_at)

    @cached_property
    def items_of_run(self) -> DataLoader[str, list[RunItem]]:
        # Items exist once their run ended; a run in progress shows none (api.graphql.nodes.Run).
        return self._many("run/items", codec.item_from)

    @cached_property
    def provider_threads_of_thread(self) -> DataLoader[str, list[ProviderThreadNode]]:
        return self._many(
            "provider_thread/by_threads", codec.provider_thread_from, as_of.provider_thread_at
        )

    @cached_property
    def children_of_thread(self) -> DataLoader[str, list[ThreadNode]]:
        return self._many("thread/children", codec.thread_from, as_of.thread_at)

    @cached_property
    def handoffs_received(self) -> DataLoader[str, list[HandoffNode]]:
        return self._many("handoff/received", codec.handoff_from, as_of.delivered_at)

    @cached_property
    def handoffs_prepared(self) -> DataLoader[str, list[HandoffNode]]:
        return self._many("handoff/prepared", codec.handoff_from, as_of.handoff_at)

    @cached_property
    def handoffs_consumed(self) -> DataLoader[str, list[HandoffNode]]:
        return self._many("handoff/consumed", codec.handoff_from, as_of.handoff_at)

    @cached_property
    def transfer(self) -> DataLoader[str, TransferNode | None]:
        return self._one("transfer/by_ids", codec.transfer_from, as_of.transfer_at)

    @cached_property
    def transfers_in(self) -> DataLoader[str, list[TransferNode]]:
        return self._many("transfer/incoming", codec.transfer_from, as_of.transfer_at)

    @cached_property
    def transfers_out(self) -> DataLoader[str, list[TransferNode]]:
        return self._many("transfer/outgoing", codec.transfer_from, as_of.transfer_at)

    @cached_property
    def limit_in_force(self) -> DataLoader[str, ProviderLimitNode | None]:
        """By provider name: the workspace's usage limit in force now (one read for all)."""

        async def load(providers: Sequence[str]) -> list[ProviderLimitNode | None]:
            now = datetime.now(UTC)
            found = await self._store.read(lambda tx: repo.active_limits(tx, self._workspace, now))
            return [limit_of(provider, found) for provider in providers]

        return DataLoader(load)

    @cached_property
    def timeline(self) -> DataLoader[str, Timeline | None]:
        return self._one("thread/timeline", codec.timeline_from)

    @cached_property
    def divergence(self) -> DataLoader[str, Divergence | None]:
        return DataLoader(self._divergence_now if self.instant is None else self._divergence_then)

    @cached_property
    def handoff_quality(self) -> DataLoader[HandoffNode, HandoffQuality]:
        """For a handoff that recorded no quality (pending, or written before quality was
        recorded): graded on the history runs of its range, as regenerating it would read.
        Keyed by the handoff node itself (its text is not read again)."""
        return DataLoader(self._graded, cache_key_fn=lambda handoff: handoff.id)

    @cached_property
    def coverage_state(self) -> DataLoader[str, ThreadState | None]:
        if self.instant is None:
            return self._one("thread/coverage", codec.state_from)
        return DataLoader(self._past_coverage)

    def clear(self) -> None:
        """Forget cached values after a mutation changed the graph."""
        for value in vars(self).values():
            if isinstance(value, DataLoader):
                value.clear_all()

    async def past(self, thread_ids: Sequence[str]) -> list[as_of.Past | None]:
        """Each thread rebuilt as of this loader's instant (None: it did not exist yet)."""
        assert self.instant is not None
        timelines = await self.timeline.load_many(thread_ids)
        return [as_of.past(tl, self.instant) if tl else None for tl in timelines]

    async def _graded(self, handoffs: list[HandoffNode]) -> list[HandoffQuality]:
        wants: dict[str, Ranges] = {}
        for handoff in handoffs:
            wants[handoff.sourceThreadId] = wants.get(handoff.sourceThreadId, Ranges()) | (
                handoff.covered
            )

        async def work(tx: Tx) -> list[tuple[str, RunDigest | RunNode]]:
            return await repo.digests(tx, self._workspace, wants)

        runs: dict[str, list[RunDigest]] = {}
        for thread_id, found in await self._store.read(work) if wants else []:
            digest = found if isinstance(found, RunDigest) else digest_of(found)
            if digest.status in ENDED:
                runs.setdefault(thread_id, []).append(digest)
        return [
            assess(
                h.summaryText,
                [r for r in runs.get(h.sourceThreadId, []) if r.ordinal in h.covered],
                h.omitted,
            )
            for h in handoffs
        ]

    async def _past_coverage(self, keys: list[str]) -> list[ThreadState | None]:
        return [found.coverage_state() if found else None for found in await self.past(keys)]

    async def _divergence_now(self, keys: list[str]) -> list[Divergence | None]:
        groups = await self._grouped("thread/divergence", keys)
        found = [codec.divergence_from(groups[key][0]) if groups.get(key) else None for key in keys]
        return [divergence(f.child, f.source, f.point, f.returns) if f else None for f in found]

    async def _divergence_then(self, keys: list[str]) -> list[Divergence | None]:
        """Each child and its source rebuilt as of this instant (one timeline read)."""
        threads = await self.thread.load_many(keys)
        parents = {t.id: t.parentId for t in threads if t is not None and t.parentId}
        pasts = await self.past([*keys, *parents.values()])
        then = dict(zip([*keys, *parents.values()], pasts, strict=True))
        return [self._diverged(then.get(key), then.get(parents.get(key, ""))) for key in keys]

    @staticmethod
    def _diverged(child: as_of.Past | None, source: as_of.Past | None) -> Divergence | None:
        if child is None or source is None:
            return None
        start = opening(child.state)
        point = source.run(start.sourcePoint.runOrdinal) if start else None
        source_id = source.state.thread.id
        returns = [x for x in child.transfersOut if x.targetThreadId == source_id]
        return divergence(child.state, source.state.thread, point, returns)

    def _one(
        self, query: str, decode: Callable[[Row], T], then: Then[T] | None = None
    ) -> DataLoader[str, T | None]:
        shape = self._shape(decode, then)

        async def load(keys: list[str]) -> list[T | None]:
            groups = await self._grouped(query, keys)
            return [shape(groups[key][0]) if groups.get(key) else None for key in keys]

        return DataLoader(load)

    def _many(
        self, query: str, decode: Callable[[Row], T], then: Then[T] | None = None
    ) -> DataLoader[str, list[T]]:
        shape = self._shape(decode, then)

        async def load(keys: list[str]) -> list[list[T]]:
            groups = await self._grouped(query, keys)
            return [
                [node for row in groups.get(key, []) if (node := shape(row)) is not None]
                for key in keys
            ]

        return DataLoader(load)

    def _shape(self, decode: Callable[[Row], T], then: Then[T] | None) -> Callable[[Row], T | None]:
        """The node of a row: as it is now, or as it was at this loader's instant."""
        instant = self.instant
        if instant is None or then is None:
            return decode
        return lambda row: then(Versioned(decode(row), history.of_row(row)), instant)

    async def _grouped(self, query: str, keys: Sequence[str]) -> dict[str, list[Row]]:
        async def work(tx: Tx) -> dict[str, list[Row]]:
            return await repo.grouped(tx, query, self._workspace, keys)

        return await self._store.read(work)


def _checkpoint_at(versioned: Versioned[CheckpointNode], instant: Instant) -> CheckpointNode | None:
    return as_of.checkpoint_at(versioned.node, instant)


# As long as a real id: Neo4j plans a statement per shape of its parameters, a string's
# by the bucket of its length (api/commands/warm_up.py).
UNKNOWN_ID = "thr_" + "0" * 22


async def rehearse_reads(store: Store, workspace: str, times: int) -> None:
    """Every loader keyed by an id loads one id nobody holds, `times` over: at warm-up,
    so that their statements are planned (and compiled) with the shapes a request's
    answer reads them with, a list of one id, and not on a first request's time. Reads
    only: nothing is written."""
    keyed_by_id = [
        name
        for name, value in vars(Loaders).items()
        if isinstance(value, cached_property)
        and str(value.func.__annotations__.get("return", "")).startswith("DataLoader[str,")
    ]
    for _ in range(times):
        loaders = Loaders(store, workspace)
        await asyncio.gather(*(getattr(loaders, name).load(UNKNOWN_ID) for name in keyed_by_id))
