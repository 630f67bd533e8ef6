"""Threadline over the Model Context Protocol: the tools agents call, over streamable HTTP
at `/mcp` (the caller's bearer token on every request) or over stdio (`threadline mcp`,
one principal for the process).

Every tool answers its GraphQL value as structured content and the same value as JSON
text (api/mcp/results.py), and declares its outputSchema, derived from its GraphQL
document (api/mcp/output_schemas.py); a failure is a tool error whose text and structured
content are the GraphQL error's `code` and `message`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from importlib.metadata import version
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedToolError,
)
from mcp.server.mcpserver.tools import Tool
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import Field, ValidationError
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from api.auth import Principal
from api.http.requests import refused_caller
from api.mcp import output_schemas, tools
from api.mcp.results import as_json, failed, refusal, result
from api.mcp.tools import Answer, Gateway, Operation
from api.services import Services
from graph.errors import ErrorCode, ThreadlineError, invalid
from graph.models import RunItemKind

# Who is calling: from the request's headers over HTTP, fixed for a stdio process.
Who = Callable[[Context], Principal]
READ = ToolAnnotations(read_only_hint=True)
# The agent's own writes: none destroys anything, and each is idempotent by its command_id.
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
COMMAND_ID = (
    "command_id: the same id again answers the first call's outcome, without writing twice "
    "(the mutations' commandId)."
)


# GraphQL's Int is 32 bits: a larger number is refused here, naming the tool's argument,
# rather than by GraphQL naming its own variable.
Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]


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


class Tools:
    """The tools as the SDK registers them, each with the outputSchema of its operation's
    answer (the SDK publishes a schema its metadata holds as it is)."""

    def __init__(self, sdl: str) -> None:
        self._sdl = sdl
        self.made: list[Tool] = []

    def __call__(
        self, operation: Operation, annotations: ToolAnnotations = READ
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            made = Tool.from_function(fn, annotations=annotations)
            value = output_schemas.root_value(self._sdl, operation.document, operation.root)
            made.fn_metadata.output_schema = output_schemas.tool_output(value)
            self.made.append(made)
            return fn

        return register


def build(gateway: Gateway, who: Who) -> MCPServer:
    tool = Tools(gateway.sdl)

    async def call(ctx: Context, operation: Operation, variables: dict[str, Any]) -> Answer:
        try:
            principal = who(ctx)
        except ThreadlineError as error:
            return failed(error)
        return await gateway.run(principal, operation, variables)

    async def answer(
        ctx: Context, operation: Operation, variables: dict[str, Any]
    ) -> CallToolResult:
        return result(await call(ctx, operation, variables))

    @tool(tools.LIST_THREADS)
    async def list_threads(
        ctx: Context,
        first: Int32 | None = None,
        after: str | None = None,
        title_contains: str | None = None,
        newest_first: bool | None = None,
    ) -> CallToolResult:
        """The workspace's threads, oldest first (`newest_first`: newest first), a page at
        a time (`after`: a cursor)."""
        return await answer(
            ctx,
            tools.LIST_THREADS,
            given(
                first=first,
                after=after,
                titleContains=title_contains,
                newestFirst=newest_first,
            ),
        )

    @tool(tools.SEARCH)
    async def search(
        ctx: Context,
        query: str,
        kinds: list[RunItemKind] | None = None,
        first: Int32 | None = None,
    ) -> CallToolResult:
        """Full-text search of the workspace's thread titles, run inputs and items, best
        first. A hit names its thread, run ordinal and item index (-1: the run's input;
        both null: the title matched), so thread_read can fetch around it. `kinds`: only
        input and item hits of these kinds."""
        return await answer(
            ctx,
            tools.SEARCH,
            given(
                query=query,
                kinds=[kind.value for kind in kinds] if kinds is not None else None,
                first=first,
            ),
        )

    @tool(tools.THREAD_READ)
    async def thread_read(
        ctx: Context,
        thread_id: str,
        first: Int32 | None = None,
        after: str | None = None,
        kinds: list[RunItemKind] | None = None,
        run_ordinals: list[Int32] | None = None,
    ) -> CallToolResult:
        """The thread's canonical items, oldest first, a page at a time, each run's input
        first as its item index -1 (kind USER_GOAL): what a handoff left out (its
        `omitted` names run ordinals, indexes and kinds to ask for)."""
        return await answer(
            ctx,
            tools.THREAD_READ,
            given(
                id=thread_id,
                first=first,
                after=after,
                kinds=[kind.value for kind in kinds] if kinds is not None else None,
                runOrdinals=run_ordinals,
            ),
        )

    @tool(tools.THREAD_CONTEXT)
    async def thread_context(ctx: Context, thread_id: str) -> CallToolResult:
        """The thread in short: its runs (ordinal, provider, status) and each provider
        thread with its coverage and missing runs."""
        return await answer(ctx, tools.THREAD_CONTEXT, {"id": thread_id})

    @tool(tools.LINEAGE)
    async def lineage(
        ctx: Context,
        thread_id: str,
        direction: Literal["ANCESTORS", "DESCENDANTS", "BOTH"] | None = None,
        depth: Int32 | None = None,
    ) -> CallToolResult:
        """The thread's family: ancestors and descendants up to `depth`."""
        return await answer(
            ctx, tools.LINEAGE, given(id=thread_id, direction=direction, depth=depth)
        )

    @tool(tools.EXPLAIN_START)
    async def explain_start(
        ctx: Context, thread_id: str, provider: str, model: str | None = None
    ) -> CallToolResult:
        """What a start on `provider` would do now (a dry run: nothing is written)."""
        return await answer(
            ctx, tools.EXPLAIN_START, given(id=thread_id, provider=provider, model=model)
        )

    @tool(tools.GET_HANDOFF)
    async def get_handoff(ctx: Context, handoff_id: str) -> CallToolResult:
        """A handoff: its text, the items it left out, and its quality."""
        return await answer(ctx, tools.GET_HANDOFF, {"id": handoff_id})

    @tool(tools.SUGGEST_PROVIDERS)
    async def suggest_providers(ctx: Context, thread_id: str) -> CallToolResult:
        """Every provider that could take the thread, available ones first, the cheapest
        context first, each with its plan."""
        return await answer(ctx, tools.SUGGEST_PROVIDERS, {"id": thread_id})

    # ---- the agent's own writes (a token with write scope) -----------------------------

    @tool(tools.FORK_THREAD, WRITE)
    async def fork_thread(
        ctx: Context,
        source_thread_id: str,
        run_id: str | None = None,
        latest_stable: bool | None = None,
        item_index: Int32 | None = None,
        title: str | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """A fork of the thread at a completed run (`run_id`) or at its latest completed
        checkpointed run (`latest_stable`); with `item_index`, at that item of the run
        (0-based, inclusive; -1: the run's input only), as thread_read numbers them. Needs
        a token with write scope."""
        at = given(runId=run_id, latestStable=latest_stable, itemIndex=item_index)
        # The operation refuses a read token or another workspace's thread before it reads
        # `at`, as over GraphQL; its refusal of `at` is said in the tool's own argument names.
        found = await call(
            ctx,
            tools.FORK_THREAD,
            given(id=source_thread_id, at=at, title=title, commandId=command_id),
        )
        if found.code == "INVALID_INPUT" and (run_id is not None) + bool(latest_stable) != 1:
            return refusal(failed(invalid("Give exactly one of run_id or latest_stable: true.")))
        return result(found)

    @tool(tools.PREPARE_HANDOFF, WRITE)
    async def prepare_handoff(
        ctx: Context,
        thread_id: str,
        provider: str,
        model: str | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """The handoff the next start of the thread on `provider` would inject, written now
        (READY, no target run yet) for a person to read and replace; that start injects it
        as it is while its plan has not moved. Needs write scope."""
        return await answer(
            ctx,
            tools.PREPARE_HANDOFF,
            given(id=thread_id, provider=provider, model=model, commandId=command_id),
        )

    @tool(tools.MERGE_BACK, WRITE)
    async def merge_back(
        ctx: Context, fork_thread_id: str, command_id: str | None = None
    ) -> CallToolResult:
        """Carries the fork's runs since it forked back to its source thread: the source's
        next start receives them (a merge-back transfer). Needs write scope."""
        return await answer(ctx, tools.MERGE_BACK, given(id=fork_thread_id, commandId=command_id))

    @tool(tools.SPAWN_SUBAGENT, WRITE)
    async def spawn_subagent(
        ctx: Context,
        parent_run_id: str,
        task: str,
        provider: str | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """Hands `task` to a subagent: a child thread of the run's thread whose first start
        receives the task (on `provider`, or the parent's). Needs write scope."""
        return await answer(
            ctx,
            tools.SPAWN_SUBAGENT,
            given(id=parent_run_id, task=task, provider=provider, commandId=command_id),
        )

    @tool(tools.COMPLETE_SUBAGENT, WRITE)
    async def complete_subagent(
        ctx: Context, child_thread_id: str, result: str, command_id: str | None = None
    ) -> CallToolResult:
        """Delivers a subagent's result to its parent thread: the parent's next start
        receives it. Needs write scope."""
        return await answer(
            ctx,
            tools.COMPLETE_SUBAGENT,
            given(id=child_thread_id, result=result, commandId=command_id),
        )

    @tool(tools.REPORT_LIMIT, WRITE)
    async def report_limit(
        ctx: Context,
        provider: str,
        reason: str,
        resets_at: datetime | None = None,
        run_id: str | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """The caller's account on `provider` hit a usage limit (until `resets_at`, an ISO
        8601 instant, or until cleared); `run_id`: the run it interrupted. Starts on the
        provider are PROVIDER_LIMITED meanwhile. Needs write scope."""
        return await answer(
            ctx,
            tools.REPORT_LIMIT,
            given(
                provider=provider,
                reason=reason,
                resetsAt=resets_at.isoformat() if resets_at is not None else None,
                runId=run_id,
                commandId=command_id,
            ),
        )

    @tool(tools.REPORT_USAGE, WRITE)
    async def report_usage(
        ctx: Context,
        provider_thread_id: str,
        context_tokens: Int32,
        context_window_tokens: Int32 | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """How full the provider thread's context is now (after a native compaction, say):
        the next start's budget starts from it. Needs write scope."""
        usage = given(contextTokens=context_tokens, contextWindowTokens=context_window_tokens)
        return await answer(
            ctx,
            tools.REPORT_USAGE,
            given(id=provider_thread_id, usage=usage, commandId=command_id),
        )

    @tool(tools.SUBMIT_HANDOFF_SUMMARY, WRITE)
    async def submit_handoff_summary(
        ctx: Context,
        handoff_id: str,
        text: str,
        created_by_provider: str | None = None,
        command_id: str | None = None,
    ) -> CallToolResult:
        """Replaces a handoff's text with the one the agent wrote (it keeps to the
        handoff's share of its start's budget), or a person (`created_by_provider`
        omitted). Needs write scope."""
        return await answer(
            ctx,
            tools.SUBMIT_HANDOFF_SUMMARY,
            given(id=handoff_id, text=text, by=created_by_provider, commandId=command_id),
        )

    server = CodedServer(
        name="threadline",
        version=version("threadline"),
        # The SDK calls logging.basicConfig at this level: a no-op where the process set
        # up its logging (serve, mcp), and in a console command's in-process app it would
        # print every request as an INFO line.
        log_level="WARNING",
        instructions="Lineage and context of coding-agent threads: search them, read what a "
        "handoff left out (thread_read), see coverage and lineage, plan a start; fork, merge "
        "back, hand work to subagents, report limits and context usage. Every result is JSON.",
        tools=tool.made,
    )
    resources(server, call)
    return server


Call = Callable[[Context, Operation, dict[str, Any]], Awaitable[Answer]]


def resources(server: MCPServer, call: Call) -> None:
    """The workspace's threads as resources, listed through resource templates: a thread's
    context, and the text the next start on a provider would inject. An id the caller's
    workspace does not hold is MCP's resource-not-found; another failure a resource error
    naming its code."""

    async def read(ctx: Context, operation: Operation, variables: dict[str, Any]) -> Any:
        found = await call(ctx, operation, variables)
        if found.code == ErrorCode.NOT_FOUND.value:
            raise ResourceNotFoundError(found.message)
        if found.failed:
            raise ResourceError(f"{found.code}: {found.message}")
        return found.value

    @server.resource(
        "threadline://threads/{thread_id}",
        name="thread",
        description="A thread's context, as the tool thread_context answers it (JSON).",
        mime_type="application/json",
    )
    async def thread(ctx: Context, thread_id: str) -> str:
        return as_json(await read(ctx, tools.THREAD_CONTEXT, {"id": thread_id}))

    @server.resource(
        "threadline://threads/{thread_id}/handoff/{provider}",
        name="handoff",
        description="The text the next start of the thread on the provider would inject now "
        "(empty when it would inject nothing).",
        mime_type="text/plain",
    )
    async def handoff(ctx: Context, thread_id: str, provider: str) -> str:
        plan = await read(ctx, tools.HANDOFF_TEXT, {"id": thread_id, "provider": provider})
        return str(plan["contextText"] or "")


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
