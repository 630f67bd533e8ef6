"""Planned handoffs: what a decision wants built, before the store gives it an id."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from graph.models import HandoffKind, HandoffNode, HandoffStatus, HandoffStrategy, RunDigest
from graph.ranges import Ranges
from resolvers.content import Clock, no_clock
from resolvers.handoffs.fields import TextFields
from resolvers.handoffs.requests import SummaryMaterial
from resolvers.handoffs.summarizer import Summary
from resolvers.providers import ProviderCapabilities


class PlannedHandoff(BaseModel):
    """A handoff the decision wants built; the store gives it an id and links."""

    model_config = ConfigDict(frozen=True)

    strategy: HandoffStrategy
    kind: HandoffKind
    sourceThreadId: str
    coveredFrom: int
    coveredTo: int
    fromProviderThreadIds: list[str]
    summary: Summary
    transferId: str | None = None
    generationMs: float = 0.0  # how long the local summary took
    # The tokens of its start's budget this handoff may fill (the provider's cap until a
    # budget is applied): what the local summary was fitted to and another writer is given.
    allowedTokens: int | None = None
    # What the summary was made from, for another summarizer to read. Not kept in a
    # command's receipt: the requests a start makes carry it where it is needed.
    material: SummaryMaterial | None = Field(default=None, exclude=True)
    # A prepared handoff the start injects as it is (prepareHandoff): its id; the start
    # links that handoff instead of writing a new one.
    preparedId: str | None = None

    @property
    def covered(self) -> Ranges:
        return Ranges.span(self.coveredFrom, self.coveredTo)

    def to_node(
        self, ident: str, thread_id: str, to_provider_thread_id: str | None, at: datetime
    ) -> HandoffNode:
        """The ready handoff node this plan becomes once it has an id and a target (None:
        prepared, it gets its target when a start injects it)."""
        runs = self.material.runs if self.material is not None else []
        return HandoffNode(
            id=ident,
            threadId=thread_id,
            sourceThreadId=self.sourceThreadId,
            transferId=self.transferId,
            toProviderThreadId=to_provider_thread_id,
            fromProviderThreadIds=self.fromProviderThreadIds,
            coveredFrom=self.coveredFrom,
            coveredTo=self.coveredTo,
            strategy=self.strategy,
            kind=self.kind,
            status=HandoffStatus.READY,
            createdAt=at,
            updatedAt=at,
            generationMs=self.generationMs,
            **TextFields.of_summary(self.summary, runs).fields,
        )


class NativeForkPlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    sourceProviderThreadId: str
    sourceProviderThreadRef: str
    lastTurnId: str | None
    rollbackTurns: int


def plan_handoff(
    thread_id: str,
    runs: Sequence[RunDigest],
    provider: ProviderCapabilities,
    strategy: HandoffStrategy,
    kind: HandoffKind,
    *,
    exclude_pt: str | None = None,
    title: str | None = None,
    transfer_id: str | None = None,
    subagent_results: Sequence[str] = (),
    task: str | None = None,
    results_only: bool = False,
    clock: Clock = no_clock,
) -> PlannedHandoff:
    """A handoff summarising `runs` (history) for `provider`, by the local summarizer.

    Without runs (a spawn from a parent with no completed run) the range is 0-0
    and the text carries only the task or results.
    """
    ordered = sorted(runs, key=lambda run: run.ordinal)
    sources: list[str] = []
    for run in ordered:
        if (
            run.providerThreadId
            and run.providerThreadId != exclude_pt
            and run.providerThreadId not in sources
        ):
            sources.append(run.providerThreadId)
    heading = title or own_heading(ordered)
    material = SummaryMaterial(
        title=heading,
        runs=[] if results_only else ordered,
        task=task,
        subagentResults=list(subagent_results),
    )
    began = clock()
    summary = material.local(provider.max_handoff_tokens)
    took = round((clock() - began) * 1000, 3)
    return PlannedHandoff(
        strategy=strategy,
        kind=kind,
        sourceThreadId=thread_id,
        coveredFrom=ordered[0].ordinal if ordered else 0,
        coveredTo=ordered[-1].ordinal if ordered else 0,
        fromProviderThreadIds=sources,
        summary=summary,
        transferId=transfer_id,
        generationMs=took,
        material=material,
    )


def own_heading(runs: Sequence[RunDigest]) -> str:
    """The title of a handoff of a thread's own runs."""
    return f"# Context handoff: {runs_named(runs)} of this thread"


def runs_named(runs: Sequence[RunDigest] | Ranges) -> str:
    """ "run 3" or "runs 3-7" (the first and last ordinal of `runs`), or "no runs"."""
    ordinals = runs if isinstance(runs, Ranges) else Ranges.of(run.ordinal for run in runs)
    first, last = ordinals.first, ordinals.last
    if first is None or last is None:
        return "no runs"
    return f"run {first}" if first == last else f"runs {first}-{last}"
