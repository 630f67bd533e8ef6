"""Per-request DataLoaders: every nested field is one batched query, never N+1.

Loaders built for a past instant read the same statements and answer each node as it was
then (resolvers/as_of.py): a node made later is absent, changed fields have their values
of that instant, and coverage is computed over the thread rebuilt from its histories.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from strawberry.dataloader import DataLoader

from graph import history, repo
from graph.history import Versioned
from graph.models import CheckpointNode, ThreadState
from graph.store import Row, Store, Tx
from resolvers import as_of
from resolvers.as_of import Instant
from resolvers.divergence import Divergence, divergence, opening

T = TypeVar("T")
Then = Callable[[Versioned[T], Instant], T | None]


class Loaders:
    def __init__(self, store: Store, workspace: str, instant: Instant | None = None) -> None:
        self._store = store
        self._workspace = workspace
        self.instant = instant
        self.thread = self._one("thread/by_ids", repo.thread_from, as_of.thread_at)
        self.run = self._one("run/by_ids", repo.run_from, as_of.run_at)
        self.provider_thread = self._one(
            "provider_thread/by_ids", repo.provider_thread_from, as_of.provider_thread_at
        )
        self.handoff = self._one("handoff/by_ids", repo.handoff_from, as_of.handoff_at)
        self.checkpoint = self._one("checkpoint/by_ids", repo.checkpoint_from, _checkpoint_at)
        self.runs_of_thread = self._many("run/by_threads", repo.run_from, as_of.run_at)
        # Items exist once their run ended; a run in progress shows none (api.types.Run).
        self.items_of_run = self._many("run/items", repo.item_from)
        self.provider_threads_of_thread = self._many(
            "provider_thread/by_threads", repo.provider_thread_from, as_of.provider_thread_at
        )
        self.children_of_thread = self._many("thread/children", repo.thread_from, as_of.thread_at)
        self.handoffs_received = self._many("handoff/received", repo.handoff_from, as_of.handoff_at)
        self.handoffs_consumed = self._many("handoff/consumed", repo.handoff_from, as_of.handoff_at)
        self.transfer = self._one("transfer/by_ids", repo.transfer_from, as_of.transfer_at)
        self.transfers_in = self._many("transfer/incoming", repo.transfer_from, as_of.transfer_at)
        self.transfers_out = self._many("transfer/outgoing", repo.transfer_from, as_of.transfer_at)
        self.timeline = self._one("thread/timeline", repo.timeline_from)
        self.divergence: DataLoader[str, Divergence | None] = DataLoader(
            self._divergence_now if instant is None else self._divergence_then
        )
        self.coverage_state: DataLoader[str, ThreadState | None] = (
            self._one("thread/coverage", repo.state_from)
            if instant is None
            else DataLoader(self._past_coverage)
        )

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

    async def _past_coverage(self, keys: list[str]) -> list[ThreadState | None]:
        return [found.coverage_state() if found else None for found in await self.past(keys)]

    async def _divergence_now(self, keys: list[str]) -> list[Divergence | None]:
        groups = await self._grouped("thread/divergence", keys)
        found = [repo.divergence_from(groups[key][0]) if groups.get(key) else None for key in keys]
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
