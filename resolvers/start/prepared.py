"""Which prepared handoff a start injects, and which it supersedes (docs/MODEL.md
"Prepared handoffs").

`prepareHandoff` writes the handoff of a thread's own runs that the next start on a
provider would inject, so a person can read and replace it first. That start injects it
as it is when its plan covers exactly the same runs, the same way (strategy and kind),
into the same provider thread (or, both, a new one), and it still fits the start's
budget; else the plan has moved (new runs, a rollback, another provider started first, a
provider thread retired), and the start supersedes it and builds a fresh one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.models import (
    ContextBudget,
    HandoffNode,
    ProviderThreadNode,
    SummarySource,
)
from graph.thread_state import ThreadState
from resolvers.handoffs.budget import fits
from resolvers.handoffs.planning import PlannedHandoff, runs_named
from resolvers.handoffs.summarizer import Summary

WRITERS = {SummarySource.PERSON: "a person", SummarySource.LOCAL: "the local summarizer"}


@dataclass(frozen=True)
class Choice:
    """The start's handoffs once a prepared one is weighed: `used` was put in place of the
    thread's own handoff, or `superseded` gives way to the fresh one, for `reason`."""

    handoffs: list[PlannedHandoff]
    used: HandoffNode | None = None
    superseded: HandoffNode | None = None
    reason: str | None = None

    @property
    def said(self) -> str | None:
        """The explanation line this choice adds, if any."""
        if self.used is not None:
            source = self.used.summarySource
            who = WRITERS.get(source) or self.used.createdByProvider or source.value
            return (
                f"Inject the prepared handoff {self.used.id} (written by {who}) instead of "
                "building one: it covers exactly the runs this start transfers."
            )
        if self.superseded is not None:
            return (
                f"The prepared handoff {self.superseded.id} is superseded and a fresh one "
                f"built: {self.reason}."
            )
        return None


def latest(state: ThreadState, provider: str) -> HandoffNode | None:
    """The latest handoff prepared for the thread's next start on `provider`."""
    waiting = [h for h in state.prepared if h.preparedFor == provider]
    return max(waiting, key=lambda h: (h.createdAt, h.id), default=None)


def own_index(handoffs: Sequence[PlannedHandoff], thread_id: str) -> int | None:
    """Where the handoff of the thread's own runs stands among a start's handoffs (an
    inherited context covers an ancestor's runs; a merge-back or result has a transfer)."""
    return next(
        (
            n
            for n, h in enumerate(handoffs)
            if h.sourceThreadId == thread_id and h.transferId is None and h.coveredTo > 0
        ),
        None,
    )


def choose(
    state: ThreadState,
    provider: str,
    handoffs: Sequence[PlannedHandoff],
    into: ProviderThreadNode | None,
    budget: ContextBudget,
) -> Choice:
    """The start's `handoffs` with the prepared one for `provider` in place of the thread's
    own, when the plan has not moved; `into`: the provider thread the start resumes (None:
    it creates one)."""
    found = latest(state, provider)
    if found is None:
        return Choice(list(handoffs))
    index = own_index(handoffs, state.thread.id)
    reason = moved(found, handoffs[index] if index is not None else None, into)
    if reason is None and index is not None:
        swapped = list(handoffs)
        swapped[index] = as_planned(found)
        if fits(swapped, budget):
            return Choice(swapped, used=found)
        reason = "it no longer fits this start's context budget"
    return Choice(list(handoffs), superseded=found, reason=reason)


def moved(
    prepared: HandoffNode, own: PlannedHandoff | None, into: ProviderThreadNode | None
) -> str | None:
    """Why the start's plan is no longer the one `prepared` was written for; None: it is."""
    was = f"runs {prepared.coveredFrom}-{prepared.coveredTo}"
    if own is None:
        return f"it covered {was}, and this start transfers none of the thread's own runs"
    if (own.coveredFrom, own.coveredTo) != (prepared.coveredFrom, prepared.coveredTo):
        return f"it covered {was}, and this start must transfer {runs_named(own.covered)}"
    if (own.strategy, own.kind) != (prepared.strategy, prepared.kind):
        return (
            f"it was a {prepared.strategy.value} handoff, and this start needs {own.strategy.value}"
        )
    target = into.id if into is not None else None
    if target != prepared.preparedInto:
        where = f"provider thread {target}" if target else "a new provider thread"
        return f"it was written for another provider thread; this start goes into {where}"
    return None


def as_planned(prepared: HandoffNode) -> PlannedHandoff:
    """A prepared handoff as a start plans it: its text fixed, so its least tokens are all
    of them (nothing of it is shortened to fit)."""
    summary = Summary(
        text=prepared.summaryText,
        sections=prepared.sections,
        entries=prepared.entries,
        tokenEstimate=prepared.tokenEstimate,
        omitted=prepared.omitted,
        fidelity=prepared.qualityFidelity if prepared.qualityFidelity is not None else 1.0,
        leastTokens=prepared.tokenEstimate,
    )
    return PlannedHandoff(
        strategy=prepared.strategy,
        kind=prepared.kind,
        sourceThreadId=prepared.sourceThreadId,
        coveredFrom=prepared.coveredFrom,
        coveredTo=prepared.coveredTo,
        fromProviderThreadIds=prepared.fromProviderThreadIds,
        summary=summary,
        generationMs=prepared.generationMs or 0.0,
        preparedId=prepared.id,
    )
