"""A real OpenAI-compatible chat-completions server for the configured summarizer's tests.

It listens on a free local port (uvicorn, in the test's event loop) and answers
`POST /v1/chat/completions` as `mode` says: a good summary, an answer later than any
timeout, a 500, an answer far over the budget, or one held until the test releases it.
It counts the calls it got and keeps what they sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.served import free_port

ANSWERING_MODEL = "tiny-summarizer-1"
LONG_WAIT_S = 60.0


class Mode(StrEnum):
    GOOD = "good"
    SLOW = "slow"  # answers after LONG_WAIT_S: past any timeout the tests set
    ERROR = "error"  # HTTP 500
    OVERSIZED = "oversized"  # a summary far over the entering provider's budget
    HELD = "held"  # answers well once the test sets `release`


@dataclass
class ChatServer:
    url: str = ""
    mode: Mode = Mode.GOOD
    calls: Counter[Mode] = field(default_factory=Counter)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)
    received: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    oversized_chars: int = 300_000

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def summary_of(self, body: dict[str, Any]) -> str:
        """The good answer: a summary naming every user message of the material."""
        material = json.loads(body["messages"][1]["content"])
        asked = "; ".join(run["input"] for run in material["runs"])
        return f"{material['title']}\n\n## Summary by {ANSWERING_MODEL}\n- Asked: {asked}\n"

    async def answer(self, request: Request) -> Response:
        body = await request.json()
        mode = self.mode
        self.calls[mode] += 1
        self.bodies.append(body)
        self.authorizations.append(request.headers.get("authorization"))
        self.received.set()
        if mode is Mode.ERROR:
            return JSONResponse({"error": {"message": "boom"}}, status_code=500)
        if mode is Mode.SLOW:
            await self._wait(LONG_WAIT_S)
        if mode is Mode.HELD:
            await self._wait(None)
        text = "x" * self.oversized_chars if mode is Mode.OVERSIZED else self.summary_of(body)
        return JSONResponse(
            {
                "id": f"chatcmpl-{self.total}",
                "object": "chat.completion",
                "model": ANSWERING_MODEL,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    async def _wait(self, seconds: float | None) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.release.wait(), seconds)


@asynccontextmanager
async def chat_server() -> AsyncIterator[ChatServer]:
    server = ChatServer()
    app = Starlette(routes=[Route("/v1/chat/completions", server.answer, methods=["POST"])])
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    running = uvicorn.Server(config)
    task = asyncio.create_task(running.serve())
    while not running.started:
        if task.done():
            task.result()  # it could not start: say why
        await asyncio.sleep(0.01)
    server.url = f"http://127.0.0.1:{port}/v1"
    try:
        yield server
    finally:
        server.release.set()  # let held and slow answers go, so shutting down is quick
        running.should_exit = True
        await task
