"""The warm-up: every statement the service runs planned before requests need it.

A freshly started Neo4j plans and compiles each statement on its first run, which takes
from a few hundred milliseconds to seconds per statement. The warm-up plans each one in a
transaction that is rolled back, first the shapes requests ran (after a restart), then
every served statement with null parameters, then rehearses the commands a client sends
first (rolled back) and the reads their answers make. Until it is done, a request's
statement is planned once by whoever needs it first (`planned`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from neo4j.exceptions import DriverError, Neo4jError
from tenacity import AsyncRetrying, retry_if_result, wait_fixed

from graph import queries
from graph.errors import ThreadlineError
from graph.tx import Row, Tx

if TYPE_CHECKING:
    from graph.store import Store

WARM_UP_LANES = 2
# One statement's planning on a cold server on a busy machine can take seconds; no request
# waits on it, and a statement that still fails is tried again on the next pass.
WARM_UP_STATEMENT_S = 30.0
WARM_UP_PASS_WAIT_S = 1.0
REHEARSAL_S = 120.0  # planning on a cold server takes seconds; no request waits on it
PARAMETER = re.compile(r"\$(\w+)")
log = logging.getLogger("threadline.store")


@dataclass(frozen=True)
class Prepared:
    """A statement the warm-up plans: with the parameters requests ran it with (`real`),
    or with null ones."""

    text: str
    real: bool


class WarmUp:
    """One store's warm-up, and what it knows of the plans Neo4j holds."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._warming: asyncio.Task[None] | None = None
        self.done = False  # every served statement has been planned since Neo4j last started
        # Statements as requests ran them, each with its first parameters disguised: the
        # plans Neo4j loses when it restarts, and the warm-up makes again first.
        self._shapes: dict[str, dict[str, Any]] = {}
        self._prepared: set[Prepared] = set()  # planned since Neo4j last answered
        self._planning: dict[Prepared, asyncio.Task[None]] = {}  # being planned, once each
        self._left_when_stopped = -1
        # Commands rehearsed at warm-up, rolled back (api/commands/warm_up.py).
        self.rehearsal: Callable[[Tx], Awaitable[None]] | None = None
        # Reads a request's answer makes, rehearsed after it (outside its transaction).
        self.reading_rehearsal: Callable[[], Awaitable[None]] | None = None
        # Written (committed) once, before anything is planned: api/commands/warm_up.py.
        self.family: Callable[[Tx], Awaitable[bool]] | None = None
        self._warmed_once = False

    async def stop(self) -> None:
        """Cancel the planning under way (the store is closing)."""
        background = [*self._planning.values(), *([self._warming] if self._warming else [])]
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)

    @property
    def serving(self) -> bool:
        """Whether requests should come here (what /readyz says once Neo4j answers).

        Not before the first warm-up has ended, so a new service is not slow to its first
        clients. After an outage, at once: the warm-up runs again behind the requests, as
        holding every request back until it ends kept the API away for half a minute on a
        busy machine (docs/SCALING.md).
        """
        return self._warmed_once

    def start(self) -> None:
        """Prepare every statement the service runs, in the background, unless that is
        done or under way.

        A freshly started Neo4j plans and compiles each statement on its first run, which
        takes from a few hundred milliseconds to seconds per statement: without this, the
        first requests after a start or a restart are slow for many seconds. Each one runs
        once, with no parameters, in a transaction that is rolled back; on the first
        warm-up, `rehearsal` then plans the commands a client sends first with their real
        parameter shapes. The warm-up goes on in passes until every statement is planned:
        what a pass planned is kept until a connection fails (`replan`).
        """
        if not self.done and (self._warming is None or self._warming.done()):
            # In a context of its own: it serves no request, though one may start it.
            self._warming = asyncio.create_task(self._warm(), context=contextvars.Context())

    def replan(self) -> None:
        """Neo4j may be restarting, to come back with nothing planned: plan everything
        again as soon as it answers (a plan Neo4j still has takes milliseconds)."""
        self.done = False
        self._prepared.clear()
        self.start()

    async def planned(self, name: str, text: str, params: dict[str, Any]) -> None:
        """Until the warm-up has planned every statement, a request's statement is planned
        by whoever needs it first, and the others wait for that plan (`_plan_once`).

        Neo4j does not share a plan in the making: side by side, every request that needs
        the statement plans it itself. After a restart a command's write statement takes
        seconds to plan on a cold server, and planned by every waiting request at once it
        kept the first write away for 10-20 s (docs/SCALING.md, "After Neo4j restarts").
        """
        if self.done or not queries.is_served(name):
            return
        each = Prepared(text, real=True)
        if each not in self._prepared:
            await self._plan_once(each, _disguised(params), WARM_UP_STATEMENT_S)

    async def _plan_once(self, each: Prepared, params: dict[str, Any], timeout_s: float) -> None:
        """Plan `each` (`alone`), or wait for the planning already under way. The planning
        outlives a waiter that gives up (its deadline), for the next one to find done."""
        task = self._planning.get(each)
        if task is None:
            planning = self.alone(each.text, params, timeout_s)
            task = asyncio.create_task(planning, context=contextvars.Context())
            self._planning[each] = task
            task.add_done_callback(lambda done: self._planned(each, done))
        await asyncio.shield(task)

    def _planned(self, each: Prepared, task: asyncio.Task[None]) -> None:
        del self._planning[each]
        if not task.cancelled() and task.exception() is None:
            self._prepared.add(each)

    async def wait(self) -> None:
        """`start`, waiting until it is done."""
        self.start()
        if self._warming is not None:
            await asyncio.shield(self._warming)

    async def _warm(self) -> None:
        passes = AsyncRetrying(
            retry=retry_if_result(lambda done: not done), wait=wait_fixed(WARM_UP_PASS_WAIT_S)
        )
        await passes(self._warm_pass)
        self.done = self._warmed_once = True

    def remember_shape(self, name: str, text: str, params: dict[str, Any]) -> None:
        """Neo4j keys a plan by the statement and the shape of its parameters: the first
        shape a served statement is run with is the one a warm-up after a restart plans
        again (with its strings disguised, so it matches no one's data)."""
        if text not in self._shapes and queries.is_served(name):
            self._shapes[text] = _disguised(params)

    def _to_prepare(self) -> list[Prepared]:
        """Statements as requests ran them first, so that they are ready soonest after a
        restart; then every statement with null parameters, for those not run yet."""
        shaped = [Prepared(text, real=True) for text in self._shapes]
        nulls = [Prepared(text, real=False) for text in queries.served_statements()]
        return [each for each in [*shaped, *nulls] if each not in self._prepared]

    async def _warm_pass(self) -> bool:
        """Plan what is not planned yet; True once every statement is."""
        lanes = asyncio.Semaphore(WARM_UP_LANES)

        async def prepare(each: Prepared) -> None:
            params = self._shapes[each.text] if each.real else _null_parameters(each.text)
            async with lanes:
                if each not in self._prepared:  # a request may have planned it meanwhile
                    await self._plan_once(each, params, WARM_UP_STATEMENT_S)

        try:
            if self.family is not None and not self._warmed_once:
                await self._write_family(self.family)
                self.family = None  # written (or found): not again in this process
            pending = self._to_prepare()
            outcomes = await asyncio.gather(*map(prepare, pending), return_exceptions=True)
            failed = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
            if failed:
                raise failed[0]
            # Only before the first readiness, when nothing is served yet. After an outage
            # requests are flowing, and the shapes they ran are planned above.
            if self.rehearsal is not None and not self._warmed_once:
                await self._rolled_back(self.rehearsal)
            if self.reading_rehearsal is not None and not self._warmed_once:
                await self._rehearse_reads(self.reading_rehearsal)
        except (DriverError, OSError) as error:
            left = len(self._to_prepare())
            # Once per change, not once a second while Neo4j stays down.
            level = logging.DEBUG if left == self._left_when_stopped else logging.INFO
            self._left_when_stopped = left
            log.log(level, "warm-up pass stopped with %d statements to plan: %r", left, error)
            return False
        return True

    async def _write_family(self, work: Callable[[Tx], Awaitable[bool]]) -> None:
        """The warm-up family, committed when `work` writes it; then the plans made on the
        empty graph meanwhile are dropped (api/commands/warm_up.py says why)."""
        async with asyncio.timeout(REHEARSAL_S), self._store.session() as session:
            tx = await session.begin_transaction(timeout=REHEARSAL_S)
            try:
                written = await work(Tx(tx, self._store))
                await tx.commit()
            except (Neo4jError, ThreadlineError) as error:
                log.warning("warm-up family not written: %s", error)
                return
            finally:
                await tx.close()
            if written:
                await (await session.run(queries.load("maintenance/clear_query_caches"))).consume()

    async def _rehearse_reads(self, reads: Callable[[], Awaitable[None]]) -> None:
        """The answers' reads (`reading_rehearsal`): a failure stops them, not the warm-up,
        as with the rehearsal (a connection lost is the pass's to retry)."""
        try:
            await reads()
        except (Neo4jError, ThreadlineError) as error:
            log.warning("warm-up reads stopped: %s", error)

    async def _rolled_back(self, work: Callable[[Tx], Awaitable[None]]) -> None:
        """`work` in a write transaction that is always rolled back. Neo4j keys a cached plan
        by the statement and the shape of its parameters (null or not, the size of a list
        by bucket), so a plan made with null parameters is made again, at 0.4 s or more,
        for the first real call; statements run by `work` are planned as commands use them.
        """
        async with asyncio.timeout(REHEARSAL_S), self._store.session() as session:
            tx = await session.begin_transaction(timeout=REHEARSAL_S)
            try:
                await work(_RehearsalTx(tx, self._store))
            except (Neo4jError, ThreadlineError) as error:
                log.warning("warm-up rehearsal stopped: %s", error)
            finally:
                await tx.close()  # rolls back: nothing is written

    async def alone(self, text: str, params: dict[str, Any], timeout_s: float) -> None:
        """`text` planned and run in a transaction of its own that is rolled back."""
        async with asyncio.timeout(timeout_s), self._store.session() as session:
            tx = await session.begin_transaction(timeout=timeout_s)
            try:
                await (await tx.run(text, params)).consume()
            except Neo4jError:
                pass  # planned and compiled all the same; the parameters are not data
            finally:
                await tx.close()  # rolls back: nothing is written


class _RehearsalTx(Tx):
    """The warm-up's transaction (`WarmUp._rolled_back`), uncounted. Neo4j plans a statement
    apart for a transaction that has written and for one that has not: each statement also
    runs in a transaction of its own, rolled back, as a command's first statement does,
    with every string replaced by another of its length (the plan depends on lengths, not
    values), so that it never waits on a key this transaction has written."""

    async def _run(self, name: str, text: str, params: dict[str, Any]) -> list[Row]:
        self._store.warm_up.remember_shape(name, text, params)
        await self._store.warm_up.alone(text, _disguised(params), REHEARSAL_S)
        return await self._fetch(text, params)


def _disguised(value: Any) -> Any:
    if isinstance(value, str):
        return secrets.token_hex(len(value))[: len(value)]
    if isinstance(value, list):
        return [_disguised(item) for item in value]
    if isinstance(value, dict):
        return {key: _disguised(item) for key, item in value.items()}
    return value


def _null_parameters(text: str) -> dict[str, None]:
    return dict.fromkeys(PARAMETER.findall(text))
