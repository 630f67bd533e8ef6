"""Per-request DataLoaders: every nested field is one batched query, never N+1."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from strawberry.dataloader import DataLoader

from graph import repo
from graph.store import Row, Store, Tx

T = TypeVar("T")


class Loaders:
    def __init__(self, store: Store, workspace: str) -> None:
        self._store = store
        self._workspace = workspace
        self.thread = self._one("thread/by_ids", repo.thread_from)
        self.run = self._one("run/by_ids", repo.run_from)
        self.provider_thread = self._one("provider_thread/by_ids", repo.provider_thread_from)
        self.handoff = self._one("handoff/by_ids", repo.handoff_from)
        self.checkpoint = self._one("checkpoint/by_ids", repo.checkpoint_from)
        self.runs_of_thread = self._many("run/by_threads", repo.run_from)
        self.items_of_run = self._many("run/items", repo.item_from)
        self.provider_threads_of_thread = self._many(
            "provider_thread/by_threads", repo.provider_thread_from
        )
        self.children_of_thread = self._many("thread/children", repo.thread_from)
        self.handoffs_received = self._many("handoff/received", repo.handoff_from)
        self.handoffs_consumed = self._many("handoff/consumed", repo.handoff_from)
        self.transfer = self._one("transfer/by_ids", repo.transfer_from)
        self.transfers_in = self._many("transfer/incoming", repo.transfer_from)
        self.transfers_out = self._many("transfer/outgoing", repo.transfer_from)
        self.coverage_state = self._one("thread/coverage", repo.state_from)

    def clear(self) -> None:
        """Forget cached values after a mutation changed the graph."""
        for value in vars(self).values():
            if isinstance(value, DataLoader):
                value.clear_all()

    def _one(self, query: str, decode: Callable[[Row], T]) -> DataLoader[str, T | None]:
        async def load(keys: list[str]) -> list[T | None]:
            groups = await self._grouped(query, keys)
            return [decode(groups[key][0]) if groups.get(key) else None for key in keys]

        return DataLoader(load)

    def _many(self, query: str, decode: Callable[[Row], T]) -> DataLoader[str, list[T]]:
        async def load(keys: list[str]) -> list[list[T]]:
            groups = await self._grouped(query, keys)
            return [[decode(row) for row in groups.get(key, [])] for key in keys]

        return DataLoader(load)

    async def _grouped(self, query: str, keys: Sequence[str]) -> dict[str, list[Row]]:
        async def work(tx: Tx) -> dict[str, list[Row]]:
            return await repo.grouped(tx, query, self._workspace, keys)

        return await self._store.read(work)
