"""Every operation is checked against the caller's token: that it holds a valid one before
the document is validated, and its scope before anything runs (called by api/graphql/guards.py).
Each refusal is written to the audit log."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from strawberry.types import ExecutionContext
from strawberry.types.graphql import OperationType

from api.auth import Refusal, Scope
from api.graphql.context import Context

NEEDED = {
    OperationType.QUERY: Scope.read,
    OperationType.SUBSCRIPTION: Scope.read,
    OperationType.MUTATION: Scope.write,
}


def require_token(execution: ExecutionContext) -> None:
    """Before validation: its errors name the schema's fields ("Did you mean ...?"), which
    a caller without a valid token must not learn."""
    context = execution.context
    if isinstance(context, Context):
        with audited(context, execution):
            context.require_token()


def authorize(execution: ExecutionContext) -> None:
    """Before execution: the token's scope covers the operation's type."""
    context = execution.context
    if isinstance(context, Context):
        with audited(context, execution):
            context.authorize(NEEDED.get(execution.operation_type, Scope.admin))


@contextmanager
def audited(context: Context, execution: ExecutionContext) -> Iterator[None]:
    try:
        yield
    except Refusal as refusal:
        context.services.audit.refusal(refusal, context.path, execution.operation_name)
        raise


async def refuse_closed(execution: ExecutionContext) -> None:
    """As an operation begins and as it ends: UNAVAILABLE when a restore holds the caller's
    workspace closed (api/closed.py), so nothing it read of one is answered."""
    context = execution.context
    if isinstance(context, Context) and context.principal is not None:
        await context.services.closed.refuse(context.workspace)
