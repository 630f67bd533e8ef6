"""Command receipts: the same commandId with the same arguments answers the first result.

A receipt is written in the command's own transaction, so it exists exactly when
the command's effects do. A duplicate that lost a race (constraint violation,
or a CONFLICT because the first already changed the thread) reads the winner's
receipt and answers with it. A receipt answers only the mutation that wrote it, with
the arguments it was written with; anything else that finds it is a CONFLICT.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from graph import repo
from graph.errors import ThreadlineError, conflict, invalid
from graph.plan import CommandId, Receipt, WritePlan
from graph.store import Store
from graph.tx import Row, Tx

T = TypeVar("T")


# Building an adapter compiles a validator: once per result type, not per command.
_adapters: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(result_type: type[T]) -> TypeAdapter[T]:
    found = _adapters.get(result_type)
    if found is None:
        found = _adapters[result_type] = TypeAdapter(result_type)
    return found


def command_key(command_id: str | None, max_chars: int) -> CommandId | None:
    """The id a command's receipt is written and found under; None: no receipt.

    INVALID_INPUT, before anything is read or written, for an id that names no command of
    its own: empty or only whitespace (clients send those as a placeholder, and any two
    of them would share one receipt), or longer than `max_chars`.
    """
    if command_id is None:
        return None
    if not command_id.strip():
        raise invalid(
            f"commandId {command_id!r} is blank: send an id with at least one character "
            "that is not whitespace, a new one for each command, or no commandId at all."
        )
    if len(command_id) > max_chars:
        raise invalid(f"commandId is {len(command_id)} characters; the limit is {max_chars}.")
    return CommandId(command_id)


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
    command_id: CommandId | None,
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
    if command_id is None:

        async def unreceipted(tx: Tx) -> T:
            written = await work(tx)
            await repo.apply(tx, workspace, written.plan)
            return written.result

        return await store.write(unreceipted)

    adapter = _adapter(result_type)
    digest = args_hash(mutation, args)

    async def once(tx: Tx) -> T:
        written = await work(tx)
        receipt = Receipt(
            commandId=command_id,
            mutation=mutation,
            argsHash=digest,
            result=adapter.dump_json(written.result).decode(),
            createdAt=datetime.now(UTC),
        )
        await repo.apply(tx, workspace, written.plan, receipt)
        return written.result

    try:
        # Idempotent: a retry after a lost commit acknowledgement ends in the replay below.
        return await store.write(once, idempotent=True)
    except ThreadlineError as error:
        found = await _receipt_or(error, store, workspace, command_id)
        if found is None:
            raise
        return _replayed(found, command_id, mutation, digest, adapter, error)


async def _receipt_or(
    error: ThreadlineError, store: Store, workspace: str, command_id: CommandId
) -> Row | None:
    """The receipt of a command that failed with `error`, or None. When the look-up fails
    too (Neo4j still away), the command's own error is the answer: a read that never got
    through says nothing of what the write did, so an unknown outcome stays unknown."""
    try:
        return await store.read(lambda tx: repo.find_receipt(tx, workspace, command_id))
    except ThreadlineError as unread:
        raise error from unread


def _replayed(
    found: Row,
    command_id: CommandId,
    mutation: str,
    digest: str,
    adapter: TypeAdapter[T],
    error: ThreadlineError,
) -> T:
    """The answer a receipt holds for a repeat of its own command; CONFLICT for any other."""
    if found["mutation"] != mutation:
        raise conflict(
            f"commandId {command_id!r} was already used for {found['mutation']}, not "
            f"{mutation}; use a new commandId."
        ) from error
    if found["argsHash"] != digest:
        raise conflict(
            f"commandId {command_id!r} was already used for {found['mutation']} with "
            "other arguments; use a new commandId."
        ) from error
    try:
        return adapter.validate_json(found["result"])
    except ValidationError as unreadable:
        # Written by a version whose answer had another shape: nothing to replay from.
        raise conflict(
            f"commandId {command_id!r} was used for {mutation} before, but the answer "
            "stored with it can no longer be read; use a new commandId."
        ) from unreadable


async def rewrite(tx: Tx, workspace: str, command_id: CommandId, result: object) -> None:
    """The receipt of a command answered in two transactions holds its final answer."""
    encoded = TypeAdapter(type(result)).dump_json(result).decode()
    await repo.rewrite_receipt(tx, workspace, command_id, encoded)
