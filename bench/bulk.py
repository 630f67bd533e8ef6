"""Bulk writes of generated families: batched `UNWIND` statements straight into Neo4j.

Families are simulated on a producer thread while the previous batch is written, so the
generator's CPU and Neo4j's overlap. A batch holds whole families (every link a
statement draws points at a node of the same or an earlier batch) and is written
statement by statement in `model.WRITE_ORDER`, each statement in transactions of at most
`batch_rows` rows (weighted by the items, events and covered runs a row carries).
"""

from __future__ import annotations

import queue
import resource
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from neo4j import Driver, ManagedTransaction

from bench import model, queries
from bench.records import Family

BATCH_ROWS = 5000


@dataclass
class BulkStats:
    families: int = 0
    threads: int = 0
    runs: int = 0
    rows: int = 0
    transactions: int = 0
    seconds: float = 0.0
    peak_rss_mb: float = 0.0  # of the harness process, generator included

    def add(self, other: BulkStats) -> None:
        self.families += other.families
        self.threads += other.threads
        self.runs += other.runs
        self.rows += other.rows
        self.transactions += other.transactions
        self.seconds += other.seconds
        self.peak_rss_mb = max(self.peak_rss_mb, other.peak_rss_mb)


@dataclass
class _Chunk:
    rows: model.Rows
    families: int
    threads: int
    runs: int


class BulkWriter:
    def __init__(
        self, driver: Driver, database: str, workspace: str, batch_rows: int = BATCH_ROWS
    ) -> None:
        self._driver = driver
        self._database = database
        self._workspace = workspace
        self._batch_rows = batch_rows

    def write(
        self,
        families: Iterable[Family],
        progress: Callable[[BulkStats], None] | None = None,
    ) -> BulkStats:
        stats = BulkStats()
        started = time.perf_counter()
        chunks: queue.Queue[_Chunk | BaseException | None] = queue.Queue(maxsize=2)
        producer = threading.Thread(
            target=self._produce, args=(families, chunks), name="bench-generator", daemon=True
        )
        producer.start()
        last_report = started
        while True:
            chunk = chunks.get()
            if chunk is None:
                break
            if isinstance(chunk, BaseException):
                raise chunk
            self._flush(chunk.rows, stats)
            stats.families += chunk.families
            stats.threads += chunk.threads
            stats.runs += chunk.runs
            now = time.perf_counter()
            if progress is not None and now - last_report > 10:
                stats.seconds = now - started
                progress(stats)
                last_report = now
        producer.join()
        stats.seconds = time.perf_counter() - started
        stats.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return stats

    def _produce(
        self, families: Iterable[Family], chunks: queue.Queue[_Chunk | BaseException | None]
    ) -> None:
        try:
            for chunk in self._chunks(families):
                chunks.put(chunk)
            chunks.put(None)
        except BaseException as error:  # handed to the writer, which raises it
            chunks.put(error)

    def _chunks(self, families: Iterable[Family]) -> Iterator[_Chunk]:
        chunk = _Chunk(model.Rows(), 0, 0, 0)
        for family in families:
            model.add_family(chunk.rows, family, self._workspace)
            chunk.families += 1
            chunk.threads += len(family.threads)
            chunk.runs += family.runs()
            if chunk.runs + chunk.threads >= self._batch_rows:
                yield chunk
                chunk = _Chunk(model.Rows(), 0, 0, 0)
        if chunk.families:
            yield chunk

    def _flush(self, rows: model.Rows, stats: BulkStats) -> None:
        with self._driver.session(database=self._database) as session:
            for name, data in rows.statements():
                text = queries.load(f"bulk/{name}")
                for batch in batches(data, self._batch_rows):

                    def work(
                        tx: ManagedTransaction, text: str = text, batch: list[model.Row] = batch
                    ) -> None:
                        tx.run(text, rows=batch, workspace=self._workspace).consume()

                    session.execute_write(work)
                    stats.transactions += 1
                    stats.rows += len(batch)


def batches(rows: list[model.Row], limit: int) -> Iterator[list[model.Row]]:
    """Consecutive slices whose weight (nodes and links written) stays near `limit`."""
    batch: list[model.Row] = []
    load = 0
    for row in rows:
        batch.append(row)
        load += model.weight(row)
        if load >= limit:
            yield batch
            batch, load = [], 0
    if batch:
        yield batch
