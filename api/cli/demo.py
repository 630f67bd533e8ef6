"""The demo family, seeded only through the public GraphQL API, with the typed Python
client (clients/python) as any Python caller would.

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

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from threadline_client import (
    CheckpointInput,
    HistoryMode,
    RunItemInput,
    SourcePointInput,
    ThreadlineClient,
)
from threadline_client.exceptions import (
    GraphQLClientError,
    GraphQLClientGraphQLMultiError,
    GraphQLClientHttpError,
)
from threadline_client.fragments import Started

from api.cli import demo_runs
from api.cli.demo_client import RETRY_S, coded_body, retried
from api.cli.demo_runs import RunSpec

ROOT_TITLE = "Checkout: stop double charges on payment retries"
T = TypeVar("T")


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


class DemoStopped(RuntimeError):
    """A step failed for good: which one, why, and the threads seeded before it."""

    def __init__(self, step: str, cause: str, family: DemoFamily) -> None:
        left = ", ".join(f"{role} {ident}" for role, ident in family.threads.items())
        cause = cause.rstrip(".")
        if cause.startswith(("UNAUTHENTICATED", "FORBIDDEN")):
            cause += " (give a write token of the workspace: --token or THREADLINE_TOKEN)"
        count = len(family.threads)
        super().__init__(
            f"The demo stopped at step {step}: {cause}. "
            + (
                f"It left {count} thread{'s' if count > 1 else ''} ({left}); "
                "run the same command again to finish the family."
                if left
                else "It left no thread."
            )
        )
        self.step = step
        self.family = family


def _reason(error: BaseException) -> str:
    if isinstance(error, GraphQLClientGraphQLMultiError):
        first = error.errors[0]
        return f"{(first.extensions or {}).get('code', 'ERROR')}: {first.message}"
    if isinstance(error, GraphQLClientHttpError):  # a 401 (or 4xx) still carries its code
        return coded_body(error.response) or str(error)
    if isinstance(error, httpx.TransportError):
        return f"the service stopped answering ({error or type(error).__name__})"
    return str(error)


@dataclass
class _Seeder:
    """Sends each step with a commandId of its own, `demo-<key>-<step number>`: a step
    retried after UNAVAILABLE answers what it did the first time if that was committed, and
    a rerun with the same key replays the steps already done and carries on."""

    client: ThreadlineClient
    key: str
    retry_s: float
    family: DemoFamily = field(default_factory=DemoFamily)
    steps: int = 0

    async def call(self, step: str, send: Callable[[str], Awaitable[T]]) -> T:
        self.steps += 1
        command_id = f"demo-{self.key}-{self.steps}"
        try:
            return await retried(lambda: send(command_id), self.retry_s)
        except (GraphQLClientError, httpx.HTTPError) as error:
            raise DemoStopped(f"{self.steps} ({step})", _reason(error), self.family) from error

    async def thread(self, role: str, title: str) -> str:
        created = await self.call(
            f"createThread {role}",
            lambda cid: self.client.create_thread(title=title, command_id=cid),
        )
        self.family.threads[role] = created.create_thread.id
        return created.create_thread.id

    async def start(
        self, role: str, provider: str, text: str, runtime_mode: str | None = None
    ) -> dict[str, Any]:
        data = await self.call(
            f"startRun {role} on {provider}",
            lambda cid: self.client.start_run(
                thread_id=self.family.threads[role],
                provider=provider,
                input=text,
                runtime_mode=runtime_mode,
                command_id=cid,
            ),
        )
        return self.record(role, data.start_run)

    def record(self, role: str, started: Started) -> dict[str, Any]:
        """The start as its JSON answer (what the tests and the CLI print read)."""
        answer: dict[str, Any] = started.model_dump(by_alias=True, mode="json")
        ordinal = started.run.ordinal
        self.family.runs[(role, ordinal)] = started.run.id
        self.family.starts[(role, ordinal)] = answer
        return answer

    async def attach(self, role: str, started: dict[str, Any], provider: str) -> None:
        pt = started["providerThread"]
        if pt["nativeRef"] is None:
            await self.call(
                f"attachNativeThread {role} run {started['run']['ordinal']}",
                lambda cid: self.client.attach_native_thread(
                    provider_thread_id=pt["id"],
                    native_ref=f"{provider}-{role}-{pt['id'][-6:]}",
                    history_mode=HistoryMode.LEGACY,
                    command_id=cid,
                ),
            )

    async def complete(self, role: str, started: dict[str, Any], run: RunSpec) -> None:
        ordinal = started["run"]["ordinal"]
        checkpoint = run.checkpoint_input()
        await self.call(
            f"completeRun {role} run {ordinal}",
            lambda cid: self.client.complete_run(
                run_id=started["run"]["id"],
                native_turn_ref=f"turn-{role}-{ordinal}",
                items=[RunItemInput.model_validate(item) for item in run.run_items()],
                checkpoint=CheckpointInput.model_validate(checkpoint) if checkpoint else None,
                command_id=cid,
            ),
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
        data = await self.call(
            f"forkThread {role}",
            lambda cid: self.client.fork_thread(
                source_thread_id=self.family.threads[source],
                at=SourcePointInput.model_validate(at),
                title=title,
                command_id=cid,
            ),
        )
        self.family.threads[role] = data.fork_thread.id
        self.family.transfers[f"{role}.fork"] = data.fork_thread.incoming_transfers[0].id
        return data.fork_thread.id

    async def merge_back(self, role: str, name: str) -> None:
        data = await self.call(
            f"mergeBack {role}",
            lambda cid: self.client.merge_back(
                fork_thread_id=self.family.threads[role], command_id=cid
            ),
        )
        self.family.transfers[name] = data.merge_back.id

    def child(self, role: str, thread_id: str, transfer_id: str) -> None:
        self.family.threads[role] = thread_id
        self.family.transfers[f"{role}.spawn"] = transfer_id

    async def subagent_result(self, role: str, result: str) -> None:
        data = await self.call(
            f"completeSubagent {role}",
            lambda cid: self.client.complete_subagent(
                child_thread_id=self.family.threads[role], result=result, command_id=cid
            ),
        )
        self.family.transfers[f"{role}.result"] = data.complete_subagent.id


async def seed_demo(
    client: ThreadlineClient, key: str | None = None, retry_s: float = RETRY_S
) -> DemoFamily:
    """Build the demo family (see the module docstring) through the typed client, and say
    what was built; DemoStopped says where it stopped. The same `key` again finishes the
    family a stopped run left (its steps done so far are replayed from their receipts)."""
    seeder = _Seeder(client, key or secrets.token_hex(8), retry_s)
    await _canonical(seeder)
    await _native_fork_merged_back(seeder)
    await _portable_fork_rolled_back(seeder)
    await seeder.run("root", "codex", demo_runs.MERGE_RUN)
    await _review_with_subagents(seeder)
    await seeder.run("root", "codex", demo_runs.RELEASE_RUN)
    await _late_merge_back(seeder)
    return seeder.family


async def _canonical(seeder: _Seeder) -> None:
    await seeder.thread("root", ROOT_TITLE)
    providers = ["codex"] * 5 + ["claude"] * 3 + ["codex"]
    for provider, run in zip(providers, demo_runs.ROOT_RUNS, strict=True):
        await seeder.run("root", provider, run)


async def _native_fork_merged_back(seeder: _Seeder) -> None:
    """Forked at root run 5, first run on codex (the source run's provider): native."""
    root_run_5 = seeder.family.runs[("root", 5)]
    await seeder.fork("native_fork", "root", "Spike: Redis for idempotency keys", runId=root_run_5)
    for run in demo_runs.NATIVE_FORK_RUNS[:2]:
        await seeder.run("native_fork", "codex", run)
    await seeder.merge_back("native_fork", "native_fork.merge")


async def _portable_fork_rolled_back(seeder: _Seeder) -> None:
    """Forked at the latest checkpoint, first run on claude: portable context; rolled back."""
    await seeder.fork("portable_fork", "root", "Backport to the legacy checkout", latestStable=True)
    for run in demo_runs.PORTABLE_FORK_RUNS:
        await seeder.run("portable_fork", "claude", run)
    run_3 = seeder.family.runs[("portable_fork", 3)]
    await seeder.fork(
        "abandoned_fork", "portable_fork", "Spike: rewrite the legacy retry loop", runId=run_3
    )
    rolled = await seeder.call(
        "rollbackThread portable_fork",
        lambda cid: seeder.client.rollback_thread(
            thread_id=seeder.family.threads["portable_fork"], to_run_ordinal=1, command_id=cid
        ),
    )
    ordinals = [r.ordinal for r in rolled.rollback_thread.rolled_back_runs]
    seeder.family.rolled_back["portable_fork"] = ordinals


async def _review_with_subagents(seeder: _Seeder) -> None:
    """A claude run in plan mode (the old claude thread is stale) that delegates twice."""
    parent = await seeder.start("root", "claude", demo_runs.REVIEW_RUN.input, runtime_mode="plan")
    await seeder.attach("root", parent, "claude")
    spawned = await seeder.call(
        "spawnSubagent subagent",
        lambda cid: seeder.client.spawn_subagent(
            parent_run_id=parent["run"]["id"],
            task=demo_runs.SUBAGENT_TASK,
            provider="claude",
            command_id=cid,
        ),
    )
    child = spawned.spawn_subagent
    seeder.child("subagent", child.id, child.incoming_transfers[0].id)
    native = await seeder.call(
        "recordNativeSubagent native_subagent",
        lambda cid: seeder.client.record_native_subagent(
            parent_run_id=parent["run"]["id"],
            provider="codex",
            native_ref="codex-subagent-profile",
            title="Profile the key lookup",
            command_id=cid,
        ),
    )
    recorded = native.record_native_subagent
    seeder.child("native_subagent", recorded.id, recorded.incoming_transfers[0].id)
    await seeder.complete("root", parent, demo_runs.REVIEW_RUN)

    await _subagent_with_a_failed_start(seeder)
    await seeder.run("native_subagent", "codex", demo_runs.NATIVE_SUBAGENT_RUN)
    await seeder.subagent_result("native_subagent", demo_runs.NATIVE_SUBAGENT_RESULT)


async def _subagent_with_a_failed_start(seeder: _Seeder) -> None:
    """The first claude session cannot be created; the run moves to a new provider thread."""
    first = await seeder.start("subagent", "claude", demo_runs.SUBAGENT_RUN.input)
    seeder.family.failed_starts["subagent"] = first
    retried = await seeder.call(
        "reportStartFailure subagent",
        lambda cid: seeder.client.report_start_failure(
            run_id=first["run"]["id"], reason=demo_runs.SUBAGENT_START_FAILURE, command_id=cid
        ),
    )
    started = seeder.record("subagent", retried.report_start_failure)
    await seeder.attach("subagent", started, "claude")
    await seeder.complete("subagent", started, demo_runs.SUBAGENT_RUN)
    await seeder.subagent_result("subagent", demo_runs.SUBAGENT_RESULT)


async def _late_merge_back(seeder: _Seeder) -> None:
    """More work on the native fork, merged back again: pending until root runs again."""
    await seeder.run("native_fork", "codex", demo_runs.NATIVE_FORK_RUNS[2])
    await seeder.merge_back("native_fork", "native_fork.late_merge")
