"""Prometheus metrics: per-operation request counts, errors and latency, audit events
(refusals before and during execution), Bolt round trips."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from graphql import FieldNode, OperationDefinitionNode
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

if TYPE_CHECKING:
    from api.audit import Audit

# Root fields of introspection: a label of their own, like any operation's.
INTROSPECTION = frozenset({"__typename", "__schema", "__type"})


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.operations = Counter(
            "threadline_graphql_operations_total",
            "GraphQL operations by name and outcome",
            ["operation", "type", "outcome"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "threadline_graphql_operation_seconds",
            "GraphQL operation latency",
            ["operation", "type"],
            registry=self.registry,
        )
        self.audit_events = Counter(
            "threadline_audit_events_total",
            "Audit events by kind: refusals (unauthenticated, expired, forbidden, "
            "rate_limited, host_refused, origin_refused) and token administration",
            ["event"],
            registry=self.registry,
        )
        self._round_trips = _RoundTrips()
        self.registry.register(self._round_trips)

    def count_round_trips(self, read: Callable[[], int]) -> None:
        """Expose the store's own count (`Store.round_trips`) as a counter, read at scrape."""
        self._round_trips.read = read

    def count_audit_events(self, audit: Audit) -> None:
        audit.observer = lambda event: self.audit_events.labels(event).inc()

    def extension(self) -> type[SchemaExtension]:
        metrics = self

        class OperationMetrics(SchemaExtension):
            def on_operation(self) -> Iterator[None]:
                started = time.perf_counter()
                yield
                context = self.execution_context
                name = _root_field(context)
                kind = _operation_type(context)
                result = context.result
                outcome = (
                    "error" if result is not None and getattr(result, "errors", None) else "ok"
                )
                metrics.operations.labels(name, kind, outcome).inc()
                metrics.latency.labels(name, kind).observe(time.perf_counter() - started)

        return OperationMetrics

    async def endpoint(self, _: Request) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class _RoundTrips(Collector):
    """`threadline_bolt_round_trips_total`: queries the store sent to Neo4j so far."""

    def __init__(self) -> None:
        self.read: Callable[[], int] = lambda: 0

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "threadline_bolt_round_trips",
            "Bolt round trips (statements sent to Neo4j) made by the store",
            value=self.read(),
        )


def _operation_type(context: ExecutionContext) -> str:
    if context.graphql_document is None:
        return "invalid"  # a document that did not parse has no operation
    return context.operation_type.value


def _root_field(context: ExecutionContext) -> str:
    """The first root field selected, e.g. `createThread`: a bounded label set."""
    document = context.graphql_document
    if document is None:
        return "invalid"
    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            for selection in definition.selection_set.selections:
                if isinstance(selection, FieldNode):
                    name = selection.name.value
                    known = name in INTROSPECTION or _is_root(context, name)
                    return name if known else "unknown"
    return "invalid"


def _is_root(context: ExecutionContext, name: str) -> bool:
    schema = context.schema._schema  # the graphql-core schema
    roots = (schema.query_type, schema.mutation_type, schema.subscription_type)
    return any(root is not None and name in root.fields for root in roots)
