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
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import TypeAdapter

from graph import repo
from graph.errors import ErrorCode, ThreadlineError, conflict
from graph.store import Store, Tx

T = TypeVar("T")


def args_hash(mutation: str, args: dict[str, Any]) -> str:
    canonical = json.dumps({"mutation": mutation, "args": args}, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


async def run_once(
    store: Store,
    workspace: str,
    command_id: str | None,
    mutation: str,
    args: dict[str, Any],
    result_type: type[T],
    work: Callable[[Tx], Awaitable[T]],
) -> T:
    """Run `work` in one write transaction, at most once per commandId."""
    if command_id is None:
        return await store.write(work)
    adapter = TypeAdapter(result_type)
    digest = args_hash(mutation, args)

    def replay(row: dict[str, Any]) -> T:
        if row["argsHash"] != digest:
            raise conflict(
                f"commandId {command_id!r} was already used for {row['mutation']} with other "
                "arguments; use a new commandId."
            )
        return adapter.validate_json(row["result"])

    async def once(tx: Tx) -> T:
        found = await repo.find_receipt(tx, workspace, command_id)
        if found is not None:
            return replay(found)
        result = await work(tx)
        await repo.record_receipt(
            tx,
            workspace,
            command_id,
            mutation,
            digest,
            adapter.dump_json(result).decode(),
            datetime.now(UTC),
        )
        return result

    try:
        # Idempotent: a retry after a lost commit acknowledgement finds the receipt.
        return await store.write(once, idempotent=True)
    except ThreadlineError as error:
        if error.code is not ErrorCode.CONFLICT:
            raise
        found = await store.read(lambda tx: repo.find_receipt(tx, workspace, command_id))
        if found is None:
            raise
        return replay(found)


async def rewrite(tx: Tx, workspace: str, command_id: str, result: object) -> None:
    """The receipt of a command answered in two transactions holds its final answer."""
    encoded = TypeAdapter(type(result)).dump_json(result).decode()
    await repo.rewrite_receipt(tx, workspace, command_id, encoded)
