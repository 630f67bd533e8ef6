"""Every operation is checked against the caller's token: that it holds a valid one before
the document is validated, and its scope before anything runs."""

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
    def on_validate(self) -> Iterator[None]:
        # Validation errors name the schema's fields ("Did you mean ...?"), which a caller
        # without a valid token must not learn: it is refused before them.
        context = self.execution_context.context
        if isinstance(context, Context):
            context.require_token()
        yield

    def on_execute(self) -> Iterator[None]:
        context = self.execution_context.context
        if isinstance(context, Context):
            kind = self.execution_context.operation_type
            context.authorize(NEEDED.get(kind, Scope.admin))
        yield
