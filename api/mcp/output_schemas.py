"""A tool's `outputSchema`, derived from its GraphQL document and the schema it runs on
(docs/MODEL.md "Agents: MCP"): the fields the document selects, with the types the schema
gives them, as JSON Schema. Derived, never written by hand, so a field a document adds is
in its tool's schema at once, and a client that checks results against the schema (the
MCP SDK's own client does) checks exactly what GraphQL answers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from graphql import (
    FieldNode,
    GraphQLEnumType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    build_schema,
    parse,
)

Json = dict[str, Any]
# Scalars as JSON carries them; JSON (a run item's attributes) may be any value.
SCALARS: dict[str, Json] = {
    "String": {"type": "string"},
    "ID": {"type": "string"},
    "Int": {"type": "integer"},
    "Float": {"type": "number"},
    "Boolean": {"type": "boolean"},
    "DateTime": {"type": "string", "format": "date-time"},
    "JSON": {},
}


@cache
def schema_of(sdl: str) -> GraphQLSchema:
    return build_schema(sdl)


def root_value(sdl: str, document: str, root: str) -> Json:
    """The JSON Schema of the value `document` answers under `root`, never null (a tool
    answers a null root as NOT_FOUND, not as a value)."""
    schema = schema_of(sdl)
    operation = next(
        d for d in parse(document).definitions if isinstance(d, OperationDefinitionNode)
    )
    parent = schema.mutation_type if operation.operation is OperationType.MUTATION else None
    parent = parent or schema.query_type
    assert parent is not None
    field = _selected(operation.selection_set, root)
    found = _of(parent.fields[root].type, field.selection_set, nullable=False)
    return found


def tool_output(value: Json) -> Json:
    """A tool's outputSchema for a value of schema `value`: an object as it is; anything
    else as `{"result": value}`, the form MCP's structured content takes for it."""
    if value.get("type") == "object":
        return value
    return {"type": "object", "properties": {"result": value}, "required": ["result"]}


def _selected(selections: SelectionSetNode, name: str) -> FieldNode:
    for selection in selections.selections:
        if isinstance(selection, FieldNode) and selection.name.value == name:
            return selection
    raise KeyError(name)


def _of(kind: GraphQLOutputType, selections: SelectionSetNode | None, *, nullable: bool) -> Json:
    if isinstance(kind, GraphQLNonNull):
        return _of(kind.of_type, selections, nullable=False)
    found = _plain(kind, selections)
    if not nullable:
        return found
    if set(found) == {"type"} and isinstance(found["type"], str):
        return {"type": [found["type"], "null"]}
    return {"anyOf": [found, {"type": "null"}]} if found else found


def _plain(kind: GraphQLOutputType, selections: SelectionSetNode | None) -> Json:
    if isinstance(kind, GraphQLList):
        return {"type": "array", "items": _of(kind.of_type, selections, nullable=True)}
    if isinstance(kind, GraphQLEnumType):
        return {"type": "string", "enum": list(kind.values)}
    if isinstance(kind, GraphQLScalarType):
        return dict(SCALARS.get(kind.name, {}))
    assert isinstance(kind, GraphQLObjectType) and selections is not None
    properties: Json = {}
    for selection in selections.selections:
        assert isinstance(selection, FieldNode)  # the tools' documents use no fragments
        name = selection.alias.value if selection.alias else selection.name.value
        properties[name] = _of(
            kind.fields[selection.name.value].type, selection.selection_set, nullable=True
        )
    return {"type": "object", "properties": properties, "required": list(properties)}
