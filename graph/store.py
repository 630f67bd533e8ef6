"""The Neo4j store: one async driver, managed transactions, named queries only.

Every call is bounded: it answers within the deadline of the request it serves (or
`timeout_s` when it serves none), connection, retries and the server-side transaction
timeout included. Transient failures are retried at a short fixed interval, so a request
sent just before Neo4j returns succeeds as soon as it does.

A write whose commit was sent but not acknowledged has an unknown outcome. It is retried
only when the caller says the work is idempotent (a command with a receipt: the retry
finds the receipt and answers the committed result); otherwise the error says the
outcome is unknown. Retried tries that never reach their commit do not make it known: a
call answers "nothing was written" only when none of its tries sent a commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncSession,
    AsyncTransaction,
    NotificationDisabledClassification,
    unit_of_work,
)
from neo4j.exceptions import ConstraintError, DriverError, Neo4jError
from opentelemetry.trace import SpanKind, Tracer
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    retry_if_result,
    wait_fixed,
)

from graph import queries
from graph.errors import ErrorCode, ThreadlineError, weightier

T = TypeVar("T")
Row = dict[str, Any]
TxWork = Callable[["Tx"], Awaitable[T]]

RETRY_WAIT_S = 0.2
WARM_UP_LANES = 2
# One statement's planning on a cold server on a busy machine can take seconds; no request
# waits on it, and a statement that still fails is tried again on the next pass.
WARM_UP_STATEMENT_S = 30.0
WARM_UP_PASS_WAIT_S = 1.0
PARAMETER = re.compile(r"\$(\w+)")
log = logging.getLogger("threadline.store")
# Time kept back from a deadline to answer the client after the last attempt gives up
# (room for an event loop that is busy with other requests, as under an outage).
ANSWER_MARGIN_S = 0.5
_deadline: ContextVar[float | None] = ContextVar("threadline_deadline", default=None)


@contextmanager
def deadline_in(seconds: float) -> Iterator[None]:
    """Every store call made inside answers within `seconds` from now, all together."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


REHEARSAL_S = 120.0  # planning on a cold server takes seconds; no request waits on it


class Tx:
    """A managed transaction that runs named queries and counts round trips."""

    def __init__(self, tx: AsyncManagedTransaction | AsyncTransaction, store: Store) -> None:
        self._tx = tx
        self._store = store
        # The slot of its workspace's write gate this transaction passes, once it has
        # (graph/gates.py): the same slot for every statement of one transaction.
        self.gate_slot: int | None = None
        self.gated = False
        # A process's own housekeeping (Store.read(counted=False)) is no request's cost.
        self.counted = True

    async def rows(self, name: str, **params: Any) -> list[Row]:
        return await self._run(name, queries.load(name), params)

    async def bounded_rows(self, name: str, hops: int, **params: Any) -> list[Row]:
        """A named query with a variable-length hop bound (see queries.with_hops)."""
        return await self._run(name, queries.with_hops(name, hops), params)

    async def sectioned_rows(self, name: str, **params: Any) -> list[Row]:
        """A named query of sections (queries.trimmed) with only those whose list parameter
        is not empty; the empty lists are not sent."""
        used = {key: value for key, value in params.items() if value != []}
        return await self._run(name, queries.trimmed(name, used), used)

    async def _run(self, name: str, text: str, params: dict[str, Any]) -> list[Row]:
        """Every statement a request sends passes here: counted, and traced when the
        store has a tracer (only while traces are exported: api/process/telemetry.py)."""
        self._store.round_trips += 1 if self.counted else 0
        self._store.remember_shape(name, text, params)
        await self._store.planned(name, text, params)
        tracer = self._store.tracer
        if tracer is None or not self.counted:  # housekeeping is no request's statement
            return await self._fetch(text, params)
        attributes = self._store.span_attributes(name, params)
        with tracer.start_as_current_span(
            f"{name}.cypher", kind=SpanKind.CLIENT, attributes=attributes
        ):
            return await self._fetch(text, params)

    async def _fetch(self, text: str, params: dict[str, Any]) -> list[Row]:
        result = await self._tx.run(text, params)
        return [dict(record) async for record in result]

    async def stream(self, name: str, **params: Any) -> AsyncIterator[Row]:
        """A named query's rows one at a time, as the driver fetches them in batches:
        memory stays constant however many rows it answers."""
        self._store.round_trips += 1 if self.counted else 0
        result = await self._tx.run(queries.load(name), params)
        async for record in result:
            yield dict(record)

    async def row(self, name: str, **params: Any) -> Row | None:
        found = await self.rows(name, **params)
        return found[0] if found else None


class _RehearsalTx(Tx):
    """The warm-up's transaction (`Store._rolled_back`), uncounted. Neo4j plans a statement
    apart for a transaction that has written and for one that has not: each statement also
    runs in a transaction of its own, rolled back, as a command's first statement does,
    with every string replaced by another of its length (the plan depends on lengths, not
    values), so that it never waits on a key this transaction has written."""

    async def _run(self, name: str, text: str, params: dict[str, Any]) -> list[Row]:
        self._store.remember_shape(name, text, params)
        await self._store._alone(text, _disguised(params), REHEARSAL_S)
        return await self._fetch(text, params)


def _disguised(value: Any) -> Any:
    if isinstance(value, str):
        return secrets.token_hex(len(value))[: len(value)]
    if isinstance(value, list):
        return [_disguised(item) for item in value]
    if isinstance(value, dict):
        return {key: _disguised(item) for key, item in value.items()}
    return value


class GraphTooNewError(RuntimeError):
    """The graph was migrated by a newer Threadline than this one."""

    def __init__(self, graph: int, code: int) -> None:
        super().__init__(
            f"The graph is at schema version {graph}, newer than this Threadline's "
            f"schema version {code}: run a Threadline of schema version {graph} or newer "
            "(or restore a backup taken before the upgrade into an empty database)."
        )
        self.graph = graph
        self.code = code


class _Transient(Exception):
    """An attempt that may succeed if made again."""

    def __init__(self, error: ThreadlineError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass(frozen=True)
class Prepared:
    """A statement the warm-up plans: with the parameters requests ran it with (`real`),
    or with null ones."""

    text: str
    real: bool


@dataclass
class _Attempt:
    committing: bool = False  # the work ran; the driver is committing (or has)


@dataclass
class _Tries:
    """What a call's earlier tries said about its write: a try whose commit went unanswered
    may have committed, and a later try that never reached its commit cannot undo that."""

    uncertain: ThreadlineError | None = None

    def seen(self, error: ThreadlineError) -> ThreadlineError:
        self.uncertain = weightier(self.uncertain, error)
        return error

    def answer(self, last: ThreadlineError) -> ThreadlineError:
        """The call's answer when its last try failed with `last` (errors.weightier)."""
        return weightier(self.uncertain, last)


class Store:
    def __init__(self, driver: AsyncDriver, database: str, timeout_s: float) -> None:
        self._driver = driver
        self._database = database
        self._timeout_s = timeout_s
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()
        self._warming: asyncio.Task[None] | None = None
        self.warm = False  # every served statement has been planned since Neo4j last started
        # Statements as requests ran them, each with its first parameters disguised: the
        # plans Neo4j loses when it restarts, and the warm-up makes again first.
        self._shapes: dict[str, dict[str, Any]] = {}
        self._prepared: set[Prepared] = set()  # planned since Neo4j last answered
        self._planning: dict[Prepared, asyncio.Task[None]] = {}  # being planned, once each
        self._left_when_stopped = -1
        self.round_trips = 0
        # Commands rehearsed at warm-up, rolled back (api/commands/warm_up.py).
        self.rehearsal: Callable[[Tx], Awaitable[None]] | None = None
        # Reads a request's answer makes, rehearsed after it (outside its transaction).
        self.reading_rehearsal: Callable[[], Awaitable[None]] | None = None
        # Written (committed) once, before anything is planned: api/commands/warm_up.py.
        self.family: Callable[[Tx], Awaitable[bool]] | None = None
        self._warmed_once = False
        # A span per statement while set (api/process/telemetry.py); None costs nothing.
        self.tracer: Tracer | None = None

    def span_attributes(self, name: str, params: dict[str, Any]) -> dict[str, str]:
        """What a statement's span says: the database, the statement, its workspace."""
        attributes = {
            "db.system": "neo4j",
            "db.namespace": self._database,
            "db.query.name": name,
        }
        workspace = params.get("workspace")
        if isinstance(workspace, str):
            attributes["threadline.workspace"] = workspace
        return attributes

    @classmethod
    def connect(
        cls,
        uri: str,
        auth: tuple[str, str] | None,
        database: str = "neo4j",
        timeout_s: float = 10.0,
    ) -> Store:
        driver = AsyncGraphDatabase.driver(
            uri,
            auth=auth,
            connection_timeout=min(timeout_s, 0.5),
            connection_acquisition_timeout=min(timeout_s, 1.0),
            # Retries are ours (short and bounded by the request's deadline), not the
            # driver's exponential backoff, which outlasts an outage by seconds.
            max_transaction_retry_time=0.0,
            # A pooled connection idle this long is checked before use, so connections
            # left over from before a restart are dropped instead of failing a request.
            liveness_check_timeout=0.5,
            # "Property key / label does not exist yet" on a young graph: every statement is
            # planned before the graph holds every kind of node, so these are expected.
            notifications_disabled_classifications=[
                NotificationDisabledClassification.UNRECOGNIZED
            ],
        )
        return cls(driver, database, timeout_s)

    async def close(self) -> None:
        background = [*self._planning.values(), *([self._warming] if self._warming else [])]
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        await self._driver.close()

    async def read(self, work: TxWork[T], *, counted: bool = True) -> T:
        """`counted=False`: the process's housekeeping (what it knows of closed workspaces,
        api/closed.py), which `round_trips` leaves out, as it does the warm-up."""
        return await self._execute(work, write=False, idempotent=True, counted=counted)

    async def write(self, work: TxWork[T], *, idempotent: bool = False) -> T:
        """`idempotent`: running `work` again after a commit is harmless (it finds its
        own receipt), so an unknown outcome may be retried instead of reported."""
        return await self._execute(work, write=True, idempotent=idempotent)

    async def ping(self) -> None:
        """Raise UNAVAILABLE unless the database answers a query, at once: no retries."""
        try:
            async with asyncio.timeout(self._timeout_s), self._session() as session:
                self.round_trips += 1
                result = await session.run(queries.load("health/ping"))
                row = await result.single()
        except (DriverError, Neo4jError, OSError, TimeoutError) as error:
            self._forget_bookmarks()
            self._replan()
            raise _unanswered(error, self._timeout_s) from error
        if row is None or row.get("one") != 1:
            raise ThreadlineError(ErrorCode.UNAVAILABLE, "Neo4j answered ping unexpectedly.")

    @property
    def serving(self) -> bool:
        """Whether requests should come here (what /readyz says once Neo4j answers).

        Not before the first warm-up has ended, so a new service is not slow to its first
        clients. After an outage, at once: the warm-up runs again behind the requests, as
        holding every request back until it ends kept the API away for half a minute on a
        busy machine (docs/SCALING.md).
        """
        return self._warmed_once

    def start_warm_up(self) -> None:
        """Prepare every statement the service runs, in the background, unless that is
        done or under way.

        A freshly started Neo4j plans and compiles each statement on its first run, which
        takes from a few hundred milliseconds to seconds per statement: without this, the
        first requests after a start or a restart are slow for many seconds. Each one runs
        once, with no parameters, in a transaction that is rolled back; on the first
        warm-up, `rehearsal` then plans the commands a client sends first with their real
        parameter shapes. The warm-up goes on in passes until every statement is planned:
        what a pass planned is kept until a connection fails (`_replan`).
        """
        if not self.warm and (self._warming is None or self._warming.done()):
            # In a context of its own: it serves no request, though one may start it.
            self._warming = asyncio.create_task(self._warm(), context=contextvars.Context())

    def _forget_bookmarks(self) -> None:
        """Start causal chaining afresh. Neo4j may have come back restored from an older
        dump: a bookmark naming a transaction it will never have makes every transaction
        wait for it, until the request gives up, forever. On one server nothing is lost:
        a committed write is visible to every later transaction without a bookmark."""
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()

    def _replan(self) -> None:
        """Neo4j may be restarting, to come back with nothing planned: plan everything
        again as soon as it answers (a plan Neo4j still has takes milliseconds)."""
        self.warm = False
        self._prepared.clear()
        self.start_warm_up()

    async def planned(self, name: str, text: str, params: dict[str, Any]) -> None:
        """Until the warm-up has planned every statement, a request's statement is planned
        by whoever needs it first, and the others wait for that plan (`_plan_once`).

        Neo4j does not share a plan in the making: side by side, every request that needs
        the statement plans it itself. After a restart a command's write statement takes
        seconds to plan on a cold server, and planned by every waiting request at once it
        kept the first write away for 10-20 s (docs/SCALING.md, "After Neo4j restarts").
        """
        if self.warm or not queries.is_served(name):
            return
        each = Prepared(text, real=True)
        if each not in self._prepared:
            await self._plan_once(each, _disguised(params), WARM_UP_STATEMENT_S)

    async def _plan_once(self, each: Prepared, params: dict[str, Any], timeout_s: float) -> None:
        """Plan `each` (`_alone`), or wait for the planning already under way. The planning
        outlives a waiter that gives up (its deadline), for the next one to find done."""
        task = self._planning.get(each)
        if task is None:
            planning = self._alone(each.text, params, timeout_s)
            task = asyncio.create_task(planning, context=contextvars.Context())
            self._planning[each] = task
            task.add_done_callback(lambda done: self._planned(each, done))
        await asyncio.shield(task)

    def _planned(self, each: Prepared, task: asyncio.Task[None]) -> None:
        del self._planning[each]
        if not task.cancelled() and task.exception() is None:
            self._prepared.add(each)

    async def warm_up(self) -> None:
        """`start_warm_up`, waiting until it is done."""
        self.start_warm_up()
        if self._warming is not None:
            await asyncio.shield(self._warming)

    async def _warm(self) -> None:
        passes = AsyncRetrying(
            retry=retry_if_result(lambda done: not done), wait=wait_fixed(WARM_UP_PASS_WAIT_S)
        )
        await passes(self._warm_pass)
        self.warm = self._warmed_once = True

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
        async with asyncio.timeout(REHEARSAL_S), self._session() as session:
            tx = await session.begin_transaction(timeout=REHEARSAL_S)
            try:
                written = await work(Tx(tx, self))
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
        async with asyncio.timeout(REHEARSAL_S), self._session() as session:
            tx = await session.begin_transaction(timeout=REHEARSAL_S)
            try:
                await work(_RehearsalTx(tx, self))
            except (Neo4jError, ThreadlineError) as error:
                log.warning("warm-up rehearsal stopped: %s", error)
            finally:
                await tx.close()  # rolls back: nothing is written

    async def _alone(self, text: str, params: dict[str, Any], timeout_s: float) -> None:
        """`text` planned and run in a transaction of its own that is rolled back."""
        async with asyncio.timeout(timeout_s), self._session() as session:
            tx = await session.begin_transaction(timeout=timeout_s)
            try:
                await (await tx.run(text, params)).consume()
            except Neo4jError:
                pass  # planned and compiled all the same; the parameters are not data
            finally:
                await tx.close()  # rolls back: nothing is written

    async def migrate(self) -> int:
        """Apply every schema statement (idempotent) and record the code's schema version.
        Returns how many statements ran. A graph whose recorded version is newer than the
        code's is refused before anything runs (GraphTooNewError)."""
        code = queries.schema_version()
        try:
            found = await self.graph_version()
            if found > code:
                raise GraphTooNewError(found, code)
            statements = queries.schema_statements()
            async with self._session() as session:
                for statement in statements:
                    self.round_trips += 1
                    await session.run(statement)
                self.round_trips += 1
                await session.run(queries.load("migration/record"), {"version": code})
        except DriverError as error:
            raise _unavailable(error) from error
        return len(statements)

    async def graph_version(self) -> int:
        """The schema version the graph records; 0 when it records none."""
        async with self._session() as session:
            self.round_trips += 1
            row = await (await session.run(queries.load("migration/version"))).single()
        return int(row["version"]) if row is not None and row["version"] is not None else 0

    async def pending_migrations(self) -> list[queries.Migration]:
        """The migrations newer than the graph's recorded schema version."""
        found = await self.graph_version()
        return [migration for migration in queries.migrations() if migration.version > found]

    async def long(self, work: TxWork[T], *, write: bool, timeout_s: float, keep: bool = True) -> T:
        """`work` in one explicit transaction of up to `timeout_s`, never retried: for a
        backup or a restore, which the operator runs again if it fails. A write commits
        only when `work` returns (and `keep`: else it is rolled back all the same, as a
        backup's pause, which writes only to take locks); any error rolls it back whole."""
        mode = WRITE_ACCESS if write else READ_ACCESS
        try:
            async with self._driver.session(
                database=self._database,
                bookmark_manager=self._bookmarks,
                default_access_mode=mode,
            ) as session:
                tx = await session.begin_transaction(timeout=timeout_s)
                try:
                    result = await work(Tx(tx, self))
                    if keep:
                        await tx.commit()
                    return result
                finally:
                    await tx.close()  # after a commit, nothing; else a rollback
        except ConstraintError as error:
            raise _conflict(error) from error
        except (DriverError, OSError) as error:
            self._forget_bookmarks()
            raise _unavailable(error) from error

    def _session(self) -> AsyncSession:
        # One bookmark manager per store: read-your-writes across sessions, also on clusters.
        return self._driver.session(database=self._database, bookmark_manager=self._bookmarks)

    async def _execute(
        self, work: TxWork[T], *, write: bool, idempotent: bool, counted: bool = True
    ) -> T:
        deadline = _deadline.get() or time.monotonic() + self._timeout_s
        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda error: isinstance(error, _Transient)),
            wait=wait_fixed(RETRY_WAIT_S),
            stop=lambda state: _out_of_time(state, deadline),
            reraise=True,
        )
        tries = _Tries()
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._attempt(work, write, idempotent, deadline, tries, counted)
        except _Transient as gave_up:
            raise tries.answer(gave_up.error) from gave_up
        except ThreadlineError as error:
            answer = tries.answer(error)
            if answer is error:
                raise
            raise answer from error
        raise AssertionError("tenacity ends with a result or an error")  # pragma: no cover

    async def _attempt(
        self,
        work: TxWork[T],
        write: bool,
        idempotent: bool,
        deadline: float,
        tries: _Tries,
        counted: bool,
    ) -> T:
        state = _Attempt()
        budget = deadline - ANSWER_MARGIN_S - time.monotonic()
        if budget <= 0:
            raise _timed_out(self._timeout_s)

        @unit_of_work(timeout=budget)
        async def in_tx(tx: AsyncManagedTransaction) -> T:
            done = Tx(tx, self)
            done.counted = counted
            result = await work(done)
            state.committing = True
            return result

        try:
            async with asyncio.timeout(budget), self._session() as session:
                with _pipelined_begin(session):
                    if write:
                        return await session.execute_write(in_tx)
                    return await session.execute_read(in_tx)
        except ConstraintError as error:
            raise _conflict(error) from error
        except (DriverError, Neo4jError, OSError, TimeoutError) as error:
            if isinstance(error, Neo4jError) and not error.is_retryable():
                if "TransactionTimedOut" in (error.code or ""):
                    raise _timed_out(self._timeout_s) from error
                raise  # a query the server refuses is a bug: reported as INTERNAL
            if _may_have_restarted(error):
                self._forget_bookmarks()
            if isinstance(error, DriverError | OSError):
                self._replan()
            if write and state.committing:
                unknown = tries.seen(_outcome_unknown(error))
                if not idempotent:
                    raise unknown from error
                raise _Transient(unknown) from error
            raise _Transient(_unanswered(error, self._timeout_s)) from error


def _pipelined_begin(session: AsyncSession) -> contextlib.AbstractContextManager[object]:
    """BEGIN sent with the transaction's first statement instead of alone: one message
    exchange less per transaction, which under load gave about a tenth more throughput
    (CPU saved in Neo4j and in the driver; docs/SCALING.md). The driver does this for its
    own `execute_query`; for transaction functions its switch is private, so a driver
    without it begins as before, and tests/integration/test_round_trips.py notices."""
    switch = getattr(session, "_pipelined_begin", None)
    if switch is None:
        return contextlib.nullcontext()
    return cast(contextlib.AbstractContextManager[object], switch)


def _may_have_restarted(error: BaseException) -> bool:
    """The connection failed, the answer did not come, or Neo4j gave up waiting for a
    bookmarked transaction: it may be another database than the one the bookmarks name."""
    if isinstance(error, Neo4jError):
        return "BookmarkTimeout" in (error.code or "")
    return isinstance(error, DriverError | OSError | TimeoutError)


def _null_parameters(text: str) -> dict[str, None]:
    return dict.fromkeys(PARAMETER.findall(text))


def _out_of_time(state: RetryCallState, deadline: float) -> bool:
    return time.monotonic() + RETRY_WAIT_S >= deadline - ANSWER_MARGIN_S


def _unavailable(error: BaseException) -> ThreadlineError:
    return ThreadlineError(
        ErrorCode.UNAVAILABLE,
        f"The graph database is unavailable ({type(error).__name__}); nothing was written; retry.",
    )


def _conflict(error: ConstraintError) -> ThreadlineError:
    """A unique key taken: a client-chosen thread id already in use is final (retrying
    cannot help); anything else is a concurrent command that won the race."""
    if "label `Thread`" in (error.message or ""):
        return ThreadlineError(
            ErrorCode.CONFLICT,
            "A thread with this id already exists in this workspace; choose another id.",
        )
    return ThreadlineError(
        ErrorCode.CONFLICT, "A concurrent change touched the same object; try again."
    )


def _outcome_unknown(error: BaseException) -> ThreadlineError:
    return ThreadlineError(
        ErrorCode.UNAVAILABLE,
        f"The graph database went away after the change was sent ({type(error).__name__}): "
        "it may or may not have been made. Retry with the same commandId to learn which; "
        "without one, check before retrying.",
        outcome="UNKNOWN",
    )


def _unanswered(error: BaseException, timeout_s: float) -> ThreadlineError:
    """UNAVAILABLE, said one way for a request bound that ran out, whichever side noticed."""
    return _timed_out(timeout_s) if isinstance(error, TimeoutError) else _unavailable(error)


def _timed_out(timeout_s: float) -> ThreadlineError:
    return ThreadlineError(
        ErrorCode.UNAVAILABLE,
        f"The graph database did not answer within {timeout_s:g} s (it is busy or has just "
        "restarted, or the command waited on others that change the same thread); nothing "
        "was written; retry.",
    )
