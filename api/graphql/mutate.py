"""What every mutation field does around its command: run it at most once per commandId
(in one write transaction), then shape its answer with fresh loaders. A mutation field is
then its signature and one call of `mutate`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from api.commands.caller import Caller
from api.commands.receipts import Written
from api.commands.steps import InSteps
from api.graphql.context import Info
from graph.errors import ErrorCode, ThreadlineError
from graph.tx import Tx

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")


@dataclass(frozen=True)
class Answer(Generic[T, R]):
    """What a command answers: its result (`result_type`, as its receipt stores it), and
    how the field shapes that result (`shape`, read after the command committed)."""

    result_type: type[T]
    shape: Callable[[Info, T], R | Awaitable[R]]


async def mutate(
    info: Info,
    command_id: str | None,
    args: dict[str, Any],
    answer: Answer[T, R],
    command: Callable[Concatenate[Tx, Caller, P], Awaitable[Written[T]]],
    *params: P.args,
    **options: P.kwargs,
) -> R:
    """`command(tx, caller, *params, **options)` as the command named as the field
    (`createThread`...), then its `answer`.

    `args` are the arguments the receipt's hash covers: their keys are stored with every
    receipt, so they never change once a mutation has shipped (a retry of a commandId
    stored by an earlier version must still match); so does the name, the field's."""
    result = await info.context.command(
        info.field_name,
        args,
        command_id,
        answer.result_type,
        lambda tx, caller: command(tx, caller, *params, **options),
    )

    return await _shaped(info, answer, result)


async def mutate_in_steps(
    info: Info,
    command_id: str | None,
    args: dict[str, Any],
    answer: Answer[T, R],
    steps: InSteps[T],
) -> R:
    """`mutate` for a command in steps (api/commands/steps.py): its transaction, its step
    after, then its `answer`."""
    result = await info.context.command_in_steps(
        info.field_name, args, command_id, answer.result_type, steps
    )
    return await _shaped(info, answer, result)


async def _shaped(info: Info, answer: Answer[T, R], result: T) -> R:
    async def shaped() -> R:
        found = answer.shape(info, result)
        return await found if inspect.isawaitable(found) else found

    return await read_back(info, shaped())


async def read_back(info: Info, answer: Awaitable[T]) -> T:
    """A mutation's answer, read after its transaction committed, with fresh loaders.

    Should Neo4j fail now, the error must not suggest that nothing happened: the change
    was made (`outcome: COMMITTED`); only its answer is missing.
    """
    info.context.loaders.clear()
    try:
        return await answer
    except ThreadlineError as error:
        if error.code is not ErrorCode.UNAVAILABLE or "outcome" in error.extensions:
            raise  # not Neo4j gone, or an error that says already what was done
        raise ThreadlineError(
            ErrorCode.UNAVAILABLE,
            "The change was made, but the graph database went away before its result could "
            "be read back; read it again (a retry with the same commandId answers it).",
            outcome="COMMITTED",
        ) from error
