"""Command receipts: the same commandId with the same arguments answers the first result.

A receipt is written in the command's own transaction, so it exists exactly when
the command's effects do. A duplicate that lost a race (constraint violation,
or a CONFLICT because the first already changed the thread) reads the winner's
receipt and answers with it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter

from graph import repo
from graph.errors import ThreadlineError, conflict
from graph.plan import Receipt, WritePlan
from graph.store import Store, Tx

T = TypeVar("T")


# Building an adapter compiles a validator: once per result type, not per command.
_adapters: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(result_type: type[T]) -> TypeAdapter[T]:
    found = _adapters.get(result_type)
    if found is None:
        found = _adapters[result_type] = TypeAdapter(result_type)
    return found


def args_hash(mutation: str, args: dict[str, Any]) -> str:
    canonical = json.dumps({"mutation": mutation, "args": args}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Written(Generic[T]):
    """What a command answers, and the plan that writes it."""

    result: T
    plan: WritePlan


async def run_once(
    store: Store,
    workspace: str,
    command_id: str | None,
    mutation: str,
    args: dict[str, Any],
    result_type: type[T],
    work: Callable[[Tx], Awaitable[Written[T]]],
) -> T:
    """Run `work` and write its plan in one write transaction, at most once per commandId.

    The receipt is written by the plan's own statement. No lookup comes first: a repeat
    fails on its way (the thread has moved on, or the receipt's uniqueness refuses it),
    its transaction rolls back, and only then is the receipt read and its answer replayed.
    """
    adapter = _adapter(result_type)
    digest = args_hash(mutation, args) if command_id else ""

    async def once(tx: Tx) -> T:
        written = await work(tx)
        receipt = None
        if command_id is not None:
            receipt = Receipt(
                commandId=command_id,
                mutation=mutation,
                argsHash=digest,
                result=adapter.dump_json(written.result).decode(),
                createdAt=datetime.now(UTC),
            )
        await repo.apply(tx, workspace, written.plan, receipt)
        return written.result

    if command_id is None:
        return await store.write(once)
    try:
        # Idempotent: a retry after a lost commit acknowledgement ends in the replay below.
        return await store.write(once, idempotent=True)
    except ThreadlineError as error:
        found = await store.read(lambda tx: repo.find_receipt(tx, workspace, command_id))
        if found is None:
            raise
        if found["argsHash"] != digest:
            raise conflict(
                f"commandId {command_id!r} was already used for {found['mutation']} with "
                "other arguments; use a new commandId."
            ) from error
        return adapter.validate_json(found["result"])


async def rewrite(tx: Tx, workspace: str, command_id: str, result: object) -> None:
    """The receipt of a command answered in two transactions holds its final answer."""
    encoded = TypeAdapter(type(result)).dump_json(result).decode()
    await repo.rewrite_receipt(tx, workspace, command_id, encoded)
