"""A Bolt link to the test Neo4j that a test can cut and mend: Neo4j going away and coming
back, as the service sees it, without stopping the server the worker's other tests use.

Stopping the worker's own server for that left every later test of the worker on a cold
Neo4j that plans and compiles everything again; a real kill and restart is tested once,
in tests/integration/test_fault.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit


class Link:
    """Forwards connections from a local port to Neo4j's Bolt port until `cut`."""

    def __init__(self, neo4j_uri: str) -> None:
        target = urlsplit(neo4j_uri)
        self._target = (target.hostname or "127.0.0.1", target.port or 7687)
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.StreamWriter] = set()
        self.port = 0

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.port}"

    async def mend(self) -> None:
        """Accept connections again, on the same port as before."""
        self._server = await asyncio.start_server(self._joined, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Refuse new connections and drop the open ones, as a dead server does."""
        if self._server is not None:
            self._server.close()
        for writer in list(self._pipes):
            writer.transport.abort()
        self._pipes.clear()

    async def _joined(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._pipes |= {writer, upstream_writer}
        await asyncio.gather(
            _copy(reader, upstream_writer), _copy(upstream_reader, writer), return_exceptions=True
        )
        self._pipes -= {writer, upstream_writer}


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    finally:
        sink.transport.abort()


@contextlib.asynccontextmanager
async def linked(neo4j_uri: str) -> AsyncIterator[Link]:
    """A mended link to `neo4j_uri`, cut when the block ends."""
    link = Link(neo4j_uri)
    await link.mend()
    try:
        yield link
    finally:
        await link.cut()
