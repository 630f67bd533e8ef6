"""Spans kept in memory, for tests of what a request traces."""

from __future__ import annotations

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from api.process.telemetry import Telemetry


def recorded() -> tuple[Telemetry, InMemorySpanExporter]:
    """A Telemetry whose spans are kept, each as soon as it ends, in the exporter returned."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(provider), exporter


def ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    """The names of the spans above `span`, nearest first."""
    by_id = {found.context.span_id: found for found in spans if found.context is not None}
    names: list[str] = []
    parent = span.parent
    while parent is not None and parent.span_id in by_id:
        above = by_id[parent.span_id]
        names.append(above.name)
        parent = above.parent
    return names
