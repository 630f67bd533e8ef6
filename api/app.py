"""The Starlette application: /graphql, /healthz, /readyz, /metrics."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult

from api.auth import TokenBook
from api.context import Context
from api.errors import with_code
from api.limits import BodyLimit
from api.metrics import Metrics
from api.schema import build_schema
from api.settings import Settings
from graph.errors import ThreadlineError
from graph.store import Store
from resolvers.providers import ProviderRegistry, registry_from_toml

log = logging.getLogger("threadline")


def load_providers(settings: Settings) -> ProviderRegistry:
    text = settings.providers_file.read_text() if settings.providers_file else None
    return registry_from_toml(text)


def load_tokens(settings: Settings) -> TokenBook:
    return TokenBook.from_toml(settings.tokens_file.read_text() if settings.tokens_file else None)


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


class ThreadlineGraphQL(GraphQL[Context, None]):
    def __init__(self, settings: Settings, state: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._settings = settings
        self._state = state

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        context = Context(
            store=self._state["store"],
            settings=self._settings,
            providers=self._state["providers"],
            principal=None,
        )
        try:
            context = Context(
                store=context.store,
                settings=context.settings,
                providers=context.providers,
                principal=self._state["tokens"].authenticate(request.headers.get("authorization")),
            )
        except ThreadlineError as error:
            context.auth_error = error
        return context

    def parse_json(self, data: str | bytes) -> Any:
        """One operation per request, as a JSON object; anything else is a 400."""
        parsed = super().parse_json(data)
        if not isinstance(parsed, dict):
            raise HTTPException(400, "The request body must be a JSON object with a `query`.")
        return parsed

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            data["errors"] = [with_code(error) for error in result.errors]
        return data


def create_app(settings: Settings | None = None, store: Store | None = None) -> Starlette:
    settings = settings or Settings()
    state: dict[str, Any] = {
        "providers": load_providers(settings),
        "tokens": load_tokens(settings),
        "store": store,
    }
    metrics = Metrics()
    schema = build_schema(settings, extra=[metrics.extension()])
    graphql = ThreadlineGraphQL(
        settings,
        state,
        schema=schema,
        graphql_ide="graphiql" if settings.graphiql and not settings.production else None,
        subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
    )

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        owned = state["store"] is None
        if owned:
            state["store"] = connect_store(settings)
        await state["store"].migrate()
        yield
        if owned:
            await state["store"].close()

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        try:
            await state["store"].ping()
        except ThreadlineError as error:
            return JSONResponse({"status": "unavailable", "reason": error.message}, status_code=503)
        return JSONResponse({"status": "ready"})

    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics.endpoint),
            Route("/graphql", graphql, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
        ],
        lifespan=lifespan,
        middleware=[Middleware(BodyLimit, max_bytes=settings.max_body_bytes)],
    )
    return app
