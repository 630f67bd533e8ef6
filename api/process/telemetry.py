"""Traces, exported over OTLP (HTTP/protobuf) only when OTEL_EXPORTER_OTLP_ENDPOINT is set.

Without it nothing is installed: no tracer provider, no middleware, no schema extension,
and the store opens no span (its tracer stays None), so tracing costs nothing. With it,
one request is one trace:

- `POST /graphql` (or the path): the server span of the HTTP request (ASGI);
- `GraphQL Query: <operation name>`: the operation (Strawberry names mutations so too),
  with `GraphQL Parsing`, `GraphQL Validation` and `GraphQL Resolving: <field>` under it;
- `<folder>/<name>.cypher`: each statement sent to Neo4j, named by its file under
  `cypher/` (graph/tx.py, `Tx._run`).

The exporter reads the standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers,
timeout); the service is named by OTEL_SERVICE_NAME, `threadline` by default.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from graphql import GraphQLResolveInfo
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, Tracer
from starlette.middleware import Middleware
from strawberry.extensions import SchemaExtension
from strawberry.extensions.tracing import OpenTelemetryExtension

from api.process.logs import request_id

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
DEFAULT_SERVICE = "threadline"
# Probes and scrapes: frequent, and nothing to learn from their traces.
NOT_TRACED = "/healthz,/readyz,/metrics"


@dataclass(frozen=True)
class Telemetry:
    """The tracer provider one app exports its spans with."""

    provider: TracerProvider

    def middleware(self) -> Middleware:
        """A server span per HTTP request or WebSocket, tagged with its request id."""
        return Middleware(
            OpenTelemetryMiddleware,
            tracer_provider=self.provider,
            excluded_urls=NOT_TRACED,
            exclude_spans=["receive", "send"],  # one span per message: noise, not insight
            server_request_hook=_tag_request,
        )

    def schema_extension(self) -> Callable[[], SchemaExtension]:
        """The operation span and one per resolver, none holding argument values (they
        carry the threads' text)."""
        return lambda: _Operations(tracer_provider=self.provider)

    def tracer(self, name: str) -> Tracer:
        return self.provider.get_tracer(name)

    def close(self) -> None:
        """Sends the spans still buffered."""
        self.provider.shutdown()


def from_environment(environ: Mapping[str, str] = os.environ) -> Telemetry | None:
    """OTLP export when its endpoint is set, else None: nothing to install."""
    if not environ.get(ENDPOINT):
        return None
    service = environ.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return Telemetry(provider)


def _tag_request(span: Span, scope: dict[str, Any]) -> None:
    found = request_id.get()
    if found is not None and span.is_recording():
        span.set_attribute("threadline.request_id", found)


class _Operations(OpenTelemetryExtension):
    def filter_resolver_args(
        self, args: dict[str, Any], info: GraphQLResolveInfo[Any]
    ) -> dict[str, Any]:
        return {}  # (not copied first, as the base class's filter would)
