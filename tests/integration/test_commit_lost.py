"""A commit whose answer is lost: the outcome is reported unknown, or resolved by commandId.

A proxy between the store and Neo4j forwards a transaction's COMMIT and then cuts the
connection before Neo4j's answer comes back, as a crash right after the commit would.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlparse

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.store import Store, Tx
from tests.support.direct import create_thread
from tests.support.graphql import connect_test_store

# A Bolt COMMIT message: chunk of 2 bytes, a struct with no fields and signature 0x12.
COMMIT = b"\x00\x02\xb0\x12\x00\x00"


class CommitCutter:
    """Forwards Bolt traffic; `armed`, it cuts the next connection that sends COMMIT,
    right after forwarding it, so Neo4j commits and the driver never hears so."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.armed = False
        self.cuts = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> CommitCutter:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(
        self, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter
    ) -> None:
        server_in, server_out = await asyncio.open_connection(*self.target)
        cut = asyncio.Event()
        answered = asyncio.Event()  # Neo4j answered the COMMIT: it is applied

        async def upstream() -> None:
            while data := await client_in.read(65536):
                committing = self.armed and COMMIT in data
                if committing:
                    cut.set()  # from now on nothing Neo4j says reaches the driver
                server_out.write(data)
                await server_out.drain()
                if committing:
                    self.armed = False
                    self.cuts += 1
                    await asyncio.wait_for(answered.wait(), 30)
                    return

        async def downstream() -> None:
            while data := await server_in.read(65536):
                if cut.is_set():
                    answered.set()  # the COMMIT's answer, kept from the driver
                    return
                client_out.write(data)
                await client_out.drain()

        tasks = [asyncio.create_task(upstream()), asyncio.create_task(downstream())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        for writer in (client_out, server_out):
            with contextlib.suppress(Exception):
                writer.close()


@pytest.fixture
async def cutter(neo4j_uri: str) -> AsyncIterator[CommitCutter]:
    parsed = urlparse(neo4j_uri)
    async with CommitCutter(parsed.hostname or "127.0.0.1", parsed.port or 7687) as proxy:
        yield proxy


@pytest.fixture
async def proxied(cutter: CommitCutter, clean_store: Store) -> AsyncIterator[Store]:
    """A store whose Bolt traffic goes through `cutter` (on a clean database)."""
    store = connect_test_store(f"bolt://127.0.0.1:{cutter.port}", timeout_s=5.0)
    try:
        yield store
    finally:
        await store.close()


async def exists(store: Store, thread_id: str) -> bool:
    async def work(tx: Tx) -> bool:
        return bool(await tx.rows("thread/by_ids", ids=[thread_id], workspace="default"))

    return await store.read(work)


async def test_a_lost_commit_answer_is_unknown_without_a_command_id(
    cutter: CommitCutter, proxied: Store, clean_store: Store
) -> None:
    cutter.armed = True
    with pytest.raises(ThreadlineError) as raised:
        await create_thread(proxied, "default", "lost", "lost-answer")
    assert cutter.cuts == 1
    assert raised.value.code is ErrorCode.UNAVAILABLE
    assert raised.value.extensions["outcome"] == "UNKNOWN"
    assert await exists(clean_store, "lost-answer"), "the commit did reach Neo4j"


async def test_a_lost_commit_answer_is_resolved_with_a_command_id(
    cutter: CommitCutter, proxied: Store
) -> None:
    cutter.armed = True
    created = await create_thread(proxied, "default", "lost", "resolved", "cmd-lost")
    assert cutter.cuts == 1
    assert created.id == "resolved"
    again = await create_thread(proxied, "default", "lost", "resolved", "cmd-lost")
    assert again == created, "the receipt answers the committed result"
