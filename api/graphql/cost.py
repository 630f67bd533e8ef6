"""Query cost: a bound on what one request may ask for, checked before it runs.

Every field costs 1 plus the cost of what it selects. A list field multiplies what it
selects by its size: its `first` argument (clamped to the page cap) when it has one,
else the usual size of that list below. Nested lists therefore multiply. Introspection
(`__` fields) is free. A request over the limit is refused with INVALID_INPUT before any
resolver runs.

Hand-written rather than taken from a library: the one maintained Python package for
this (graphql-complexity) treats non-null lists as single fields and ignores variables,
so `[Run!]!` and `first: $n` — most of this schema — would be weighed 1.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLField,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
)
from strawberry.types import ExecutionContext

from api.settings import Settings
from graph.errors import invalid

# Usual sizes of list fields that take no `first`, by `Type.field` or field name; other
# lists weigh DEFAULT_SIZE. A connection's edges are already weighed by its `first`.
USUAL_SIZE = {
    "ThreadConnection.edges": 1,
    "runs": 100,
    "items": 20,
    "nodes": 100,
    "edges": 100,
    "handoffs": 20,
    "children": 20,
    "diffSummary": 20,
    "sections": 10,
}
DEFAULT_SIZE = 10


class QueryCost:
    """The cost of one operation of a document, given its variables."""

    def __init__(self, schema: GraphQLSchema, variables: Mapping[str, Any], page_cap: int) -> None:
        self._schema = schema
        self._variables = variables
        self._page_cap = page_cap
        self._fragments: dict[str, FragmentDefinitionNode] = {}

    def of(
        self, operation: OperationDefinitionNode, fragments: list[FragmentDefinitionNode]
    ) -> int:
        self._fragments = {f.name.value: f for f in fragments}
        root = self._schema.get_root_type(operation.operation)
        return self._selection(root, operation.selection_set) if root else 0

    def _selection(self, parent: GraphQLNamedType, selection: SelectionSetNode | None) -> int:
        if selection is None or not isinstance(parent, GraphQLObjectType):
            return 0
        return sum(self._field(parent, field) for field in self._fields(parent, selection))

    def _fields(
        self, parent: GraphQLObjectType, selection: SelectionSetNode
    ) -> Iterator[FieldNode]:
        """The field nodes of a selection, fragments flattened."""
        for node in selection.selections:
            if isinstance(node, FieldNode):
                yield node
            elif isinstance(node, InlineFragmentNode):
                yield from self._fields(parent, node.selection_set)
            elif isinstance(node, FragmentSpreadNode) and node.name.value in self._fragments:
                yield from self._fields(parent, self._fragments[node.name.value].selection_set)

    def _field(self, parent: GraphQLObjectType, node: FieldNode) -> int:
        name = node.name.value
        definition = parent.fields.get(name)
        if name.startswith("__") or definition is None:
            return 0
        inner = self._selection(get_named_type(definition.type), node.selection_set)
        return 1 + self._size(parent, definition, node) * inner

    def _size(self, parent: GraphQLObjectType, definition: GraphQLField, node: FieldNode) -> int:
        if "first" in definition.args:
            return self._first(definition, node)
        if _is_list(definition):
            name = node.name.value
            return USUAL_SIZE.get(f"{parent.name}.{name}", USUAL_SIZE.get(name, DEFAULT_SIZE))
        return 1

    def _first(self, definition: GraphQLField, node: FieldNode) -> int:
        value: Any = definition.args["first"].default_value
        for argument in node.arguments or ():
            if argument.name.value != "first":
                continue
            if isinstance(argument.value, IntValueNode):
                value = int(argument.value.value)
            elif isinstance(argument.value, VariableNode):
                value = self._variables.get(argument.value.name.value, value)
        if not isinstance(value, int) or isinstance(value, bool):
            return self._page_cap
        return max(0, min(value, self._page_cap))


def _named(operation: OperationDefinitionNode, name: str | None) -> bool:
    return name is None or (operation.name is not None and operation.name.value == name)


def _is_list(definition: GraphQLField) -> bool:
    kind = definition.type
    if isinstance(kind, GraphQLNonNull):
        kind = kind.of_type
    return isinstance(kind, GraphQLList)


def refuse_over_cost(execution: ExecutionContext, settings: Settings) -> None:
    """Before execution: INVALID_INPUT when the chosen operation costs over the limit."""
    document = execution.graphql_document
    if document is not None:
        _refuse_over_limit(
            execution.schema._schema,
            document.definitions,
            execution.operation_name,
            execution.variables or {},
            settings,
        )


def _refuse_over_limit(
    schema: GraphQLSchema,
    definitions: Any,
    operation_name: str | None,
    variables: Mapping[str, Any],
    settings: Settings,
) -> None:
    operations = [d for d in definitions if isinstance(d, OperationDefinitionNode)]
    fragments = [d for d in definitions if isinstance(d, FragmentDefinitionNode)]
    chosen = next(
        (
            o
            for o in operations
            if operation_name is None or (o.name and o.name.value == operation_name)
        ),
        None,
    )
    if chosen is None:
        return
    cost = QueryCost(schema, variables, settings.max_page_size).of(chosen, fragments)
    if cost > settings.max_query_cost:
        raise invalid(
            f"This query costs {cost}; the limit is {settings.max_query_cost}. List fields "
            "weigh their `first` (or their usual size) and nested lists multiply: ask for "
            "fewer items or split the query."
        )
