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
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
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
    NotificationDisabledClassification,
    unit_of_work,
)
from neo4j.exceptions import ConstraintError, DriverError, Neo4jError
from opentelemetry.trace import Tracer
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    wait_fixed,
)

from graph import queries
from graph.errors import ErrorCode, ThreadlineError, weightier
from graph.tx import Tx
from graph.warm_up import WarmUp

T = TypeVar("T")
TxWork = Callable[["Tx"], Awaitable[T]]

RETRY_WAIT_S = 0.2
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


class _Transient(Exception):
    """An attempt that may succeed if made again."""

    def __init__(self, error: ThreadlineError) -> None:
        super().__init__(error.message)
        self.error = error


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
        self.round_trips = 0
        self.warm_up = WarmUp(self)
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
        await self.warm_up.stop()
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
            async with asyncio.timeout(self._timeout_s), self.session() as session:
                self.round_trips += 1
                result = await session.run(queries.load("health/ping"))
                row = await result.single()
        except (DriverError, Neo4jError, OSError, TimeoutError) as error:
            self._forget_bookmarks()
            self.warm_up.replan()
            raise _unanswered(error, self._timeout_s) from error
        if row is None or row.get("one") != 1:
            raise ThreadlineError(ErrorCode.UNAVAILABLE, "Neo4j answered ping unexpectedly.")

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
            raise unavailable(error) from error

    def _forget_bookmarks(self) -> None:
        """Start causal chaining afresh. Neo4j may have come back restored from an older
        dump: a bookmark naming a transaction it will never have makes every transaction
        wait for it, until the request gives up, forever. On one server nothing is lost:
        a committed write is visible to every later transaction without a bookmark."""
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()

    def session(self) -> AsyncSession:
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
            async with asyncio.timeout(budget), self.session() as session:
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
                self.warm_up.replan()
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


def _out_of_time(state: RetryCallState, deadline: float) -> bool:
    return time.monotonic() + RETRY_WAIT_S >= deadline - ANSWER_MARGIN_S


def unavailable(error: BaseException) -> ThreadlineError:
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
    return _timed_out(timeout_s) if isinstance(error, TimeoutError) else unavailable(error)


def _timed_out(timeout_s: float) -> ThreadlineError:
    return ThreadlineError(
        ErrorCode.UNAVAILABLE,
        f"The graph database did not answer within {timeout_s:g} s (it is busy or has just "
        "restarted, or the command waited on others that change the same thread); nothing "
        "was written; retry.",
    )
