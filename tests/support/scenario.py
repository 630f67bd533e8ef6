"""One thread driven through the pure decisions and their write plans, without a database.
A thread may be a fork of another scenario's thread (`Scenario.fork_of`): its first start
resolves the fork's transfer, and every start reads its ancestors' states.

The plans are replayed on plain records of the thread (every run with its items, every
provider thread and handoff), and the `ThreadState` the next decision reads is read off
those records the way the store reads it (thread/state.cypher): from the ranges and
chains the plans maintain. `native` and `delta_chain` state the same facts by their
definitions, over every run, so tests can check the two agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from graph.models import (
    IN_PROGRESS,
    SETTLED,
    HandoffNode,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderLimitNode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    RunStatus,
    SummarySource,
    ThreadNode,
    ThreadRelationship,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.plan import NodeChange, WritePlan
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers import runs as run_plans
from resolvers.content import Content
from resolvers.draft import Draft
from resolvers.handoffs import preparing
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.sources import SummaryPolicy, assign
from resolvers.lineage import points
from resolvers.lineage import rollback as rollbacks
from resolvers.providers import ProviderRegistry, registry_from_toml
from resolvers.start import writes as start_plan
from resolvers.start.decision import StartDecision, StartRequest, decide_start
from resolvers.start.staleness import StalenessPolicy
from resolvers.start.writes import StartOutcome

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class Scenario:
    def __init__(
        self,
        registry: ProviderRegistry | None = None,
        policy: StalenessPolicy | None = None,
        history: HistoryMode = HistoryMode.LEGACY,
    ) -> None:
        self.registry = registry or registry_from_toml(None)
        self.policy = policy or StalenessPolicy()
        self.history = history
        self._ids = count(1)
        self.thread = ThreadNode(id="t", workspace="w", createdAt=T0, rootId="t")
        self.runs: dict[str, RunNode] = {}
        self.provider_threads: dict[str, ProviderThreadNode] = {}
        self.handoffs: dict[str, HandoffNode] = {}
        self.source: Scenario | None = None  # the thread this one was forked from
        self.origin: TransferNode | None = None  # the fork's transfer
        self._tag = ""  # in the ids it makes: a fork's differ from its source's

    @classmethod
    def fork_of(cls, source: Scenario, at: int, thread_id: str = "f") -> Scenario:
        """A fork of `source` at its run `at`, its FORK transfer pending (SEMANTICS "Forks")."""
        fork = cls(source.registry, source.policy, source.history)
        fork.thread = ThreadNode(
            id=thread_id,
            workspace="w",
            createdAt=T0,
            rootId=source.thread.rootId,
            parentId=source.thread.id,
            relationshipToParent=ThreadRelationship.FORK,
        )
        run = source._run_at(at)
        fork.source = source
        fork.origin = TransferNode(
            id=f"xfr-{thread_id}",
            type=TransferType.FORK,
            sourceThreadId=source.thread.id,
            targetThreadId=thread_id,
            sourcePoint=points.point_at(source.state, run),
            sourceProvider=run.provider,
            status=TransferStatus.PENDING,
            createdAt=T0,
        )
        fork._tag = f"{thread_id}-"
        return fork

    def ancestors(self) -> list[Scenario]:
        found, current = [], self.source
        while current is not None:
            found.append(current)
            current = current.source
        return found

    def threads(self) -> dict[str, ThreadState]:
        """The related states a start reads: the thread's ancestors."""
        return {sc.thread.id: sc.state for sc in self.ancestors()}

    # ---- driving -------------------------------------------------------------------

    def decide(
        self, provider: str, runtime_mode: str | None = None, *, trimmed: bool = False
    ) -> StartDecision:
        request = StartRequest(provider=provider, input="x", runtimeMode=runtime_mode)
        state = self.trimmed_state if trimmed else self.state
        return decide_start(
            state, request, self.registry, self.policy, self.content(), threads=self.threads()
        )

    def run(
        self,
        provider: str,
        *items: RunItem,
        runtime_mode: str | None = None,
        status: RunStatus = RunStatus.COMPLETED,
    ) -> StartDecision:
        """Start, attach and finish one run; returns the start decision."""
        request = StartRequest(
            provider=provider, input=f"run {self.thread.lastOrdinal + 1}", runtimeMode=runtime_mode
        )
        state = self.state
        decision = decide_start(
            state, request, self.registry, self.policy, self.content(), threads=self.threads()
        )
        outcome = self._apply(lambda draft: start_plan.start(draft, state, request, decision))
        pt = self.provider_threads[outcome.provider_thread_id]
        if pt.nativeRef is None:
            self._after_start(
                lambda draft, state: run_plans.attach(draft, state, pt, "native", self.history)
            )
        run = self.runs[outcome.run_id]
        if status is RunStatus.COMPLETED:
            self._after_start(
                lambda draft, state: run_plans.complete(
                    draft, state, run, f"turn-{run.ordinal}", items, None, None
                )
            )
        elif status is RunStatus.FAILED:
            self._after_start(lambda draft, state: run_plans.fail(draft, state, run, "broke"))
        elif status is RunStatus.INTERRUPTED:
            limit = ProviderLimitNode(
                id="lim", workspace="w", provider=provider, reason="limit hit", reportedAt=T0
            )
            self._after_start(
                lambda draft, state: run_plans.interrupt(draft, state, run, limit, items)
            )
        return decision

    def rollback(self, to: int) -> rollbacks.RollbackDecision:
        state = self.state
        inputs = rollbacks.RollbackInputs(
            toOrdinal=to,
            rolledRuns=[
                r
                for r in self._ordered_runs()
                if r.ordinal > to and r.status is not RunStatus.ROLLED_BACK
            ],
            affected=[
                rollbacks.AffectedHandoff(
                    handoff=h,
                    consumerOrdinal=self._consumer(h).ordinal if self._consumer(h) else None,
                    consumerProviderThreadId=(
                        self._consumer(h).providerThreadId if self._consumer(h) else None  # type: ignore[union-attr]
                    ),
                )
                for h in self.handoffs.values()
                if h.status is not HandoffStatus.SUPERSEDED and self._reaches_past(h, to)
            ],
        )
        decision = rollbacks.decide_rollback(state, inputs, self.registry)
        self._apply(lambda draft: rollbacks.record(draft, state, decision, to))
        return decision

    def prepare(self, provider: str) -> HandoffNode:
        """prepareHandoff: the handoff the next start on `provider` would inject, written
        now (decided as that start, without any handoff prepared before)."""
        state = self.state
        fresh = state.model_copy(update={"prepared": []})
        request = StartRequest(provider=provider, input="")
        decision = decide_start(
            fresh, request, self.registry, self.policy, self.content(), threads=self.threads()
        )
        node: HandoffNode = self._apply(lambda draft: preparing.prepare(draft, state, decision))
        return node

    def request_clean_context(self) -> None:
        state = self.state
        self._apply(lambda draft: run_plans.request_clean_context(draft, state))

    def content(self) -> Content:
        return Content(
            (sc.thread.id, digest_of(run))
            for sc in [self, *self.ancestors()]
            for run in sc.runs.values()
        )

    # ---- the state, by definition ----------------------------------------------------

    @property
    def state(self) -> ThreadState:
        runs = self._ordered_runs()
        last = runs[-1] if runs else None
        live_pts = {p.id for p in self.provider_threads.values() if p.status not in SETTLED}
        live = sorted(
            (
                h
                for h in self.handoffs.values()
                if h.toProviderThreadId in live_pts
                and h.status in (HandoffStatus.READY, HandoffStatus.PENDING)
            ),
            key=lambda h: (h.createdAt, h.id),
        )
        busy = last.id if last is not None and last.status in IN_PROGRESS else None
        return ThreadState(
            thread=self.thread,
            lastRun=last,
            providerThreads=sorted(self.provider_threads.values(), key=lambda p: p.createdAt),
            handoffs=live,
            runHandoffs=[h for h in live if busy is not None and h.targetRunId == busy],
            deltaChains={
                pt.id: self._run_at(pt.native.last).deltaChain
                for pt in self.provider_threads.values()
                if pt.native and pt.id in live_pts
            },
            latestCompleted=next(
                (r for r in reversed(runs) if r.status is RunStatus.COMPLETED), None
            ),
            transfers=[self.origin] if self.origin is not None else [],
            prepared=sorted(
                (
                    h
                    for h in self.handoffs.values()
                    if h.prepared and h.status is HandoffStatus.READY
                ),
                key=lambda h: (h.createdAt, h.id),
            ),
        )

    @property
    def trimmed_state(self) -> ThreadState:
        """The state as the commands on a run read it (`trimmed`, cypher/thread/state.cypher):
        settled provider threads only when they are the latest of their provider or the
        last run's."""
        state = self.state
        latest: dict[str, str] = {}
        for pt in sorted(
            state.providerThreads, key=lambda p: (p.lastUsedAt, p.createdAt, p.id), reverse=True
        ):
            latest.setdefault(pt.provider, pt.id)
        named = {*latest.values(), state.lastRun.providerThreadId if state.lastRun else None}
        kept = [p for p in state.providerThreads if p.status not in SETTLED or p.id in named]
        return state.model_copy(update={"providerThreads": kept})

    @property
    def run_state(self) -> ThreadState:
        """The state as the commands on a started run read it (`trimmed` and
        `runHandoffsOnly`): of the live handoffs, only the run in progress's."""
        state = self.trimmed_state
        return state.model_copy(update={"handoffs": list(state.runHandoffs)})

    def history_runs(self) -> list[RunNode]:
        return [
            r
            for r in self._ordered_runs()
            if r.status is not RunStatus.ROLLED_BACK and r.status not in IN_PROGRESS
        ]

    def native(self, pt_id: str) -> Ranges:
        """SEMANTICS: the history runs that ran on the provider thread."""
        return Ranges.of(r.ordinal for r in self.history_runs() if r.providerThreadId == pt_id)

    def delta_chain(self, pt_id: str) -> int:
        """docs/MODEL.md: the runs on the provider thread, newest first, that each started
        with a delta handoff, up to the first that did not."""
        deltas = {
            h.id
            for h in self.handoffs.values()
            if h.toProviderThreadId == pt_id
            and h.strategy is HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN
        }
        chain = 0
        for run in reversed(self._ordered_runs()):
            if run.providerThreadId != pt_id or run.status is RunStatus.ROLLED_BACK:
                continue
            if not deltas.intersection(run.consumedHandoffIds):
                break
            chain += 1
        return chain

    # ---- replaying plans -----------------------------------------------------------

    def apply(self, write: Any) -> Any:
        """`write(draft)`'s answer, its plan replayed: any command's plan, step by step."""
        return self._apply(write)

    def _after_start(self, write: Callable[[Draft, ThreadState], Any]) -> None:
        """A command on a started run, on the state the store reads for it (`run_state`),
        which must write what the whole state would."""
        plans = []
        for state in (self.state, self.run_state):
            draft = Draft(lambda prefix: prefix, T0)
            write(draft, state)
            plans.append(draft.build())
        assert plans[0] == plans[1]
        self._apply(lambda draft: write(draft, self.run_state))

    def _apply(self, write: Any) -> Any:
        draft = Draft(self._new_id, T0 + timedelta(seconds=next(self._ids)))
        answer = write(draft)
        self._replay(draft.build())
        return answer

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}{self._tag}{next(self._ids)}"

    def _replay(self, plan: WritePlan) -> None:
        for pt in plan.providerThreads:
            self.provider_threads[pt.id] = pt
        for handoff in plan.handoffs:
            self.handoffs[handoff.id] = handoff
        for run in plan.runs:
            self.runs[run.id] = run
        for move in plan.runMoves:
            moved = self.runs[move.runId]
            self.runs[move.runId] = moved.model_copy(
                update={"consumedHandoffIds": [*moved.consumedHandoffIds, *move.handoffIds]}
            )
        for content in plan.runContents:
            self.runs[content.runId] = self.runs[content.runId].model_copy(
                update={"items": content.items, "checkpoint": content.checkpoint}
            )
        for change in plan.threadChanges:
            self.thread = _changed(self.thread, change)
        _change_all(self.provider_threads, plan.providerThreadChanges)
        _change_all(self.runs, plan.runChanges)
        _change_all(self.handoffs, plan.handoffChanges)
        for transfer in plan.transferChanges:
            if self.origin is not None and transfer.id == self.origin.id:
                self.origin = _changed(self.origin, transfer)

    def _ordered_runs(self) -> list[RunNode]:
        return sorted(self.runs.values(), key=lambda r: r.ordinal)

    def _run_at(self, ordinal: int | None) -> RunNode:
        return next(r for r in self.runs.values() if r.ordinal == ordinal)

    def _consumer(self, handoff: HandoffNode) -> RunNode | None:
        """The run it was injected into, as thread/rollback_inputs.cypher reads it."""
        return self.runs.get(handoff.targetRunId or "")

    def _reaches_past(self, handoff: HandoffNode, to: int) -> bool:
        """A candidate of a rollback to `to` (thread/rollback_inputs.cypher): about the
        thread and reaching past `to`, or consumed by a run after it still live."""
        consumer = self._consumer(handoff)
        consumed_after = (
            consumer is not None
            and consumer.ordinal > to
            and consumer.status is not RunStatus.ROLLED_BACK
        )
        return (
            handoff.sourceThreadId == self.thread.id and handoff.coveredTo > to
        ) or consumed_after


def _changed(node: Any, change: NodeChange) -> Any:
    fields = type(node).model_fields
    return node.model_copy(update={k: v for k, v in change.props.items() if k in fields})


def _change_all(nodes: dict[str, Any], changes: Sequence[NodeChange]) -> None:
    for change in changes:
        nodes[change.id] = _changed(nodes[change.id], change)


def waiting_start(source: SummarySource) -> tuple[Scenario, StartOutcome]:
    """Runs 1-2 on codex, then a start on claude whose summary `source` writes (PENDING
    unless `source` is LOCAL)."""
    scenario = Scenario()
    scenario.run("codex")
    scenario.run("codex")
    state = scenario.state
    request = StartRequest(provider="claude", input="next")
    decision = decide_start(state, request, scenario.registry, scenario.policy, scenario.content())
    assignments = assign(
        decision.handoffs, source, decision.provider, {"t": state}, SummaryPolicy()
    )
    outcome = scenario.apply(
        lambda draft: start_plan.start(draft, state, request, decision, assignments=assignments)
    )
    return scenario, outcome
