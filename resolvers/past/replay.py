"""explainStartContext as of a past instant (docs/MODEL.md "Lineage through time"): the
start decision replayed on the thread as it stood just before, set beside the decision a
run actually recorded at that instant. Where the two differ, the record wins and the
answer says so: the record is what happened; the replay is what today's rules and
settings make of the same state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pydantic import ValidationError

from graph.events import RunRestarted, RunStarted, payload_of
from graph.models import (
    ContextBudget,
    EventNode,
    HandoffNode,
    HandoffStrategy,
    ProviderAction,
    RunNode,
    StalenessSignal,
    StartStrategy,
)
from graph.thread_state import ThreadState
from resolvers.coverage import handoff_ranges
from resolvers.past.as_of import Past
from resolvers.start.decision import StartDecision


@dataclass(frozen=True)
class Recorded:
    """The decision a start (or restart) wrote at the instant, read back from its run."""

    run: RunNode
    strategy: StartStrategy
    providerAction: ProviderAction | None  # None: kept by neither the event nor the run
    providerThreadId: str | None  # None: the start created it
    handoffs: list[HandoffNode]


@dataclass(frozen=True)
class Explained:
    """What explainStartContext answers."""

    strategy: StartStrategy
    providerAction: ProviderAction
    providerThreadId: str | None  # None: a new one would be created
    handoffStrategies: list[HandoffStrategy]
    covered: list[int]
    tokenEstimate: int
    stalenessSignals: list[StalenessSignal]
    explanation: list[str]
    budget: ContextBudget | None = None
    omittedCount: int = 0  # items of the covered runs its handoffs' texts leave out
    # The text the start would inject, its handoffs' texts in injection order; None: none.
    contextText: str | None = None
    recordedRun: RunNode | None = None
    differsFromRecord: bool = False
    preparedHandoffId: str | None = None  # the prepared handoff it injects as it is


def recorded(event: EventNode, then: Past) -> Recorded | None:
    """The decision `event` (a run.started or run.restarted) recorded, from the thread as it
    stood once that command had committed."""
    run = next((r for r in then.runs if r.id == event.runId), None)
    try:
        said = payload_of(event.type, event.payload)
    except (ValueError, ValidationError):  # not a start's event, or not one we can read
        return None
    if run is None or not isinstance(said, RunStarted | RunRestarted):
        return None
    pt = next((p for p in then.state.providerThreads if p.id == run.providerThreadId), None)
    return Recorded(
        run=run,
        strategy=said.strategy,
        # A restart recorded before its event kept the action has it on the run.
        providerAction=said.providerAction or run.providerAction,
        providerThreadId=None if pt is None or pt.createdAt == event.at else pt.id,
        # Made by the start, or prepared before it and injected by it (not by a restart).
        handoffs=[
            h
            for h in then.handoffs
            if h.targetRunId == run.id
            and (h.createdAt == event.at or (h.preparedFor and isinstance(said, RunStarted)))
        ],
    )


def explained(
    decision: StartDecision, state: ThreadState, record: Recorded | None = None
) -> Explained:
    """The replayed decision, or the record where they differ (saying so)."""
    pt = decision.providerThread
    replay = Explained(
        strategy=decision.strategy,
        providerAction=decision.providerAction,
        providerThreadId=pt.id if pt else None,
        handoffStrategies=[h.strategy for h in decision.handoffs],
        covered=decision.covered_ordinals(state),
        tokenEstimate=decision.token_estimate,
        stalenessSignals=decision.stalenessSignals,
        explanation=decision.explanation,
        budget=decision.budget,
        omittedCount=sum(len(h.summary.omitted) for h in decision.handoffs),
        preparedHandoffId=decision.preparedHandoffId,
        contextText=decision.context_text,
    )
    if record is None:
        return replay
    kept = Explained(
        strategy=record.strategy,
        providerAction=record.providerAction or replay.providerAction,
        providerThreadId=record.providerThreadId,
        handoffStrategies=[h.strategy for h in record.handoffs],
        covered=list(handoff_ranges(state.thread.id, record.handoffs) & state.history),
        tokenEstimate=sum(h.tokenEstimate for h in record.handoffs),
        stalenessSignals=replay.stalenessSignals,
        explanation=replay.explanation,
        budget=replay.budget,
        omittedCount=replay.omittedCount,
        contextText="\n".join(h.summaryText for h in record.handoffs) or None,
        recordedRun=record.run,
        preparedHandoffId=next((h.id for h in record.handoffs if h.preparedFor), None),
    )
    if _decided(kept) == _decided(replay):
        note = f"Run {record.run.ordinal} recorded this same decision at this instant."
        return _with(replay, note, record.run, differs=False)
    note = (
        f"Run {record.run.ordinal} recorded {record.strategy} at this instant, where the "
        f"replay gives {replay.strategy} ({replay.providerAction}, "
        f"{replay.tokenEstimate} tokens): the run's record is answered."
    )
    return _with(kept, note, record.run, differs=True)


def _decided(answer: Explained) -> tuple[object, ...]:
    return (
        answer.strategy,
        answer.providerAction,
        answer.providerThreadId,
        answer.handoffStrategies,
        answer.covered,
        answer.tokenEstimate,
    )


def _with(answer: Explained, note: str, run: RunNode, *, differs: bool) -> Explained:
    return replace(
        answer,
        explanation=[*answer.explanation, note],
        recordedRun=run,
        differsFromRecord=differs,
    )
