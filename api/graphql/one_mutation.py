"""One mutation field per request: a request writes all it asks for, or nothing.

GraphQL runs a document's mutation fields one after another, each one its own write
transaction here. Were a later one refused, the earlier ones would stay written while the
answer, with `data` null, said nothing was. So a mutation operation selects one field, and a
document that selects more is refused before anything runs (INVALID_INPUT, from validation).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
)


class OneMutationField(ValidationRule):
    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        if node.operation is not OperationType.MUTATION:
            return
        fields = list(_root_fields(node.selection_set, self.context, seen=set()))
        if len(fields) > 1:
            names = ", ".join(field.name.value for field in fields)
            self.report_error(
                GraphQLError(
                    f"A request runs one mutation; this one asks for {len(fields)} ({names}). "
                    "Send them one request each: nothing was run.",
                    nodes=fields,
                )
            )


def _root_fields(
    selections: SelectionSetNode, context: ValidationContext, seen: set[str]
) -> Iterator[FieldNode]:
    """The fields a selection set asks for, through its fragments, `__typename` aside."""
    for selection in selections.selections:
        if isinstance(selection, FieldNode):
            if selection.name.value != "__typename":
                yield selection
        elif isinstance(selection, InlineFragmentNode):
            yield from _root_fields(selection.selection_set, context, seen)
        elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in seen:
            seen.add(selection.name.value)  # a fragment cycle is another rule's to report
            fragment = context.get_fragment(selection.name.value)
            if fragment is not None:
                yield from _root_fields(fragment.selection_set, context, seen)
