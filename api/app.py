"""The Starlette application: / (the front door), /graphql, /mcp, /lineage, /docs, /static,
/healthz, /readyz, /metrics."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, cast

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.extensions import SchemaExtension
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.unset import UNSET, UnsetType

from api.audit import Audit
from api.auth import TokenBook, unauthenticated
from api.closed import ClosedWorkspaces
from api.commands import warm_up
from api.commands.caller import Caller
from api.commands.summarizer_client import ConfiguredSummarizer
from api.graphql import loaders
from api.graphql.context import Context, SocketState
from api.graphql.errors import with_code
from api.graphql.event_feed import EventFeeds
from api.graphql.input_sizes import BodyLimit
from api.graphql.schema import build_schema
from api.http import pages
from api.http.hosts import HostGuard, Trusted
from api.http.media import JSON, keeps_data, negotiated, status_of
from api.http.metrics import Metrics
from api.http.rate_limits import Rate, RateLimited, RateLimits
from api.http.request_ids import RequestIds
from api.http.requests import decode_json, refusal_response, refused_caller, unnamed_choice
from api.http.websockets import CONTEXT, ThreadlineSocket, ThreadlineTransportWS
from api.live_tokens import LiveTokens
from api.mcp import server
from api.mcp.tools import Gateway
from api.process import collector, logs, orphans, telemetry
from api.process.telemetry import Telemetry
from api.services import Services, SocketSlots
from api.settings import Settings
from graph import migrations
from graph.errors import ThreadlineError
from graph.store import Store
from resolvers.handoffs import tokenizer
from resolvers.providers import ProviderRegistry, registry_from_toml

log = logging.getLogger("threadline")
TOO_MANY_CONNECTIONS = 4429


def load_providers(settings: Settings) -> ProviderRegistry:
    text = settings.providers_file.read_text() if settings.providers_file else None
    return registry_from_toml(text)


def load_tokens(settings: Settings) -> TokenBook:
    path = settings.tokens_file
    return TokenBook.from_toml(path.read_text() if path else None, path)


def rate_limits(settings: Settings) -> RateLimits:
    rps = settings.rate_limit_rps
    rate = Rate(rps, settings.rate_limit_burst) if rps > 0 else None
    return RateLimits(rate, settings.rate_limit_hold_s)


@contextlib.contextmanager
def reload_on_sighup(tokens: LiveTokens) -> Iterator[None]:
    """SIGHUP re-reads the tokens file at once (where this process may take signals)."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGHUP, tokens.refresh, True)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGHUP)


def configured_summarizer(settings: Settings) -> ConfiguredSummarizer | None:
    if not settings.summarizer_url or not settings.summarizer_model:
        return None
    return ConfiguredSummarizer(
        settings.summarizer_url,
        settings.summarizer_model,
        settings.summarizer_api_key,
        timeout_s=settings.summarizer_timeout_s,
        retries=settings.summarizer_retries,
        name=settings.summarizer_name,
    )


def connect_store(settings: Settings) -> Store:
    """The configured Neo4j, or the managed local one when none is configured."""
    if settings.neo4j_uri:
        auth = (settings.neo4j_user, settings.neo4j_password) if settings.neo4j_password else None
        return Store.connect(
            settings.neo4j_uri, auth, settings.neo4j_database, settings.db_timeout_s
        )
    local = settings.local_neo4j()
    local.start()
    return Store.connect(local.uri, local.credentials(), "neo4j", settings.db_timeout_s)


@dataclass
class Running:
    """The app's services once its lifespan has started them."""

    services: Services | None = None

    def get(self) -> Services:
        if self.services is None:
            raise RuntimeError("The app serves requests only inside its lifespan.")
        return self.services


class ThreadlineGraphQL(GraphQL[Context, None]):
    graphql_transport_ws_handler_class = ThreadlineTransportWS
    websocket_adapter_class = ThreadlineSocket

    def __init__(self, running: Running, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._running = running

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Requests Strawberry refuses before execution get a coded GraphQL error body."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope, receive)
        services = self._running.get()
        authorization = request.headers.get("authorization")
        media = negotiated(request.headers.get("accept"))
        # A caller without a valid token learns it from the status: 401 before anything
        # is read, as on every endpoint (GraphiQL's page itself is open; its requests are not).
        refused = None
        if not self.should_render_graphql_ide(self.request_adapter_class(request)):
            refused = refused_caller(services, authorization, "/graphql", media)
        if refused is not None:
            await refused(scope, receive, send)
            return
        try:
            response = await self.run(request)
        except HTTPException as error:
            response = refusal_response(error, services, authorization, media)
        await response(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL from the vendored assets under /static: nothing from a CDN."""
        return pages.graphiql()

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        settings = self._running.get().settings
        refusal = unnamed_choice(
            request_data.query, request_data.operation_name, settings.max_query_tokens
        )
        if refusal is not None:
            raise HTTPException(400, refusal)
        return await super().execute_single(
            request, request_adapter, sub_response, context, root_value, request_data
        )

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        context = Context(self._running.get())
        authorization = request.headers.get("authorization")
        context.authenticate(authorization)
        if isinstance(request, WebSocket):
            context.socket = SocketState(
                bearer_in_header=authorization is not None, authorization=authorization
            )
            setattr(request.state, CONTEXT, context)
        return context

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        """connection_init: a browser sends its token in the payload; refuse or count it."""
        socket = context.socket
        assert socket is not None
        token = (context.connection_params or {}).get("Authorization")
        if not socket.bearer_in_header and isinstance(token, str):
            socket.authorization = token
            context.authenticate(token)
        services = context.services
        if context.principal is None:
            refused = context.auth_error or unauthenticated()
            services.audit.refusal(refused, "/graphql", "connection_init")
            socket.refusal = (4403, refused.message)
            raise ConnectionRejectionError()
        limited = await services.rate_limits.take(context.principal)
        if limited is not None:
            services.audit.rate_limited(context.principal, limited.message, "/graphql")
            socket.refusal = (TOO_MANY_CONNECTIONS, limited.message)
            raise ConnectionRejectionError()
        sockets = services.sockets
        if not sockets.take(context.principal.name):
            socket.refusal = (
                TOO_MANY_CONNECTIONS,
                f"Token {context.principal.name!r} already holds {sockets.limit} connections.",
            )
            raise ConnectionRejectionError()
        socket.slot = context.principal.name
        return cast(UnsetType, UNSET)

    def decode_json(self, data: str | bytes) -> object:
        return decode_json(data, self._running.get().settings.max_json_depth)

    def parse_json(self, data: str | bytes) -> Any:
        """One operation per request, as a JSON object; anything else is a 400."""
        try:
            parsed = self.decode_json(data)
        except json.JSONDecodeError as error:
            raise HTTPException(400, f"The body is not valid JSON: {error.msg}.") from error
        if not isinstance(parsed, dict):
            raise HTTPException(400, "The request body must be a JSON object with a `query`.")
        return parsed

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        """The response's headers and status before it is made: its media type chosen by
        the request's `Accept` (api/http/media.py)."""
        sub_response = await super().get_sub_response(request)
        sub_response.media_type = negotiated(request.headers.get("accept"))
        return sub_response

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        """The answer's body: `data` unless a request error under graphql-response+json."""
        data: GraphQLHTTPResponse = {}
        if keeps_data(negotiated(request.headers.get("accept")), result):
            data["data"] = result.data
        if result.errors:
            data["errors"] = [with_code(error.formatted) for error in result.errors]
        return data

    def create_response(
        self,
        response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse],
        sub_response: Response,
    ) -> Response:
        """Strawberry's response, in the negotiated media type and with its status."""
        media = sub_response.media_type or JSON
        sub_response.status_code = sub_response.status_code or status_of(media, response_data)
        response = super().create_response(response_data, sub_response)
        response.headers["content-type"] = media
        return response


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    tracing: Telemetry | None = None,
    announce: Callable[[str], None] | None = None,
) -> Starlette:
    """`tracing`: where spans go; by default OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set,
    else nowhere, and nothing is traced. `announce` hears one line as each start-up stage
    begins (`threadline serve`)."""
    settings = settings or Settings()
    say = announce or (lambda _: None)
    providers = load_providers(settings)
    audit = Audit(settings.audit_log, text=not logs.as_json(settings.log_format))
    tokens = LiveTokens(settings.tokens_file, audit)
    running = Running()
    metrics = Metrics()
    metrics.count_audit_events(audit)
    traces = tracing or telemetry.from_environment()
    extra: list[Callable[[], SchemaExtension]] = [metrics.extension()]
    if traces is not None:
        extra.append(traces.schema_extension())
    schema = build_schema(settings, extra=extra)
    trusted = Trusted.from_settings(settings)
    graphql = ThreadlineGraphQL(
        running,
        schema=schema,
        graphql_ide="graphiql" if settings.graphiql and not settings.production else None,
        subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
        max_subscriptions_per_connection=settings.max_subscriptions_per_connection,
        # Strawberry's own websocket check admits the same origin as the Host; the pages
        # of these origins pass the host guard too, so they may open websockets as well.
        allowed_origins=sorted(trusted.origins),
    )

    gateway = Gateway(schema, running.get)
    agents = server.over_http(gateway, running.get, trusted.transport_security())

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        owned = store is None
        active = store or connect_store(settings)
        say("migrating the schema")
        await migrations.migrate(active)
        rehearsing = Caller(
            warm_up.WORKSPACE,
            providers,
            settings.staleness_policy(),
            settings.summary_policy(),
            context=settings.context_policy(),
        )
        active.warm_up.rehearsal = warm_up.rehearsal(rehearsing)
        if settings.warm_up_family:
            active.warm_up.family = warm_up.family(rehearsing)
        active.warm_up.reading_rehearsal = lambda: loaders.rehearse_reads(
            active, warm_up.WORKSPACE, warm_up.HOT_AFTER
        )
        say("warming up: planning every statement on Neo4j once")
        active.warm_up.start()
        # The tokenizer's vocabulary takes about a second to load: not on a request's time.
        await asyncio.to_thread(tokenizer.warm)
        if traces is not None:
            active.tracer = traces.tracer("threadline.store")
        unwatch = orphans.stop_with_parent(asyncio.get_running_loop())
        metrics.count_round_trips(lambda: active.round_trips)
        feeds = EventFeeds(active, settings.subscription_poll_s)
        summarizer = configured_summarizer(settings)
        running.services = Services(
            settings=settings,
            store=active,
            providers=providers,
            tokens=tokens,
            feeds=feeds,
            sockets=SocketSlots(settings.max_connections_per_token),
            audit=audit,
            rate_limits=rate_limits(settings),
            closed=ClosedWorkspaces(active),
            summarizer=summarizer,
        )
        with collector.settled(), audit.opened(), reload_on_sighup(tokens):
            async with server.sessions(agents):
                yield
        unwatch()
        await feeds.close()
        if summarizer is not None:
            await summarizer.close()
        if traces is not None:
            active.tracer = None
            if tracing is None:  # ours: the buffered spans are sent before the process ends
                traces.close()
        if owned:
            await active.close()

    async def metrics_endpoint(request: Request) -> Response:
        """Counts and timings of every workspace's operations: with a tokens file, for
        holders of a valid token (Prometheus sends one with `authorization`)."""
        refused = refused_caller(running.get(), request.headers.get("authorization"), "/metrics")
        return refused or await metrics.endpoint(request)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    # The Neo4j this app starts itself, whose death /readyz can explain.
    managed = settings.local_neo4j() if store is None and not settings.neo4j_uri else None

    async def readyz(_: Request) -> Response:
        store = running.get().store
        try:
            await store.ping()
        except ThreadlineError as error:
            reason = error.message
            ended = await asyncio.to_thread(managed.exit_status) if managed else None
            if ended:
                reason += f" The managed Neo4j {ended}: start it with `threadline neo4j start`."
            return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
        if not store.warm_up.done:
            store.warm_up.start()
        if not store.warm_up.serving:
            reason = (
                "Neo4j answers; its query plans are being prepared, which a freshly started "
                "Neo4j does once (until then the first requests would be slow)."
            )
            return JSONResponse({"status": "warming", "reason": reason}, status_code=503)
        return JSONResponse({"status": "ready"})

    async def front_door(request: Request) -> Response:
        return pages.front_door(request, settings)

    app = Starlette(
        routes=[
            Route("/", front_door),
            Route("/docs/", pages.docs),
            Route("/docs/{name}", pages.docs),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint),
            Route("/graphql", graphql),
            WebSocketRoute("/graphql", graphql),
            Route("/mcp", server.Endpoint(agents, running.get)),
            Route("/lineage", pages.lineage),
            Mount("/static", pages.static_files(), name="static"),
        ],
        lifespan=lifespan,
        middleware=[
            Middleware(RequestIds),  # first: every line and span below knows the request
            # Then nothing runs for a Host or an Origin the service does not trust.
            Middleware(HostGuard, trusted=trusted, audit=audit),
            *([traces.middleware()] if traces is not None else []),
            Middleware(RateLimited, services=running.get),
            Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
        ],
    )
    app.state.gateway = gateway  # what `threadline mcp` serves over stdio
    return app
