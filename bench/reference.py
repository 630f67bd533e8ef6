"""A reference family written by the service itself, through GraphQL, for `conformance`.

It walks every state the bulk generator writes — provider switches with delta, full and
new-thread handoffs, staleness by chained handoffs and by off-provider runs, a failed run
rolled back, native and portable forks (one at a checkpoint, one of a fork), merge-backs
consumed and pending, subagents spawned and recorded natively with their results
consumed and pending — with models and command ids, as the generator's clients do.
"""

from __future__ import annotations

import random
from typing import Any

from bench import content
from bench.client import (
    ATTACH,
    CREATE_THREAD,
    FAIL,
    FORK_AT_RUN,
    HISTORY_MODES,
    SPAWN,
    START,
    GraphQL,
    command_id,
    native_ref,
)

COMPLETE = """
mutation($runId: ID!, $turn: String, $items: [RunItemInput!], $checkpoint: CheckpointInput,
         $commandId: String) {
  completeRun(runId: $runId, nativeTurnRef: $turn, items: $items, checkpoint: $checkpoint,
              commandId: $commandId) { id checkpoint { id } }
}"""
ROLLBACK = """
mutation($id: ID!, $to: Int!, $commandId: String) {
  rollbackThread(threadId: $id, toRunOrdinal: $to, commandId: $commandId) { thread { id } }
}"""
FORK_AT_CHECKPOINT = """
mutation($id: ID!, $checkpointId: ID!, $title: String, $commandId: String) {
  forkThread(sourceThreadId: $id, at: {checkpointId: $checkpointId}, title: $title,
             commandId: $commandId) { id }
}"""
MERGE_BACK = """
mutation($id: ID!, $commandId: String) {
  mergeBack(forkThreadId: $id, commandId: $commandId) { id }
}"""
RECORD_NATIVE = """
mutation($runId: ID!, $provider: String!, $ref: String!, $title: String, $commandId: String) {
  recordNativeSubagent(parentRunId: $runId, provider: $provider, nativeRef: $ref,
                       title: $title, commandId: $commandId) { id }
}"""
COMPLETE_SUBAGENT = """
mutation($id: ID!, $result: String!, $commandId: String) {
  completeSubagent(childThreadId: $id, result: $result, commandId: $commandId) { id }
}"""


class _Client:
    def __init__(self, gql: GraphQL, rng: random.Random) -> None:
        self.gql = gql
        self.rng = rng
        self.refs: dict[str, str] = {}
        self.ordinals: dict[str, int] = {}

    async def call(self, query: str, **variables: Any) -> dict[str, Any]:
        return await self.gql(query, commandId=command_id(self.rng), **variables)

    async def thread(self, title: str) -> str:
        return str((await self.call(CREATE_THREAD, title=title))["createThread"]["id"])

    async def start(self, thread: str, provider: str) -> str:
        """startRun, then attachNativeThread when the provider thread is new."""
        said = content.run_content(self.rng, self.ordinals.get(thread, 0) + 1, thread[-8:])
        data = await self.call(
            START,
            threadId=thread,
            provider=provider,
            input=said.input,
            model=content.model_for(provider),
        )
        run, pt = data["startRun"]["run"], data["startRun"]["providerThread"]
        self.ordinals[thread] = int(run["ordinal"])
        if pt["nativeRef"] is None:
            ref = self.refs.setdefault(pt["id"], native_ref(self.rng, provider))
            await self.call(ATTACH, id=pt["id"], ref=ref, mode=HISTORY_MODES[provider])
        return str(run["id"])

    async def complete(self, thread: str, run: str, checkpoint: bool = False) -> str | None:
        ordinal = self.ordinals[thread]
        said = content.run_content(self.rng, ordinal, thread[-8:])
        stats = [
            {"path": "payments/charge.py", "additions": 3, "deletions": 1, "changeKind": "modified"}
        ]
        point = {"ref": f"ckpt-{ordinal}", "diffSummary": stats} if checkpoint else said.checkpoint
        data = await self.call(
            COMPLETE, runId=run, turn=f"turn-{ordinal}", items=said.items, checkpoint=point
        )
        found = data["completeRun"]["checkpoint"]
        return None if found is None else str(found["id"])

    async def cycle(
        self, thread: str, provider: str, fail: bool = False, checkpoint: bool = False
    ) -> tuple[str, str | None]:
        run = await self.start(thread, provider)
        if fail:
            await self.call(FAIL, runId=run, reason="provider timed out")
            return run, None
        return run, await self.complete(thread, run, checkpoint)


async def seed_reference(gql: GraphQL, seed: int = 1) -> list[str]:
    """Write the reference family into the token's workspace; returns its thread ids."""
    ref = _Client(gql, random.Random(f"{seed}:reference"))
    codex, claude = "codex", "claude"
    main = await ref.thread("Reference: switching, staleness, rollback, lineage")
    for n in range(16):  # a switch every run: delta, full, then TOO_MANY_CHAINED_HANDOFFS
        await ref.cycle(main, (codex, claude)[n % 2])
    await ref.cycle(main, codex)
    await ref.cycle(main, codex, fail=True)
    await ref.cycle(main, claude)
    await gql(ROLLBACK, id=main, to=ref.ordinals[main] - 2, commandId=command_id(ref.rng))
    await ref.cycle(main, claude)
    await ref.cycle(main, codex)

    lonely = await ref.thread("Reference: off-provider staleness, pending subagent result")
    await ref.cycle(lonely, claude)
    for n in range(26):  # more than 25 runs away: TOO_MANY_OFF_PROVIDER_RUNS
        await ref.cycle(lonely, codex, fail=n == 10)  # a failed run that stays history
    await ref.cycle(lonely, claude)

    children: list[str] = []
    parent_run = await ref.start(main, codex)  # a subagent spawned, its result consumed
    child = str(
        (
            await ref.call(
                SPAWN, runId=parent_run, task=content.subagent_task(ref.rng), provider=claude
            )
        )["spawnSubagent"]["id"]
    )
    for _ in range(2):
        await ref.cycle(child, claude)
    await ref.call(COMPLETE_SUBAGENT, id=child, result=content.subagent_result(ref.rng))
    await ref.complete(main, parent_run)
    children.append(child)
    parent_run = await ref.start(main, codex)  # recorded natively, resumed, reported
    native = str(
        (
            await ref.call(
                RECORD_NATIVE,
                runId=parent_run,
                provider=codex,
                ref=native_ref(ref.rng, codex),
                title="Profile the key lookup",
            )
        )["recordNativeSubagent"]["id"]
    )
    await ref.cycle(native, codex)
    await ref.call(COMPLETE_SUBAGENT, id=native, result=content.subagent_result(ref.rng))
    await ref.complete(main, parent_run)
    children.append(native)
    at_run, checkpoint = await ref.cycle(main, codex, checkpoint=True)
    assert checkpoint is not None

    native_fork = await _fork(ref, FORK_AT_RUN, main, runId=at_run)
    await ref.cycle(native_fork, codex)  # same provider, codex forks at a turn: NATIVE_FORK
    portable = await _fork(ref, FORK_AT_CHECKPOINT, main, checkpointId=checkpoint)
    fork_run, _ = await ref.cycle(portable, claude)  # portable CHECKPOINT_SUMMARY
    deeper = await _fork(ref, FORK_AT_RUN, portable, runId=fork_run)
    await ref.cycle(deeper, codex)  # inherited context: one handoff per ancestor
    await ref.call(MERGE_BACK, id=native_fork)
    await ref.cycle(main, codex)  # consumes the merge-back
    await ref.call(MERGE_BACK, id=deeper)  # stays pending: its parent runs no more

    parent_run = await ref.start(lonely, claude)  # a result nobody consumes yet
    waiting = str(
        (
            await ref.call(
                SPAWN, runId=parent_run, task=content.subagent_task(ref.rng), provider=codex
            )
        )["spawnSubagent"]["id"]
    )
    await ref.cycle(waiting, codex)
    await ref.call(COMPLETE_SUBAGENT, id=waiting, result=content.subagent_result(ref.rng))
    await ref.complete(lonely, parent_run)
    return [main, lonely, *children, native_fork, portable, deeper, waiting]


async def _fork(ref: _Client, query: str, source: str, **at: str) -> str:
    data = await ref.call(query, id=source, title="Reference fork", **at)
    return str(data["forkThread"]["id"])
