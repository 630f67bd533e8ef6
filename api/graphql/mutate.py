"""What every mutation field does around its command: run it at most once per commandId
(in one write transaction), then shape its answer with fresh loaders. A mutation field is
then its signature and one call of `mutate`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from api.commands.caller import Caller
from api.commands.receipts import Written
from api.graphql.types import Info, read_back
from graph.store import Tx

T = TypeVar("T")
R = TypeVar("R")
Work = Callable[[Tx, Caller], Awaitable[Written[T]]]


async def mutate(
    info: Info,
    mutation: str,
    args: dict[str, Any],
    command_id: str | None,
    result_type: type[T],
    work: Work[T],
    answer: Callable[[T], R | Awaitable[R]],
) -> R:
    """`work` as the command `mutation`, then `answer` of its result.

    `args` are the arguments the receipt's hash covers: their keys are stored with every
    receipt, so they never change once a mutation has shipped (a retry of a commandId
    stored by an earlier version must still match)."""
    result = await info.context.command(mutation, args, command_id, result_type, work)

    async def shaped() -> R:
        found = answer(result)
        return await found if inspect.isawaitable(found) else found

    return await read_back(info, shaped())
