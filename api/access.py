"""Every operation is checked against the caller's token before anything runs."""

from __future__ import annotations

from collections.abc import Iterator

from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from api.auth import Scope
from api.context import Context

NEEDED = {
    OperationType.QUERY: Scope.read,
    OperationType.SUBSCRIPTION: Scope.read,
    OperationType.MUTATION: Scope.write,
}


class Access(SchemaExtension):
    def on_execute(self) -> Iterator[None]:
        context = self.execution_context.context
        if isinstance(context, Context):
            kind = self.execution_context.operation_type
            context.authorize(NEEDED.get(kind, Scope.admin))
        yield
