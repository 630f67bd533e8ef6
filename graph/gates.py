"""The write gate of a workspace (docs/MODEL.md, "Write gates"): every command passes one
of its slots before it writes, so that a backup can pause every writer of one workspace
for a moment, and a restore can close the workspace to them.

Neo4j Community has no snapshot isolation and no shared lock Cypher can take. A gate is
`SLOTS` nodes per workspace; a command locks one slot, picked at random, for the length of
its transaction, so commands seldom wait on each other (two at once share a slot one time
in `SLOTS`), while a backup's pause, which locks every slot, waits for the commands in
flight and holds back the next. Each pass counts the slot up: the sum is the workspace's
write position, and what a command writes carries the position it wrote at.
"""

from __future__ import annotations

import random

from graph.errors import being_restored
from graph.tx import Tx

SLOTS = 256
# How long an API process may go on trusting what it last read of the workspaces restores
# hold closed (api/closed.py). A restore names nothing under the workspace it closed until
# longer than this has passed (graph/restore.py, `DRAIN_S`).
TRUST_S = 1.0


def slot(tx: Tx) -> int:
    """The slot `tx` passes (one for the whole transaction)."""
    if tx.gate_slot is None:
        tx.gate_slot = random.randrange(SLOTS)
    return tx.gate_slot


async def pass_gate(tx: Tx, workspace: str) -> None:
    """Lock this transaction's slot before it writes, unless a statement that locked a
    thread already did; refuse (nothing written) while a restore holds the workspace."""
    if tx.gated:
        return
    found = await tx.row("gate/pass", workspace=workspace, gate=slot(tx))
    tx.gated = True
    if found is not None and found["closed"]:
        raise being_restored(workspace)


async def closed(tx: Tx, workspace: str) -> bool:
    """Whether a restore holds `workspace` closed."""
    found = await tx.row("gate/closed", workspace=workspace)
    return bool(found and found["closed"])
