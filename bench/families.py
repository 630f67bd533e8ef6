"""Realistic thread families, simulated as the service would have recorded them.

A family is a root thread with its forks (chains up to depth 20) and subagents. Each
thread's runs follow a capped Pareto distribution (heavy-tailed, up to 1,000 runs); many
threads switch provider, some roll back, some runs fail. Every step follows the rules of
docs/MODEL.md and SEMANTICS.md closely enough that the service reads the result as if it
had written it: the strategy ladder (continue, delta, full, new provider thread),
staleness (off-provider runs, chained handoffs), native and portable forks, inherited
context, subagent spawns and results, merge-backs and rollbacks, with their events and
command receipts. Where the product states a rule as a pure function that a step can ask
without slowing the simulation down, the step asks it (a provider thread's reuse, the
ladder's rungs, a fork's native path, a rollback's effects); the rest it keeps itself,
incrementally (bench/README.md, "What the generator asks the product").

The output is `bench.records`, plain facts; `bench.model` maps them to node properties.
Everything is drawn from one `random.Random` per family, so a seed always gives the
same families, and family `i` is the same at every scale.
"""

from __future__ import annotations

import bisect
import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import content, model
from bench.records import (
    CheckpointRecord,
    EventRecord,
    Family,
    HandoffRecord,
    ProviderThreadRecord,
    ReceiptRecord,
    RunRecord,
    ThreadRecord,
    TransferRecord,
)
from graph.models import (
    Actor,
    HandoffKind,
    HandoffStatus,
    HandoffStrategy,
    HistoryMode,
    ProviderAction,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunDigest,
    RunItemKind,
    RunStatus,
    StalenessSignal,
    StartStrategy,
    ThreadRelationship,
    TransferStatus,
    TransferType,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.handoffs import digests, tokenizer
from resolvers.handoffs.budget import ContextPolicy, context_budget
from resolvers.handoffs.planning import NativeForkPlan, runs_named
from resolvers.handoffs.quality import assess
from resolvers.lineage.points import DELIVERED_TO_PARENT
from resolvers.lineage.rollback import (
    AffectedHandoff,
    Delivered,
    PendingResult,
    RollbackInputs,
    decide_rollback,
)
from resolvers.providers import registry_from_toml
from resolvers.start import staleness, transfers
from resolvers.start.decision import RUNGS
from resolvers.start.staleness import StalenessPolicy

PROVIDERS = ("codex", "claude")
# History modes the generated clients report: neither can roll back natively, so a
# rollback leaves the provider threads it touched DIVERGENT (SEMANTICS "Rollback").
HISTORY_MODES = {"codex": HistoryMode.PAGINATED, "claude": HistoryMode.UNKNOWN}
# The product's own defaults, not copies: the providers' capabilities, the staleness
# thresholds (THREADLINE_MAX_OFF_PROVIDER_RUNS etc.) and the handoff budget.
REGISTRY = registry_from_toml(None)
POLICY = StalenessPolicy()
MAX_OFF_PROVIDER_RUNS = POLICY.max_off_provider_runs
MAX_CHAINED_HANDOFFS = POLICY.max_chained_handoffs
MAX_DELTA_CHAIN = POLICY.max_delta_chain
# A cheap stand-in for the summarizer's size: about four characters a token of prose.
MAX_HANDOFF_CHARS = min(REGISTRY.get(p).max_handoff_tokens for p in PROVIDERS) * 4
INPUT_LIMIT = digests.LINE_LIMIT
EPOCH = datetime(2025, 6, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Shape:
    """The distributions a family is drawn from."""

    max_runs: int = 1000
    pareto_alpha: float = 1.2  # runs per thread: floor(min * U^(-1/alpha)), capped
    pareto_min: float = 3.0
    switching_share: float = 0.6  # threads that switch provider at all
    mean_segment: float = 8.0  # runs on one provider before a switch
    spawn_per_run: float = 0.03
    native_spawn_share: float = 0.3
    subagent_max_runs: int = 6
    fork_chance: float = 0.15  # a thread with completed runs gets a fork...
    more_forks: float = 0.3  # ...and each further one with this chance
    fork_decay: float = 0.5  # forks of forks are rarer by this factor per level
    merge_back_chance: float = 0.4
    deep_chain_share: float = 0.005  # families that are a fork chain of depth 5..max_depth
    max_depth: int = 20
    rollback_chance: float = 0.08
    failure_per_run: float = 0.02
    checkpoint_fork_share: float = 0.3


@dataclass
class _PtState:
    """What the ladder needs about a provider thread, kept up to date incrementally."""

    record: ProviderThreadRecord
    seen: set[int] = field(default_factory=set)  # covered history ordinals (own thread)
    last_native: int = 0
    ready_received: int = 0
    delta_chain: int = 0


@dataclass
class _Plan:
    strategy: HandoffStrategy
    kind: HandoffKind
    source: ThreadSim
    runs: list[RunRecord]
    title: str
    transfer_id: str | None = None
    task: str | None = None
    result: str | None = None
    exclude_pt: str | None = None


class Sim:
    """A family being simulated: its random source, clock and records."""

    def __init__(self, rng: random.Random, shape: Shape, ids: random.Random) -> None:
        self.rng = rng
        self._ids = ids  # ids are unique across the database: salted by the workspace
        self.shape = shape
        self.now = EPOCH - timedelta(days=rng.uniform(0, 90))
        self.family: Family | None = None

    def id(self, prefix: str) -> str:
        return f"{prefix}_{self._ids.getrandbits(128):032x}"

    def tick(self, low: float, high: float) -> datetime:
        self.now += timedelta(seconds=self.rng.uniform(low, high))
        return self.now

    def receipt(self, mutation: str, result: dict[str, Any]) -> None:
        assert self.family is not None
        digest = hashlib.sha256(f"{mutation}{self.rng.getrandbits(64)}".encode()).hexdigest()
        self.family.receipts.append(
            ReceiptRecord(
                command_id=f"cmd-{self.rng.getrandbits(96):024x}",
                mutation=mutation,
                args_hash=digest,
                result=_json(result),
                at=self.now,
            )
        )

    def new_thread(self, record: ThreadRecord) -> ThreadSim:
        assert self.family is not None
        self.family.threads.append(record)
        return ThreadSim(self, record)


class ThreadSim:
    """One app thread: the ladder, lineage steps and rollback, recorded as they happen."""

    def __init__(self, sim: Sim, record: ThreadRecord) -> None:
        self.sim = sim
        self.rec = record
        self.history: list[RunRecord] = []
        self.ordinals: list[int] = []  # of `history`, ascending
        self.pts: dict[str, _PtState] = {}
        self.latest: dict[str, _PtState] = {}  # most recently used per provider
        self.origin: TransferRecord | None = None  # pending fork or spawn to resolve
        self.links: list[tuple[TransferRecord, ThreadSim]] = []  # inherited, root first
        self.deliveries: list[tuple[TransferRecord, ThreadSim]] = []  # for the next run
        self.taken: list[TransferRecord] = []  # the deliveries its runs consumed
        self.parent: ThreadSim | None = None
        self.last_completed: RunRecord | None = None
        self.digests: dict[str, RunDigest] = {}  # of ended runs, for grading handoffs

    # ---- runs ----------------------------------------------------------------

    def cycle(self, provider: str) -> RunRecord:
        """startRun → attachNativeThread (when the provider thread is new) → complete."""
        run = self.start(provider)
        state = self.pts[run.provider_thread_id]
        if state.record.native_ref is None:
            self.attach(state)
        if self.sim.rng.random() < self.sim.shape.failure_per_run:
            self.fail(run)
        else:
            self.complete(run)
        return run

    def start(self, provider: str) -> RunRecord:
        now = self.sim.tick(5, 1800)
        ordinal = self.rec.last_ordinal + 1
        plans: list[_Plan] = []
        resolutions: list[tuple[TransferRecord, ResolutionStrategy, bool, int | None]] = []
        chosen: _PtState | None = None
        forked_from: str | None = None
        ladder_delta = False
        origin = (
            self.origin if self.origin and self.origin.status is TransferStatus.PENDING else None
        )
        if origin is not None:
            self.origin = None
            if origin.type is TransferType.FORK and self._native_fork(origin, provider):
                strategy, action = StartStrategy.NATIVE_FORK, ProviderAction.NATIVE_FORK
                forked_from = origin.source_point["providerThreadId"]
                resolutions.append((origin, ResolutionStrategy.NATIVE_FORK, True, None))
            else:
                strategy, action = StartStrategy.PORTABLE_CONTEXT, ProviderAction.CREATE
                plans = self._inherited()
                produced = next(i for i, p in enumerate(plans) if p.transfer_id == origin.id)
                resolutions.append((origin, ResolutionStrategy.PORTABLE_CONTEXT, False, produced))
        else:
            chosen = self._pick(provider)
            if chosen is None:
                plans = self._inherited()
                if self.history:
                    strategy = StartStrategy.FULL_HANDOFF_NEW_THREAD
                    plans.append(self._own(strategy, self.history))
                    action = RUNGS[strategy][2]
                else:
                    strategy = StartStrategy.PORTABLE_CONTEXT if plans else StartStrategy.NO_HANDOFF
                    action = ProviderAction.CREATE
            else:
                covered = len(chosen.seen)
                last = max(chosen.seen, default=0)
                if covered == len(self.history):
                    strategy = StartStrategy.NO_HANDOFF
                    ran_last = (
                        self.history and self.history[-1].provider_thread_id == chosen.record.id
                    )
                    action = ProviderAction.CONTINUE if ran_last else ProviderAction.RESUME
                else:
                    # What it missed is one suffix when everything it saw comes first.
                    seen_first = bisect.bisect_right(self.ordinals, last) == covered
                    if seen_first and chosen.delta_chain < MAX_DELTA_CHAIN:
                        strategy, ladder_delta = StartStrategy.DELTA_HANDOFF_EXISTING_THREAD, True
                        missed = self.history[covered:]
                    else:
                        strategy, missed = StartStrategy.FULL_HANDOFF_EXISTING_THREAD, self.history
                    plans.append(self._own(strategy, missed, chosen.record.id))
                    action = RUNGS[strategy][2]
        for transfer, source in self.deliveries:
            plans.append(self._delivery(transfer, source))
            resolutions.append((transfer, ResolutionStrategy.DELTA_CONTEXT, False, len(plans) - 1))
        self.deliveries = []

        model = content.model_for(provider)
        if chosen is None:
            record = self._provider_thread(
                provider, ProviderThreadStatus.PENDING, model, now, forked_from_id=forked_from
            )
            self.rec.provider_threads.append(record)
            chosen = self.pts[record.id] = _PtState(record)
            self.event(
                "providerThread.created", None, providerThreadId=record.id, provider=provider
            )
        else:
            pt = chosen.record
            pt.status = ProviderThreadStatus.ACTIVE if pt.native_ref else pt.status
            pt.model = model or pt.model
            pt.last_used_at = now
        self.latest[provider] = chosen
        chosen.delta_chain = chosen.delta_chain + 1 if ladder_delta else 0
        pt = chosen.record
        run = RunRecord(
            id=self.sim.id("run"),
            thread_id=self.rec.id,
            ordinal=ordinal,
            provider=provider,
            model=model,
            status=RunStatus.RUNNING if pt.native_ref else RunStatus.STARTING,
            input="",
            provider_thread_id=pt.id,
            started_at=now,
            start_strategy=strategy,
            provider_action=action,
        )
        self.rec.runs.append(run)
        self.rec.last_ordinal = ordinal
        handoffs = [self._handoff(plan, pt.id, run.id, now) for plan in plans]
        for handoff in handoffs:
            chosen.ready_received += 1
            if handoff.source_thread_id == self.rec.id:
                chosen.seen.update(self.ordinals_in(handoff.covered_from, handoff.covered_to))
        self.event(
            "run.started",
            run.id,
            ordinal=ordinal,
            provider=provider,
            strategy=strategy,
            providerAction=action,
        )
        for transfer, how, native, index in resolutions:
            transfer.status = TransferStatus.CONSUMED
            transfer.resolution_strategy = how
            transfer.resolved_provider_thread_id = pt.id
            transfer.handoff_id = handoffs[index].id if index is not None else None
            transfer.consumed_at = now
            transfer.consumed_by_run_id = run.id
            if transfer.type in DELIVERED_TO_PARENT:
                self.taken.append(transfer)
            resolved = (
                TransferStatus.RESOLVED_NATIVE if native else TransferStatus.RESOLVED_PORTABLE
            )
            self.event(
                "transfer.resolved", run.id, transferId=transfer.id, status=resolved, strategy=how
            )
            self.event("transfer.consumed", run.id, transferId=transfer.id)
        for handoff in handoffs:
            self.event(
                "handoff.created",
                run.id,
                handoffId=handoff.id,
                strategy=handoff.strategy,
                covered=[handoff.covered_from, handoff.covered_to],
                source=handoff.summary_source,
                status=handoff.status,
            )
        self.rec.version += 1
        self.sim.receipt("startRun", {"run_id": run.id, "provider_thread_id": pt.id})
        return run

    def attach(self, state: _PtState) -> None:
        self.sim.tick(1, 20)
        pt = state.record
        pt.native_ref = f"{pt.provider}-{self.sim.rng.getrandbits(48):012x}"
        pt.history_mode = HISTORY_MODES[pt.provider]
        pt.status = (
            ProviderThreadStatus.ACTIVE if pt.status is ProviderThreadStatus.PENDING else pt.status
        )
        for run in self.rec.runs:
            if run.provider_thread_id == pt.id and run.status is RunStatus.STARTING:
                run.status = RunStatus.RUNNING
        self.event(
            "providerThread.attached",
            None,
            providerThreadId=pt.id,
            nativeRef=pt.native_ref,
            historyMode=pt.history_mode,
        )
        self.rec.version += 1
        self.sim.receipt("attachNativeThread", {"id": pt.id})

    def complete(self, run: RunRecord) -> None:
        rng = self.sim.rng
        now = self.sim.tick(20, 600)
        said = content.run_content(rng, run.ordinal, self.rec.id[-8:])
        run.input = said.input
        run.items = said.items
        run.status = RunStatus.COMPLETED
        run.native_turn_ref = f"turn-{run.ordinal}-{rng.getrandbits(32):08x}"
        run.completed_at = now
        if said.checkpoint is not None:
            run.checkpoint = CheckpointRecord(
                id=self.sim.id("ckp"),
                run_id=run.id,
                ref=said.checkpoint["ref"],
                diff_summary=said.checkpoint["diffSummary"],
                created_at=now,
            )
        self.last_completed = run
        self.event(
            "run.completed",
            run.id,
            ordinal=run.ordinal,
            items=len(run.items),
            checkpointId=run.checkpoint.id if run.checkpoint else None,
        )
        self._settle(run)
        self.sim.receipt("completeRun", {"id": run.id})

    def fail(self, run: RunRecord) -> None:
        rng = self.sim.rng
        now = self.sim.tick(5, 300)
        run.input = content.run_content(rng, run.ordinal, self.rec.id[-8:]).input
        run.status = RunStatus.FAILED
        run.failure_reason = rng.choice(
            ("provider timed out", "rate limited (429)", "tool crashed", "cancelled by the user")
        )
        run.completed_at = now
        self.event("run.failed", run.id, ordinal=run.ordinal, reason=run.failure_reason)
        self._settle(run)
        self.sim.receipt("failRun", {"id": run.id})

    def _settle(self, run: RunRecord) -> None:
        """A finished run is history and native coverage of its provider thread."""
        self.history.append(run)
        self.ordinals.append(run.ordinal)
        state = self.pts[run.provider_thread_id]
        state.seen.add(run.ordinal)
        state.last_native = run.ordinal
        held = digests.tokens_held(model.ended_node(run), self.digest(run))
        state.record.held_tokens += held
        self.rec.version += 1

    def rollback(self, to_ordinal: int) -> None:
        """rollbackThread, as the product decides it (`resolvers.lineage.rollback`): the runs
        it rolls back, the handoffs and transfers they take with them, and what becomes of
        each provider thread (neither generated history mode rolls back natively)."""
        now = self.sim.tick(5, 120)
        decision = decide_rollback(self.state(), self._rollback_inputs(to_ordinal), REGISTRY)
        rolled_ids = set(decision.rolledBackRunIds)
        gone = set(decision.rolledBack)
        for run in self.rec.runs:
            if run.id in rolled_ids:
                run.status = RunStatus.ROLLED_BACK
                run.rolled_back_to, run.rolled_back_at = to_ordinal, now
        keep = [i for i, r in enumerate(self.history) if r.ordinal not in gone]
        self.history = [self.history[i] for i in keep]
        self.ordinals = [self.ordinals[i] for i in keep]
        self.last_completed = next(
            (r for r in reversed(self.history) if r.status is RunStatus.COMPLETED), None
        )
        handoffs = {h.id: h for h in self.rec.handoffs}
        for handoff_id in decision.supersededHandoffIds:
            handoff = handoffs[handoff_id]
            handoff.status = HandoffStatus.SUPERSEDED
            handoff.updated_at = now
            self.pts[handoff.to_provider_thread_id].ready_received -= 1
        for pt_id, status in decision.providerThreadStatuses.items():
            self.pts[pt_id].record.status = status
        for state in self.pts.values():
            state.seen -= gone
        assert self.sim.family is not None
        superseded = set(decision.supersededTransferIds)
        for transfer in self.sim.family.transfers:
            if transfer.id in superseded:
                transfer.status = TransferStatus.SUPERSEDED
        self.taken = [t for t in self.taken if t.id not in superseded]
        self.deliveries = [d for d in self.deliveries if d[0].id not in superseded]
        self.event(
            "thread.rolledBack", None, toRunOrdinal=to_ordinal, rolledBackRuns=len(rolled_ids)
        )
        for handoff_id in decision.supersededHandoffIds:
            self.event("handoff.superseded", None, handoffId=handoff_id, reason="rollback")
        for pt_id, status in decision.providerThreadStatuses.items():
            self.event("providerThread.status", None, providerThreadId=pt_id, status=status)
        for transfer_id in decision.supersededTransferIds:
            self.event("transfer.superseded", None, transferId=transfer_id, reason="rollback")
        self.rec.version += 1
        self.sim.receipt("rollbackThread", {"thread_id": self.rec.id})

    def _rollback_inputs(self, to_ordinal: int) -> RollbackInputs:
        """What the store reads for a rollback besides the thread's state: its live runs
        after `to_ordinal`, the live handoffs about or injected into a run after it, the
        merge-backs and subagent results it consumed, its pending subagent results."""
        runs = {run.id: run for run in self.rec.runs}
        rolled = [
            r
            for r in self.rec.runs
            if r.ordinal > to_ordinal and r.status is not RunStatus.ROLLED_BACK
        ]
        affected: list[AffectedHandoff] = []
        for handoff in self.rec.handoffs:
            consumer = runs.get(handoff.target_run_id or "")
            about = handoff.source_thread_id == self.rec.id and handoff.covered_to > to_ordinal
            injected = consumer is not None and consumer.ordinal > to_ordinal
            if handoff.status is not HandoffStatus.SUPERSEDED and (about or injected):
                affected.append(
                    AffectedHandoff(
                        handoff=model.handoff_node(handoff),
                        consumerOrdinal=consumer.ordinal if consumer else None,
                        consumerProviderThreadId=consumer.provider_thread_id if consumer else None,
                    )
                )
        live = {h.id for h in self.rec.handoffs if h.status is not HandoffStatus.SUPERSEDED}
        return RollbackInputs(
            toOrdinal=to_ordinal,
            rolledRuns=[model.run_node(run) for run in rolled],
            affected=affected,
            delivered=[
                Delivered(transfer=model.transfer_node(t), handoffLive=t.handoff_id in live)
                for t in self.taken
            ],
            pendingResults=[
                PendingResult(transferId=t.id, spawnedByRunId=child.links[-1][0].spawned_by_run_id)
                for t, child in self.deliveries
                if t.type is TransferType.SUBAGENT_RESULT
            ],
        )

    def state(self) -> ThreadState:
        """The thread as the product's rules read it (`graph.thread_state`): built only for
        the rare steps that ask a whole rule (a fork's first run, a rollback)."""
        native: dict[str, list[int]] = {}
        for run in self.history:
            native.setdefault(run.provider_thread_id, []).append(run.ordinal)
        assert self.sim.family is not None
        pending = [t for t in self.sim.family.transfers if t.status is TransferStatus.PENDING]
        return ThreadState(
            thread=model.thread_node(self.rec),
            lastRun=model.run_node(self.rec.runs[-1]) if self.rec.runs else None,
            providerThreads=[
                model.provider_thread_node(s.record, native.get(s.record.id, ()))
                for s in self.pts.values()
            ],
            transfers=[
                model.transfer_node(t) for t in pending if t.target_thread_id == self.rec.id
            ],
            outgoingTransfers=[
                model.transfer_node(t) for t in pending if t.source_thread_id == self.rec.id
            ],
        )

    # ---- lineage ---------------------------------------------------------------

    def fork(self, at: RunRecord, at_checkpoint: bool) -> ThreadSim:
        now = self.sim.tick(5, 3600)
        title = f"Fork: {content.thread_title(self.sim.rng)}"[:80]
        child = self._child(title, Actor.USER, ThreadRelationship.FORK, at.ordinal, now)
        transfer = self._transfer(
            TransferType.FORK,
            self,
            child,
            self._point(at, at_checkpoint),
            Actor.USER,
            source_provider=at.provider,
        )
        self.event("thread.forked", at.id, childThreadId=child.rec.id, transferId=transfer.id)
        self.rec.version += 1
        child.adopt(self, transfer)
        self.sim.receipt("forkThread", {"id": child.rec.id})
        return child

    def spawn(self, during: RunRecord, provider: str, native: bool) -> ThreadSim:
        """A subagent spawned (or recorded natively) while `during` is in progress."""
        rng = self.sim.rng
        now = self.sim.tick(1, 60)
        task = content.subagent_task(rng)
        latest = self.last_completed
        assert latest is not None, "spawn only after a completed run"
        title = f"Profile {content.thread_title(rng)}" if native else task
        child = self._child(
            " ".join(title.split())[:80],
            Actor.AGENT,
            ThreadRelationship.SUBAGENT,
            latest.ordinal,
            now,
        )
        extra: dict[str, Any] = {}
        if native:
            pt = child._provider_thread(
                provider,
                ProviderThreadStatus.ACTIVE,
                None,
                now,
                native_ref=f"{provider}-subagent-{rng.getrandbits(32):08x}",
            )
            child.rec.provider_threads.append(pt)
            child.pts[pt.id] = child.latest[provider] = _PtState(pt)
            extra = {
                "status": TransferStatus.RESOLVED_NATIVE,
                "resolution_strategy": ResolutionStrategy.NATIVE_FORK,
                "resolved_provider_thread_id": pt.id,
            }
        transfer = self._transfer(
            TransferType.SUBAGENT_SPAWN,
            self,
            child,
            self._point(latest, False),
            Actor.AGENT,
            source_provider=during.provider,
            target_provider=provider,
            spawned_by_run_id=during.id,
            payload=None if native else task,
            **extra,
        )
        if native:
            self.event(
                "subagent.recorded",
                during.id,
                childThreadId=child.rec.id,
                transferId=transfer.id,
                nativeRef=child.rec.provider_threads[0].native_ref,
            )
        else:
            self.event(
                "subagent.spawned", during.id, childThreadId=child.rec.id, transferId=transfer.id
            )
        self.rec.version += 1
        child.adopt(self, transfer)
        self.sim.receipt(
            "recordNativeSubagent" if native else "spawnSubagent", {"id": child.rec.id}
        )
        return child

    def _child(
        self,
        title: str,
        actor: Actor,
        relationship: ThreadRelationship,
        ordinal: int,
        now: datetime,
    ) -> ThreadSim:
        """A fork or subagent of this thread, made from its run `ordinal`."""
        return self.sim.new_thread(
            ThreadRecord(
                id=self.sim.id("thr"),
                title=title,
                created_by=actor,
                created_at=now,
                root_id=self.rec.root_id,
                parent_id=self.rec.id,
                relationship=relationship,
                source_run_ordinal=ordinal,
                depth=self.rec.depth + 1,
            )
        )

    def _provider_thread(
        self,
        provider: str,
        status: ProviderThreadStatus,
        model: str | None,
        now: datetime,
        native_ref: str | None = None,
        forked_from_id: str | None = None,
    ) -> ProviderThreadRecord:
        """A provider thread of this thread made `now` (its history mode not yet reported)."""
        return ProviderThreadRecord(
            id=self.sim.id("pth"),
            thread_id=self.rec.id,
            provider=provider,
            status=status,
            model=model,
            history_mode=HistoryMode.UNKNOWN,
            created_at=now,
            last_used_at=now,
            native_ref=native_ref,
            forked_from_id=forked_from_id,
        )

    def adopt(self, parent: ThreadSim, transfer: TransferRecord) -> None:
        """This thread was just opened by `transfer` from `parent`."""
        self.parent = parent
        self.links = [*parent.links, (transfer, parent)]
        self.origin = transfer if transfer.status is TransferStatus.PENDING else None
        self.event(
            "thread.created",
            None,
            parentId=parent.rec.id,
            relationship=transfer.type,
            transferId=transfer.id,
        )
        self.event(
            "transfer.created",
            None,
            transferId=transfer.id,
            type=transfer.type,
            status=transfer.status,
        )

    def deliver_to_parent(self, kind: TransferType) -> None:
        """completeSubagent or mergeBack: a transfer waiting for the parent's next run."""
        parent = self.parent
        assert parent is not None
        self.sim.tick(1, 120)
        latest = self.last_completed
        assert latest is not None, "deliver only after a completed run"
        origin = self.links[-1][0]
        if kind is TransferType.SUBAGENT_RESULT:
            transfer = self._transfer(
                kind,
                self,
                parent,
                self._point(latest, False),
                Actor.AGENT,
                source_provider=latest.provider,
                payload=content.subagent_result(self.sim.rng),
            )
        else:
            transfer = self._transfer(
                kind,
                self,
                parent,
                self._point(latest, False),
                Actor.USER,
                base_point=origin.source_point,
                source_provider=latest.provider,
            )
        for thread in (parent, self):
            thread.event(
                "transfer.created",
                None,
                transferId=transfer.id,
                type=kind,
                sourceThreadId=self.rec.id,
                targetThreadId=parent.rec.id,
            )
            thread.rec.version += 1
        parent.deliveries.append((transfer, self))
        mutation = "completeSubagent" if kind is TransferType.SUBAGENT_RESULT else "mergeBack"
        self.sim.receipt(mutation, {"id": transfer.id})

    # ---- helpers ---------------------------------------------------------------

    def event(self, kind: str, run_id: str | None, **payload: Any) -> None:
        self.rec.events.append(
            EventRecord(
                id=self.sim.id("evt"), type=kind, at=self.sim.now, run_id=run_id, payload=payload
            )
        )

    def ordinals_in(self, low: int, high: int) -> list[int]:
        return self.ordinals[
            bisect.bisect_left(self.ordinals, low) : bisect.bisect_right(self.ordinals, high)
        ]

    def completed(self) -> list[RunRecord]:
        return [r for r in self.history if r.status is RunStatus.COMPLETED]

    def _pick(self, provider: str) -> _PtState | None:
        state = self.latest.get(provider)
        if state is None:
            return None
        pt = state.record
        if not staleness.reusable(model.provider_thread_node(pt)):
            return None
        # The two signals a generated thread can raise, counted incrementally: the
        # product's `staleness.signals` reads the thread's whole state on every start.
        signals: list[StalenessSignal] = []
        if len(self.ordinals) - bisect.bisect_right(self.ordinals, state.last_native) > (
            MAX_OFF_PROVIDER_RUNS
        ):
            signals.append(StalenessSignal.TOO_MANY_OFF_PROVIDER_RUNS)
        if state.ready_received >= MAX_CHAINED_HANDOFFS:
            signals.append(StalenessSignal.TOO_MANY_CHAINED_HANDOFFS)
        if signals:
            pt.status = ProviderThreadStatus.STALE
            pt.stale_signals = signals
            return None
        return state

    def _native_fork(self, origin: TransferRecord, provider: str) -> bool:
        """Whether a fork's first run forks natively, as the product decides it."""
        source = self.links[-1][1]
        plan = transfers.native_fork(
            model.transfer_node(origin), REGISTRY.get(provider), source.state()
        )
        return isinstance(plan, NativeForkPlan)

    def _own(self, rung: StartStrategy, runs: list[RunRecord], exclude: str | None = None) -> _Plan:
        """The handoff of this thread's `runs` a rung of the ladder sends, as the product's
        ladder plans it (`resolvers.start.decision.RUNGS`)."""
        strategy, kind, _ = RUNGS[rung]
        return _Plan(
            strategy=strategy,
            kind=kind,
            source=self,
            runs=list(runs),
            title=f"# Context handoff: {_named(runs)} of this thread",
            exclude_pt=exclude,
        )

    def _inherited(self) -> list[_Plan]:
        plans: list[_Plan] = []
        for transfer, source in self.links:
            point = transfer.source_point
            upto = point["runOrdinal"]
            runs = (
                [] if upto is None else source.history[: bisect.bisect_right(source.ordinals, upto)]
            )
            label = "forked from" if transfer.type is TransferType.FORK else "spawned by"
            title = f"# Context inherited: this thread was {label} thread {source.rec.id}"
            if runs:
                title += f" ({_named(runs)})"
            plans.append(
                _Plan(
                    strategy=HandoffStrategy.CHECKPOINT_SUMMARY
                    if point["atCheckpoint"]
                    else HandoffStrategy.FULL_THREAD_SUMMARY,
                    kind=HandoffKind.PORTABLE_CONTEXT,
                    source=source,
                    runs=runs,
                    title=title,
                    transfer_id=transfer.id,
                    task=transfer.payload if transfer.type is TransferType.SUBAGENT_SPAWN else None,
                )
            )
        return plans

    def _delivery(self, transfer: TransferRecord, source: ThreadSim) -> _Plan:
        upto = transfer.source_point["runOrdinal"]
        runs = source.history[: bisect.bisect_right(source.ordinals, upto)]
        # Else a subagent's result, which carries its text.
        merged = transfer.type is TransferType.MERGE_BACK
        return _Plan(
            strategy=HandoffStrategy.DELTA_SINCE_TARGET_LAST_SEEN
            if merged
            else HandoffStrategy.MANUAL_CONTEXT,
            kind=HandoffKind.DELTA_CONTEXT,
            source=source,
            runs=runs,
            title=f"# Merged back from fork {source.rec.id}"
            if merged
            else f"# Subagent result from thread {source.rec.id}",
            transfer_id=transfer.id,
            result=None if merged else transfer.payload,
        )

    def digest(self, run: RunRecord) -> RunDigest:
        found = self.digests.get(run.id)
        if found is None:
            found = self.digests[run.id] = model.digest(run)
        return found

    def _handoff(self, plan: _Plan, to_pt: str, run_id: str, now: datetime) -> HandoffRecord:
        sources: list[str] = []
        for run in plan.runs:
            if run.provider_thread_id != plan.exclude_pt and run.provider_thread_id not in sources:
                sources.append(run.provider_thread_id)
        text, sections = summary(plan.title, plan.runs, plan.task, plan.result)
        target = self.pts[to_pt].record
        # No generated native thread reports its usage, so each start's budget is the
        # one the service gives a native thread that never reported: the window less what
        # it was sent.
        budget = context_budget(
            REGISTRY.get(target.provider), target.model, None, target.held_tokens, ContextPolicy()
        )
        quality = assess(text, [plan.source.digest(run) for run in plan.runs])
        handoff = HandoffRecord(
            id=self.sim.id("hnd"),
            thread_id=self.rec.id,
            source_thread_id=plan.source.rec.id,
            to_provider_thread_id=to_pt,
            from_provider_thread_ids=sources,
            covered_from=plan.runs[0].ordinal if plan.runs else 0,
            covered_to=plan.runs[-1].ordinal if plan.runs else 0,
            covered_run_ids=[run.id for run in plan.runs],
            strategy=plan.strategy,
            kind=plan.kind,
            summary_text=text,
            sections=sections,
            status=HandoffStatus.READY,
            created_at=now,
            updated_at=now,
            transfer_id=plan.transfer_id,
            target_run_id=run_id,
            budget=budget.model_dump(mode="json"),
            quality=quality.model_dump(mode="json"),
        )
        target.held_tokens += tokenizer.count(text)
        self.rec.handoffs.append(handoff)
        return handoff

    def _point(self, run: RunRecord, at_checkpoint: bool) -> dict[str, Any]:
        pt = self.pts[run.provider_thread_id].record
        return {
            "atCheckpoint": at_checkpoint,
            "checkpointId": run.checkpoint.id if run.checkpoint else None,
            "providerThreadId": pt.id,
            "providerThreadRef": pt.native_ref,
            "providerTurnRef": run.native_turn_ref,
            "runId": run.id,
            "runOrdinal": run.ordinal,
            "threadId": self.rec.id,
            "turnItemId": None,
        }

    def _transfer(
        self,
        kind: TransferType,
        source: ThreadSim,
        target: ThreadSim,
        point: dict[str, Any],
        actor: Actor,
        **fields: Any,
    ) -> TransferRecord:
        assert self.sim.family is not None
        values: dict[str, Any] = {"status": TransferStatus.PENDING, **fields}
        transfer = TransferRecord(
            id=self.sim.id("xfr"),
            type=kind,
            source_thread_id=source.rec.id,
            target_thread_id=target.rec.id,
            source_point=point,
            created_by=actor,
            created_at=self.sim.now,
            **values,
        )
        self.sim.family.transfers.append(transfer)
        return transfer


# ---- summaries ---------------------------------------------------------------


def summary(
    title: str, runs: list[RunRecord], task: str | None, result: str | None
) -> tuple[str, list[dict[str, Any]]]:
    """A handoff text of the size the deterministic summarizer would write, cheaply.

    Goals (one line per covered run) and decisions, fitted to the providers' budget the
    way the summarizer does: trailing lines give way, with a "(N more not shown)" line.
    """
    sections: list[dict[str, Any]] = []
    if task:
        sections.append({"title": "Task", "lines": [task]})
    if result is not None:
        sections.append({"title": "Subagent results", "lines": [result]})
    else:
        goals = [f"Run {r.ordinal} asked: {_shorten(r.input, INPUT_LIMIT)}" for r in runs]
        decisions = [i["text"] for r in runs for i in r.items if i["kind"] == RunItemKind.DECISION]
        failures = [f"Run {r.ordinal} failed: {r.failure_reason}" for r in runs if r.failure_reason]
        budget = MAX_HANDOFF_CHARS - len(title) - 200
        for name, lines in (
            ("Goals and constraints", goals),
            ("Decisions", decisions),
            ("Known failures", failures),
        ):
            kept: list[str] = []
            for line in lines:
                if budget - len(line) - 3 < 0:
                    kept.append(f"({len(lines) - len(kept)} more not shown)")
                    break
                budget -= len(line) + 3
                kept.append(line)
            if kept:
                sections.append({"title": name, "lines": kept})
    parts = [title]
    for section in sections:
        body = "\n".join(f"- {line}" for line in section["lines"])
        parts.append(f"## {section['title']}\n{body}")
    return "\n\n".join(parts) + "\n", sections


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _named(runs: list[RunRecord]) -> str:
    return runs_named(Ranges.of(run.ordinal for run in runs))


def _json(value: dict[str, Any]) -> str:
    import json

    return json.dumps(value, sort_keys=True)


# ---- families ----------------------------------------------------------------


def runs_per_thread(rng: random.Random, shape: Shape, cap: int | None = None) -> int:
    """Capped Pareto: most threads are short, a few reach the cap."""
    draw = shape.pareto_min * (1.0 - rng.random()) ** (-1.0 / shape.pareto_alpha)
    return max(1, min(cap or shape.max_runs, int(draw)))


def family(index: int, seed: int, shape: Shape, salt: str = "") -> Family:
    """Family `index` of the data set drawn with `seed`: the same at every scale.

    `salt` (the workspace) changes only the ids, which must be unique across the database.
    """
    rng = random.Random(f"{seed}:{index}")
    sim = Sim(rng, shape, random.Random(f"{seed}:{index}:{salt}:ids"))
    deep = rng.random() < shape.deep_chain_share
    root = _root(sim)
    if deep:
        _chain(root, rng.randrange(5, shape.max_depth + 1), runs=lambda: rng.randrange(2, 8))
    else:
        _live(root, runs_per_thread(rng, shape))
    return _done(sim)


def probe_family(
    seed: int, shape: Shape, salt: str = "", depth: int = 20, root_runs: int = 50
) -> Family:
    """The fixed family the lineage and coverage probes read at every scale.

    A root with `root_runs` runs switching provider every 10 runs, a fork chain of
    `depth` below it (3 runs each), and on every chain thread one subagent whose result
    the thread's third run consumes.
    """
    rng = random.Random(f"{seed}:probe")
    sim = Sim(rng, Shape(failure_per_run=0.0), random.Random(f"{seed}:probe:{salt}:ids"))
    root = _root(sim, title="Bench probe family")
    for n in range(root_runs):
        root.cycle(PROVIDERS[(n // 10) % 2])
    _chain(root, depth, runs=lambda: 3, subagents=True)
    return _done(sim)


def families(start: int, threads: int, seed: int, shape: Shape, salt: str = "") -> Iterator[Family]:
    """Families `start`, `start + 1`, ... until they hold at least `threads` threads."""
    made = 0
    index = start
    while made < threads:
        drawn = family(index, seed, shape, salt)
        made += len(drawn.threads)
        index += 1
        yield drawn


def _root(sim: Sim, title: str | None = None) -> ThreadSim:
    family = Family(root_id=sim.id("thr"))
    sim.family = family
    now = sim.tick(0, 1)
    root = sim.new_thread(
        ThreadRecord(
            id=family.root_id,
            title=title or content.thread_title(sim.rng),
            created_by=Actor.USER,
            created_at=now,
            root_id=family.root_id,
        )
    )
    root.event("thread.created", None, title=root.rec.title)
    sim.receipt("createThread", {"id": root.rec.id})
    return root


def _done(sim: Sim) -> Family:
    assert sim.family is not None
    return sim.family


def _live(thread: ThreadSim, runs: int, level: int = 0) -> None:
    """Runs with provider segments, spawns and maybe a rollback; then forks."""
    rng, shape = thread.sim.rng, thread.sim.shape
    switching = rng.random() < shape.switching_share
    provider = rng.choice(PROVIDERS)
    left_on_provider = _segment(rng, shape)
    rollback_at = (
        rng.randrange(3, runs) if runs >= 4 and rng.random() < shape.rollback_chance else 0
    )
    for n in range(1, runs + 1):
        if switching and left_on_provider == 0:
            provider = PROVIDERS[1 - PROVIDERS.index(provider)]
            left_on_provider = _segment(rng, shape)
        left_on_provider -= 1
        if thread.last_completed and rng.random() < shape.spawn_per_run:
            _with_subagent(thread, provider)
        else:
            thread.cycle(provider)
        if n == rollback_at:
            thread.rollback(max(0, thread.rec.last_ordinal - rng.randrange(1, 4)))
    chance = shape.fork_chance * shape.fork_decay**level
    while thread.last_completed and rng.random() < chance:
        chance = shape.more_forks * shape.fork_decay**level
        at = rng.choice(thread.completed())
        fork = thread.fork(
            at, at.checkpoint is not None and rng.random() < shape.checkpoint_fork_share
        )
        _live(fork, runs_per_thread(rng, shape), level + 1)
        if fork.last_completed and rng.random() < shape.merge_back_chance:
            fork.deliver_to_parent(TransferType.MERGE_BACK)
            if rng.random() < 0.5:
                thread.cycle(provider)  # the parent's next run takes the merge-back in


def _with_subagent(thread: ThreadSim, provider: str) -> None:
    """One parent run during which a subagent runs and reports back."""
    rng, shape = thread.sim.rng, thread.sim.shape
    run = thread.start(provider)
    state = thread.pts[run.provider_thread_id]
    if state.record.native_ref is None:
        thread.attach(state)
    native = rng.random() < shape.native_spawn_share
    child_provider = rng.choice(PROVIDERS)
    child = thread.spawn(run, child_provider, native)
    for _ in range(rng.randrange(1, shape.subagent_max_runs + 1)):
        child.cycle(child_provider)
    if child.last_completed:
        child.deliver_to_parent(TransferType.SUBAGENT_RESULT)
    thread.complete(run)


def _chain(root: ThreadSim, depth: int, runs: Callable[[], int], subagents: bool = False) -> None:
    """A fork chain `depth` deep below `root`, each fork taken at its parent's last run."""
    parent = root
    while parent.last_completed is None:
        parent.cycle(PROVIDERS[0])
    for _ in range(depth):
        fork = parent.fork(parent.last_completed, False)
        for n in range(runs()):
            # The first run forks on the parent's provider; the last one switches.
            provider = PROVIDERS[(fork.rec.depth + (1 if n >= 2 else 0)) % 2]
            if subagents and n == 1:
                _with_subagent_fixed(fork, provider)
            else:
                fork.cycle(provider)
        while fork.last_completed is None:
            fork.cycle(PROVIDERS[0])
        parent = fork


def _with_subagent_fixed(thread: ThreadSim, provider: str) -> None:
    run = thread.start(provider)
    state = thread.pts[run.provider_thread_id]
    if state.record.native_ref is None:
        thread.attach(state)
    child = thread.spawn(run, provider, native=False)
    for _ in range(2):
        child.cycle(provider)
    child.deliver_to_parent(TransferType.SUBAGENT_RESULT)
    thread.complete(run)


def _segment(rng: random.Random, shape: Shape) -> int:
    return 1 + int(rng.expovariate(1.0 / max(shape.mean_segment - 1, 0.1)))
