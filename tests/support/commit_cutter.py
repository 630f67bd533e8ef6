"""A Bolt proxy that lets a transaction's COMMIT through and cuts the connection before
Neo4j's answer comes back, as a crash right after the commit would; then, if asked, it
refuses every connection, as a Neo4j that stays down does."""

from __future__ import annotations

import asyncio
import contextlib

# A Bolt COMMIT message: chunk of 2 bytes, a struct with no fields and signature 0x12.
COMMIT = b"\x00\x02\xb0\x12\x00\x00"
# A BEGIN (a struct of one or more fields, signature 0x11), and the entry of its extra
# that makes the transaction a read ("mode": "r"; a write names no mode).
BEGIN = (b"\xb1\x11", b"\xb2\x11", b"\xb3\x11")
READ_MODE = b"\x84mode\x81r"


class CommitCutter:
    """Forwards Bolt traffic; `armed`, it cuts the next connection that sends the COMMIT
    of a write transaction (a read's, such as a process's housekeeping, passes), right
    after forwarding it, so Neo4j commits and the driver never hears so. With
    `refuse_after_cut`, every connection after that cut is refused until `refusing` is
    set back to False."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.armed = False
        self.refuse_after_cut = False
        self.refusing = False
        self.cuts = 0
        self.refused = 0
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
        if self.refusing:
            self.refused += 1
            client_out.transport.abort()
            return
        server_in, server_out = await asyncio.open_connection(*self.target)
        cut = asyncio.Event()
        answered = asyncio.Event()  # Neo4j answered the COMMIT: it is applied

        async def upstream() -> None:
            reading = False  # the connection's current transaction is a read
            while data := await client_in.read(65536):
                if any(begin in data for begin in BEGIN):
                    reading = READ_MODE in data
                committing = self.armed and not reading and COMMIT in data
                if committing:
                    cut.set()  # from now on nothing Neo4j says reaches the driver
                server_out.write(data)
                await server_out.drain()
                if committing:
                    self.armed = False
                    self.refusing = self.refuse_after_cut
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
