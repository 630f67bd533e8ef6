"""The rules every operation passes, as one Strawberry extension with one hook per phase.

Each rule lives with its subject: the deadline and input sizes in api/graphql/input_sizes.py, the
token in api/graphql/access.py, subscriptions over HTTP in api/http/requests.py, the cost in
api/graphql/cost.py. Strawberry enters a context manager for every extension and hook on every
request, so the rules share one extension rather than having one each: under load that
was a few percent of the API's CPU (docs/SCALING.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from graphql import GraphQLResolveInfo
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext
from strawberry.types.graphql import OperationType

from api.graphql.access import authorize, refuse_closed, require_token
from api.graphql.cost import refuse_over_cost
from api.graphql.input_sizes import check_root_arguments, operation_deadline
from api.settings import Settings
from graph.errors import invalid


def guards_extension(settings: Settings) -> Callable[[], SchemaExtension]:
    class Guards(SchemaExtension):
        def on_operation(self) -> Iterator[None]:
            with operation_deadline(settings, self.execution_context):
                yield

        def on_validate(self) -> Iterator[None]:
            require_token(self.execution_context)
            yield

        async def on_execute(self) -> AsyncIterator[None]:
            execution = self.execution_context
            authorize(execution)
            refuse_subscription_over_http(execution)
            refuse_over_cost(execution, settings)
            await refuse_closed(execution)
            yield
            # Only a query is checked again as it ends. A mutation passed its workspace's
            # write gate, which a restore closes exactly (graph/gates.py), and a check that
            # fails after its commit must not answer for what it wrote. A subscription
            # checks each event it sends instead (thread_events).
            if execution.operation_type is OperationType.QUERY:
                await refuse_closed(execution)

        def resolve(
            self,
            _next: Callable[..., Any],
            root: Any,
            info: GraphQLResolveInfo[Any],
            *args: str,
            **kwargs: Any,
        ) -> Any:
            check_root_arguments(settings, info, kwargs)
            return _next(root, info, *args, **kwargs)

    return Guards


def refuse_subscription_over_http(execution: ExecutionContext) -> None:
    """A subscription sent over HTTP would run as a one-shot field: refuse it."""
    over_socket = getattr(execution.context, "socket", None) is not None
    if execution.operation_type is OperationType.SUBSCRIPTION and not over_socket:
        raise invalid("Subscriptions need a websocket speaking graphql-transport-ws.")
