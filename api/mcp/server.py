"""Threadline over the Model Context Protocol: the tools agents call, over streamable HTTP
at `/mcp` (the caller's bearer token on every request) or over stdio (`threadline mcp`,
one principal for the process).

Every tool answers JSON (structured content) and a short text; a failure is a tool error
whose structured content carries the GraphQL error's `code` and `message`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import ValidationError
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from api.auth import Principal
from api.http.requests import refused_caller
from api.mcp import tools
from api.mcp.tools import Answer, Gateway, Operation
from api.services import Services
from graph.errors import ThreadlineError, invalid
from graph.models import RunItemKind

# Who is calling: from the request's headers over HTTP, fixed for a stdio process.
Who = Callable[[Context], Principal]
READ = ToolAnnotations(read_only_hint=True)


def refusal(answer: Answer) -> CallToolResult:
    """A tool error whose structured content is the failure's code and message."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{answer.code}: {answer.message}")],
        structured_content={"code": answer.code, "message": answer.message},
        is_error=True,
    )


def failed(error: ThreadlineError) -> Answer:
    return Answer(code=error.code.value, message=error.message)


def result(answer: Answer, summary: Callable[[Any], str]) -> CallToolResult:
    if answer.failed:
        return refusal(answer)
    return CallToolResult(
        content=[TextContent(type="text", text=summary(answer.value))],
        structured_content={"result": answer.value},
    )


def counted(number: int, noun: str) -> str:
    """`1 run`, `2 runs`: a tool's one-line answer, as a person would write it."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def given(**values: Any) -> dict[str, Any]:
    """The arguments a caller gave: an omitted one takes the GraphQL argument's default."""
    return {key: value for key, value in values.items() if value is not None}


class CodedServer(MCPServer):
    """An MCP server whose refusals of a call's arguments (an unknown or missing argument,
    a value of the wrong type, an unknown tool) are coded like every other failure:
    INVALID_INPUT, naming the arguments but never echoing their values."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            return refusal(failed(invalid(refused_arguments(name, error))))


def refused_arguments(tool: str, error: ToolError) -> str:
    cause = error.__cause__
    if not isinstance(cause, ValidationError):
        return str(error)
    problems = "; ".join(
        f"{'.'.join(str(part) for part in each['loc'])}: {each['msg']}" for each in cause.errors()
    )
    return f"Arguments of {tool} refused ({problems})."


def build(gateway: Gateway, who: Who) -> MCPServer:
    server = CodedServer(
        name="threadline",
        version=version("threadline"),
        # The SDK calls logging.basicConfig at this level: a no-op where the process set
        # up its logging (serve, mcp), and in a console command's in-process app it would
        # print every request as an INFO line.
        log_level="WARNING",
        instructions="Lineage and context of coding-agent threads: read what a handoff left "
        "out (thread_read), see coverage and lineage, plan a start, fork.",
    )

    async def call(ctx: Context, operation: Operation, variables: dict[str, Any]) -> Answer:
        try:
            principal = who(ctx)
        except ThreadlineError as error:
            return failed(error)
        return await gateway.run(principal, operation, variables)

    @server.tool(annotations=READ)
    async def list_threads(
        ctx: Context,
        first: int | None = None,
        after: str | None = None,
        title_contains: str | None = None,
    ) -> CallToolResult:
        """The workspace's threads, oldest first, a page at a time (`after`: a cursor)."""
        found = await call(
            ctx,
            tools.LIST_THREADS,
            given(first=first, after=after, titleContains=title_contains),
        )
        return result(found, lambda page: f"{counted(len(page['edges']), 'thread')}.")

    @server.tool(annotations=READ)
    async def thread_read(
        ctx: Context,
        thread_id: str,
        first: int | None = None,
        after: str | None = None,
        kinds: list[RunItemKind] | None = None,
        run_ordinals: list[int] | None = None,
    ) -> CallToolResult:
        """The thread's canonical items, oldest first, a page at a time, each run's input
        first as its item index -1 (kind USER_GOAL): what a handoff left out (its
        `omitted` names run ordinals, indexes and kinds to ask for)."""
        found = await call(
            ctx,
            tools.THREAD_READ,
            given(
                id=thread_id,
                first=first,
                after=after,
                kinds=[kind.value for kind in kinds] if kinds else None,
                runOrdinals=run_ordinals,
            ),
        )
        return result(found, lambda thread: f"{counted(len(thread['items']['edges']), 'item')}.")

    @server.tool(annotations=READ)
    async def thread_context(ctx: Context, thread_id: str) -> CallToolResult:
        """The thread in short: its runs (ordinal, provider, status) and each provider
        thread with its coverage and missing runs."""
        found = await call(ctx, tools.THREAD_CONTEXT, {"id": thread_id})
        return result(
            found,
            lambda thread: (
                f"{counted(len(thread['runs']), 'run')}, "
                f"{counted(len(thread['providerThreads']), 'provider thread')}."
            ),
        )

    @server.tool(annotations=READ)
    async def lineage(
        ctx: Context,
        thread_id: str,
        direction: Literal["ANCESTORS", "DESCENDANTS", "BOTH"] | None = None,
        depth: int | None = None,
    ) -> CallToolResult:
        """The thread's family: ancestors and descendants up to `depth`."""
        found = await call(
            ctx, tools.LINEAGE, given(id=thread_id, direction=direction, depth=depth)
        )
        return result(
            found, lambda family: f"{counted(len(family['nodes']), 'thread')} in the family."
        )

    @server.tool(annotations=READ)
    async def explain_start(
        ctx: Context, thread_id: str, provider: str, model: str | None = None
    ) -> CallToolResult:
        """What a start on `provider` would do now (a dry run: nothing is written)."""
        found = await call(
            ctx, tools.EXPLAIN_START, given(id=thread_id, provider=provider, model=model)
        )
        return result(found, lambda plan: f"{plan['strategy']}, {plan['tokenEstimate']} tokens.")

    @server.tool(annotations=READ)
    async def get_handoff(ctx: Context, handoff_id: str) -> CallToolResult:
        """A handoff: its text, the items it left out, and its quality."""
        found = await call(ctx, tools.GET_HANDOFF, {"id": handoff_id})
        return result(found, lambda handoff: str(handoff["summaryText"]))

    @server.tool(annotations=READ)
    async def suggest_providers(ctx: Context, thread_id: str) -> CallToolResult:
        """Every provider that could take the thread, available ones first, the cheapest
        context first, each with its plan."""
        found = await call(ctx, tools.SUGGEST_PROVIDERS, {"id": thread_id})
        return result(
            found,
            lambda ranked: ", ".join(
                f"{s['provider']} ({'available' if s['available'] else 'limited'})" for s in ranked
            ),
        )

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def fork_thread(
        ctx: Context,
        source_thread_id: str,
        run_id: str | None = None,
        latest_stable: bool | None = None,
        title: str | None = None,
    ) -> CallToolResult:
        """A fork of the thread at a completed run (`run_id`) or at its latest completed
        checkpointed run (`latest_stable`). Needs a token with write scope."""
        at = given(runId=run_id, latestStable=latest_stable)
        # The operation refuses a read token or another workspace's thread before it reads
        # `at`, as over GraphQL; its refusal of `at` is said in the tool's own argument names.
        found = await call(ctx, tools.FORK_THREAD, given(id=source_thread_id, at=at, title=title))
        if found.code == "INVALID_INPUT" and (run_id is not None) + bool(latest_stable) != 1:
            return refusal(failed(invalid("Give exactly one of run_id or latest_stable: true.")))
        return result(found, lambda thread: f"Forked as {thread['id']}.")

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    async def prepare_handoff(
        ctx: Context,
        thread_id: str,
        provider: str,
        model: str | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """The handoff the next start of the thread on `provider` would inject, written now
        (READY, no target run yet) for a person to read and replace; that start injects it
        as it is while its plan has not moved. Needs a token with write scope."""
        found = await call(
            ctx,
            tools.PREPARE_HANDOFF,
            given(id=thread_id, provider=provider, model=model, commandId=command_id),
        )
        return result(found, lambda handoff: str(handoff["summaryText"]))

    return server


# ---- HTTP -------------------------------------------------------------------------


def over_http(
    gateway: Gateway, services: Callable[[], Services], security: TransportSecuritySettings
) -> MCPServer:
    """The server `/mcp` serves: each call as the holder of its request's bearer token.
    `security`: the host guard's names (api/http/hosts.py), which the SDK checks again on
    every request, as the MCP specification asks."""

    def who(ctx: Context) -> Principal:
        headers = ctx.headers or {}
        return services().tokens.authenticate(headers.get("authorization"))

    server = build(gateway, who)
    # Stateless JSON: every POST is whole in itself, so any worker can answer it.
    server.streamable_http_app(stateless_http=True, json_response=True, transport_security=security)
    return server


@asynccontextmanager
async def sessions(server: MCPServer) -> AsyncIterator[None]:
    """The session manager's task group, for the app's lifespan. anyio needs a task group
    left in the task that entered it, and a lifespan may end in another task than the one
    it began in (a test's fixture does), so the group lives in a task of its own."""
    ready, stop = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with server.session_manager.run():
            ready.set()
            await stop.wait()

    holder = asyncio.create_task(hold())
    waiting = asyncio.create_task(ready.wait())
    await asyncio.wait({holder, waiting}, return_when=asyncio.FIRST_COMPLETED)
    if holder.done():
        waiting.cancel()
        holder.result()  # its failure, raised here
    try:
        yield
    finally:
        stop.set()
        await holder


NO_STREAM = PlainTextResponse(
    "/mcp answers each JSON-RPC message POSTed to it; it offers no event stream to GET.\n",
    status_code=405,
    headers={"Allow": "POST"},
)


class Endpoint:
    """`/mcp`: requests without a valid token (when the service has tokens) are refused
    before the protocol sees them, `tools/list` included."""

    def __init__(self, server: MCPServer, services: Callable[[], Services]) -> None:
        self._server = server
        self._services = services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1") or None
        refused = refused_caller(self._services(), authorization, "/mcp")
        if refused is not None:
            await refused(scope, receive, send)
            return
        if scope.get("method") == "GET":
            # Stateless JSON has no stream to hold open: the MCP transport's answer for a
            # server that offers none is 405 (else a GET would wait for ever on nothing).
            await NO_STREAM(scope, receive, send)
            return
        await self._server.session_manager.handle_request(scope, receive, send)
