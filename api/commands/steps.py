"""A command that goes on after its transaction committed.

Most commands are one write transaction. A start whose summaries another writer owes
(the configured summarizer) is two: its transaction commits with those handoffs PENDING,
then a step outside any transaction fetches them and a second transaction stores them.
The second step runs after a replay of the same commandId too, which finds them still
pending when the first try was cut between the two.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from api.commands.caller import Caller
from api.commands.receipts import Written
from graph.plan import CommandId
from graph.tx import Tx

T = TypeVar("T")


@dataclass(frozen=True)
class InSteps(Generic[T]):
    """`transaction` (written at most once per commandId), then `after` on its result."""

    transaction: Callable[[Tx, Caller], Awaitable[Written[T]]]
    after: Callable[[Caller, T, CommandId | None], Awaitable[T]]
