"""Traces: one request is one trace, from the HTTP request down to each Cypher statement."""

from __future__ import annotations

from api.settings import Settings
from graph import queries
from graph.store import Store
from tests.support.graphql import make_app_client
from tests.support.traces import ancestors, recorded

CREATE = 'mutation Create { createThread(title: "traced") { id } }'


async def test_a_mutation_is_one_trace_down_to_its_statements(clean_store: Store) -> None:
    tracing, exporter = recorded()
    patient = Settings(db_timeout_s=60)  # a shared box may answer a cold statement slowly
    async with make_app_client(clean_store, patient, tracing=tracing) as http:
        answer = await http.post("/graphql", json={"query": CREATE})
        assert answer.json()["data"]["createThread"]["id"]
        request_id = answer.headers["x-request-id"]
    spans = list(exporter.get_finished_spans())
    [operation] = [span for span in spans if span.name == "GraphQL Query: Create"]
    [server] = [span for span in spans if span.parent is None]
    statements = [span for span in spans if span.name.endswith(".cypher")]
    assert statements, [span.name for span in spans]
    assert {span.context.trace_id for span in spans if span.context} == {
        server.context.trace_id if server.context else None
    }
    assert server.name == "POST /graphql"
    assert (server.attributes or {})["threadline.request_id"] == request_id
    assert ancestors(operation, spans) == [server.name]
    for statement in statements:
        name = statement.name.removesuffix(".cypher")
        assert queries.load(name)  # named after its file under cypher/
        assert operation.name in ancestors(statement, spans)
        attributes = statement.attributes or {}
        assert attributes["db.system"] == "neo4j"
        assert attributes["db.query.name"] == name
        assert attributes["threadline.workspace"] == "default"


async def test_without_tracing_the_store_opens_no_span(clean_store: Store) -> None:
    async with make_app_client(clean_store) as http:
        assert clean_store.tracer is None
        answer = await http.post("/graphql", json={"query": CREATE})
        assert answer.json()["data"]["createThread"]["id"]
    tracing, exporter = recorded()
    async with make_app_client(clean_store, tracing=tracing):
        assert clean_store.tracer is not None
    assert clean_store.tracer is None  # the shared store is left as it was found
    assert not exporter.get_finished_spans()
