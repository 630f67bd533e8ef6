"""A tool's outputSchema, derived from its GraphQL document: what the document selects,
typed as the schema types it, and nothing else."""

from __future__ import annotations

import jsonschema
import pytest

from api.mcp.output_schemas import root_value, tool_output

SDL = """
scalar DateTime
scalar JSON
enum Kind { A B }
type Item { id: ID! kind: Kind! text: String attributes: JSON at: DateTime count: Int }
type Query { item(id: ID!): Item items: [Item!]! }
"""


def test_an_object_is_its_selection_and_nullable_fields_may_be_null() -> None:
    value = root_value(SDL, "query($id: ID!) { item(id: $id) { id kind text } }", "item")
    schema = tool_output(value)
    assert schema["required"] == ["id", "kind", "text"]
    jsonschema.validate({"id": "1", "kind": "A", "text": None}, schema)
    for wrong in ({"id": "1", "kind": "C", "text": None}, {"id": "1", "kind": "A"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrong, schema)


def test_a_list_is_wrapped_as_mcp_structures_it() -> None:
    value = root_value(SDL, "{ items { count attributes } }", "items")
    schema = tool_output(value)
    assert schema["required"] == ["result"]
    jsonschema.validate({"result": [{"count": 1, "attributes": {"any": ["thing"]}}]}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"result": [{"count": "1", "attributes": None}]}, schema)
