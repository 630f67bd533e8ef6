"""The demo family, seeded only through the public GraphQL API.

Nothing here writes Cypher: the family is what a caller of the API would build, so it
stays correct when the store changes. `seed_demo` returns what it did (ids by role),
so tests can derive what each analysis query must answer.

The family (SEMANTICS names in brackets):
- root: runs 1-5 codex, 6-8 claude, 9 codex ["Canonical example"]; 10 codex takes the
  merge-back; 11 claude in plan mode (the old claude thread goes stale) spawns both
  subagents; 12 codex takes their results.
- native_fork: forked at root run 5, first run on codex → native fork; merged back
  once (taken by root run 10) and again later (left pending).
- portable_fork: forked at root's latest stable checkpoint, first run on claude →
  portable context; runs 2-3 rolled back, which diverges its claude thread and
  supersedes the pending abandoned_fork taken at run 3.
- subagent: spawned by root run 11 for claude; its first start fails once; result
  returned. native_subagent: recorded as spawned natively by codex; result returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from api.cli import demo_runs as spec
from api.cli.demo_runs import RunSpec

START = """
mutation($threadId: ID!, $provider: String!, $input: String!, $runtimeMode: String) {
  startRun(threadId: $threadId, provider: $provider, input: $input, runtimeMode: $runtimeMode) {
    run { id ordinal } strategy providerAction stalenessSignals
    providerThread { id nativeRef }
    handoffs { id kind strategy }
    consumedTransfers { id type resolutionStrategy }
  }
}"""
ATTACH = """mutation($id: ID!, $ref: String!) {
  attachNativeThread(providerThreadId: $id, nativeRef: $ref, historyMode: LEGACY) { id } }"""
COMPLETE = """
mutation($runId: ID!, $turn: String, $items: [RunItemInput!], $checkpoint: CheckpointInput) {
  completeRun(runId: $runId, nativeTurnRef: $turn, items: $items, checkpoint: $checkpoint) { id }
}"""
FAIL_START = """mutation($runId: ID!, $reason: String!) {
  reportStartFailure(runId: $runId, reason: $reason) {
    run { id ordinal } strategy providerAction stalenessSignals providerThread { id nativeRef }
    handoffs { id kind strategy } consumedTransfers { id type resolutionStrategy } } }"""
CREATE = "mutation($title: String) { createThread(title: $title) { id } }"
FORK = """mutation($id: ID!, $at: SourcePointInput!, $title: String) {
  forkThread(sourceThreadId: $id, at: $at, title: $title) { id incomingTransfers { id } } }"""
MERGE = "mutation($id: ID!) { mergeBack(forkThreadId: $id) { id } }"
SPAWN = """mutation($run: ID!, $task: String!, $provider: String) {
  spawnSubagent(parentRunId: $run, task: $task, provider: $provider) {
    id incomingTransfers { id } } }"""
NATIVE_SUBAGENT = """mutation($run: ID!, $provider: String!, $ref: String!, $title: String) {
  recordNativeSubagent(parentRunId: $run, provider: $provider, nativeRef: $ref, title: $title) {
    id incomingTransfers { id } providerThreads { id } } }"""
COMPLETE_SUBAGENT = """mutation($id: ID!, $result: String!) {
  completeSubagent(childThreadId: $id, result: $result) { id } }"""
ROLLBACK = """mutation($id: ID!, $to: Int!) {
  rollbackThread(threadId: $id, toRunOrdinal: $to) { rolledBackRuns { ordinal } } }"""

ROOT_TITLE = "Checkout: stop double charges on payment retries"


class GraphQL(Protocol):
    """Posts one document and answers its `data`; raises on GraphQL errors."""

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]: ...


@dataclass
class DemoFamily:
    """What the demo did: thread ids by role, run ids and start answers by (role, ordinal)."""

    threads: dict[str, str] = field(default_factory=dict)
    runs: dict[tuple[str, int], str] = field(default_factory=dict)
    starts: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    transfers: dict[str, str] = field(default_factory=dict)
    rolled_back: dict[str, list[int]] = field(default_factory=dict)
    failed_starts: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def root(self) -> str:
        return self.threads["root"]

    def role_of(self, thread_id: str) -> str:
        return next(role for role, ident in self.threads.items() if ident == thread_id)


@dataclass
class _Seeder:
    gql: GraphQL
    family: DemoFamily = field(default_factory=DemoFamily)

    async def thread(self, role: str, title: str) -> str:
        created = await self.gql(CREATE, title=title)
        self.family.threads[role] = created["createThread"]["id"]
        return str(self.family.threads[role])

    async def start(
        self, role: str, provider: str, text: str, runtime_mode: str | None = None
    ) -> dict[str, Any]:
        data = await self.gql(
            START,
            threadId=self.family.threads[role],
            provider=provider,
            input=text,
            runtimeMode=runtime_mode,
        )
        return self.record(role, data["startRun"])

    def record(self, role: str, started: dict[str, Any]) -> dict[str, Any]:
        ordinal = started["run"]["ordinal"]
        self.family.runs[(role, ordinal)] = started["run"]["id"]
        self.family.starts[(role, ordinal)] = started
        return started

    async def attach(self, role: str, started: dict[str, Any], provider: str) -> None:
        pt = started["providerThread"]
        if pt["nativeRef"] is None:
            await self.gql(ATTACH, id=pt["id"], ref=f"{provider}-{role}-{pt['id'][-6:]}")

    async def complete(self, role: str, started: dict[str, Any], run: RunSpec) -> None:
        ordinal = started["run"]["ordinal"]
        await self.gql(
            COMPLETE,
            runId=started["run"]["id"],
            turn=f"turn-{role}-{ordinal}",
            items=run.run_items(),
            checkpoint=run.checkpoint_input(),
        )

    async def run(
        self, role: str, provider: str, run: RunSpec, runtime_mode: str | None = None
    ) -> dict[str, Any]:
        """start → attach (when the provider thread is new) → complete."""
        started = await self.start(role, provider, run.input, runtime_mode)
        await self.attach(role, started, provider)
        await self.complete(role, started, run)
        return started

    async def fork(self, role: str, source: str, title: str, **at: Any) -> str:
        data = await self.gql(FORK, id=self.family.threads[source], at=at, title=title)
        self.family.threads[role] = data["forkThread"]["id"]
        self.family.transfers[f"{role}.fork"] = data["forkThread"]["incomingTransfers"][0]["id"]
        return str(self.family.threads[role])

    async def merge_back(self, role: str, name: str) -> None:
        data = await self.gql(MERGE, id=self.family.threads[role])
        self.family.transfers[name] = data["mergeBack"]["id"]

    def child(self, role: str, thread: dict[str, Any]) -> None:
        self.family.threads[role] = thread["id"]
        self.family.transfers[f"{role}.spawn"] = thread["incomingTransfers"][0]["id"]

    async def subagent_result(self, role: str, result: str) -> None:
        data = await self.gql(COMPLETE_SUBAGENT, id=self.family.threads[role], result=result)
        self.family.transfers[f"{role}.result"] = data["completeSubagent"]["id"]


async def seed_demo(gql: GraphQL) -> DemoFamily:
    """Build the demo family (see the module docstring) and say what was built."""
    seeder = _Seeder(gql)
    await _canonical(seeder)
    await _native_fork_merged_back(seeder)
    await _portable_fork_rolled_back(seeder)
    await seeder.run("root", "codex", spec.MERGE_RUN)
    await _review_with_subagents(seeder)
    await seeder.run("root", "codex", spec.RELEASE_RUN)
    await _late_merge_back(seeder)
    return seeder.family


async def _canonical(seeder: _Seeder) -> None:
    await seeder.thread("root", ROOT_TITLE)
    providers = ["codex"] * 5 + ["claude"] * 3 + ["codex"]
    for provider, run in zip(providers, spec.ROOT_RUNS, strict=True):
        await seeder.run("root", provider, run)


async def _native_fork_merged_back(seeder: _Seeder) -> None:
    """Forked at root run 5, first run on codex (the source run's provider): native."""
    root_run_5 = seeder.family.runs[("root", 5)]
    await seeder.fork("native_fork", "root", "Spike: Redis for idempotency keys", runId=root_run_5)
    for run in spec.NATIVE_FORK_RUNS[:2]:
        await seeder.run("native_fork", "codex", run)
    await seeder.merge_back("native_fork", "native_fork.merge")


async def _portable_fork_rolled_back(seeder: _Seeder) -> None:
    """Forked at the latest checkpoint, first run on claude: portable context; rolled back."""
    await seeder.fork("portable_fork", "root", "Backport to the legacy checkout", latestStable=True)
    for run in spec.PORTABLE_FORK_RUNS:
        await seeder.run("portable_fork", "claude", run)
    run_3 = seeder.family.runs[("portable_fork", 3)]
    await seeder.fork(
        "abandoned_fork", "portable_fork", "Spike: rewrite the legacy retry loop", runId=run_3
    )
    rolled = await seeder.gql(ROLLBACK, id=seeder.family.threads["portable_fork"], to=1)
    ordinals = [r["ordinal"] for r in rolled["rollbackThread"]["rolledBackRuns"]]
    seeder.family.rolled_back["portable_fork"] = ordinals


async def _review_with_subagents(seeder: _Seeder) -> None:
    """A claude run in plan mode (the old claude thread is stale) that delegates twice."""
    parent = await seeder.start("root", "claude", spec.REVIEW_RUN.input, runtime_mode="plan")
    await seeder.attach("root", parent, "claude")
    spawned = await seeder.gql(
        SPAWN, run=parent["run"]["id"], task=spec.SUBAGENT_TASK, provider="claude"
    )
    seeder.child("subagent", spawned["spawnSubagent"])
    native = await seeder.gql(
        NATIVE_SUBAGENT,
        run=parent["run"]["id"],
        provider="codex",
        ref="codex-subagent-profile",
        title="Profile the key lookup",
    )
    seeder.child("native_subagent", native["recordNativeSubagent"])
    await seeder.complete("root", parent, spec.REVIEW_RUN)

    await _subagent_with_a_failed_start(seeder)
    await seeder.run("native_subagent", "codex", spec.NATIVE_SUBAGENT_RUN)
    await seeder.subagent_result("native_subagent", spec.NATIVE_SUBAGENT_RESULT)


async def _subagent_with_a_failed_start(seeder: _Seeder) -> None:
    """The first claude session cannot be created; the run moves to a new provider thread."""
    first = await seeder.start("subagent", "claude", spec.SUBAGENT_RUN.input)
    seeder.family.failed_starts["subagent"] = first
    retried = await seeder.gql(
        FAIL_START, runId=first["run"]["id"], reason=spec.SUBAGENT_START_FAILURE
    )
    started = seeder.record("subagent", retried["reportStartFailure"])
    await seeder.attach("subagent", started, "claude")
    await seeder.complete("subagent", started, spec.SUBAGENT_RUN)
    await seeder.subagent_result("subagent", spec.SUBAGENT_RESULT)


async def _late_merge_back(seeder: _Seeder) -> None:
    """More work on the native fork, merged back again: pending until root runs again."""
    await seeder.run("native_fork", "codex", spec.NATIVE_FORK_RUNS[2])
    await seeder.merge_back("native_fork", "native_fork.late_merge")
