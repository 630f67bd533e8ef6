"""GraphQL types of the values the graph's nodes hold or are computed from them: budgets,
items, a handoff's omitted items, entries and quality, usage, divergence, coverage.
They have no identity of their own (the nodes are in api/graphql/nodes.py)."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from api.graphql.enums import ContextWindowSource, RunItemKind
from api.graphql.from_models import from_model
from api.graphql.pagination import PageInfo
from graph import models
from resolvers.coverage import Coverage
from resolvers.lineage.divergence import Divergence


@strawberry.type
class ContextBudget:
    window_tokens: int
    window_source: ContextWindowSource
    used_tokens: int = strawberry.field(
        description="What the target native thread already holds; 0 for a new one."
    )
    reserve_tokens: int = strawberry.field(description="Kept free for the model's own work.")
    cap_tokens: int = strawberry.field(
        description="The provider's cap on one handoff (maxHandoffTokens)."
    )
    budget_tokens: int = strawberry.field(
        description="max(0, min(capTokens, windowTokens - usedTokens - reserveTokens))"
    )

    @classmethod
    def of(cls, budget: models.ContextBudget | None) -> ContextBudget | None:
        return from_model(cls, budget) if budget is not None else None


@strawberry.type(description="An item of a thread's active runs, as the pull path answers it.")
class ThreadItem:
    run_id: strawberry.ID
    run_ordinal: int
    index: int = strawberry.field(
        description="Its position in its run, 0-based; -1 is the run's input (kind "
        "USER_GOAL), before the items the run reported."
    )
    kind: RunItemKind
    text: str
    key: str | None
    path: str | None
    attributes: JSON | None


@strawberry.type
class ThreadItemEdge:
    cursor: str
    node: ThreadItem


@strawberry.type
class ThreadItemConnection:
    edges: list[ThreadItemEdge]
    page_info: PageInfo


@strawberry.type(description="An item of the covered runs a handoff's text leaves out.")
class OmittedItem:
    run_ordinal: int
    index: int = strawberry.field(
        description="Its position in its run, 0-based; -1: the run's input (Run.input)."
    )
    kind: RunItemKind
    key: str | None
    path: str | None
    token_estimate: int = strawberry.field(
        description="What showing it whole would cost (its line, in tokens)."
    )
    cut: bool = strawberry.field(
        description="True: a shortened form is in the text; false: not shown at all."
    )


@strawberry.type(description="One line of a handoff's text and the item it shows.")
class HandoffEntry:
    section: str = strawberry.field(description="The heading it stands under.")
    text: str = strawberry.field(
        description="Exactly as in summaryText (an item whose text holds line breaks is one "
        "entry); the entries' texts joined by line breaks are summaryText."
    )
    run_ordinal: int | None = strawberry.field(description="Null for a line about no item.")
    index: int | None = strawberry.field(
        description="The item's index in its run; -1 for the run's input."
    )
    kind: RunItemKind | None
    cut: bool = strawberry.field(description="Shown shortened (then it is in omitted too).")


@strawberry.type
class QualityFacet:
    kind: RunItemKind
    kept: int
    total: int
    missing: list[str] = strawberry.field(
        description="The key, path or first words of each item not found in the text."
    )


@strawberry.type
class HandoffQuality:
    score: float = strawberry.field(
        description="kept / total over every facet; 1.0 when nothing must be kept."
    )
    facets: list[QualityFacet]
    fidelity: float = strawberry.field(
        description="The share, by tokens, of the covered material the text shows whole."
    )

    @classmethod
    def of(cls, quality: models.HandoffQuality, fidelity: float) -> HandoffQuality:
        facets = [from_model(QualityFacet, facet) for facet in quality.facets]
        return cls(score=quality.score, facets=facets, fidelity=fidelity)


@strawberry.type
class ContextUsage:
    context_tokens: int = strawberry.field(
        description="Tokens in the native context after the last turn, as the provider said."
    )
    context_window_tokens: int | None
    input_tokens: int | None
    output_tokens: int | None
    reported_at: datetime


@strawberry.type
class ForkDivergence:
    source_run_ordinal: int = strawberry.field(
        description="The source run the thread was taken at (0: before any run)."
    )
    source_item_index: int | None = strawberry.field(
        description="A fork at an item: the last item of that run it took (-1: the input "
        "only); the run's later items are the source's own since the fork."
    )
    source_runs_since_fork: list[int] = strawberry.field(
        description="Ordinals of the source's live (not rolled back) runs after the fork point."
    )
    source_rolled_back_past_fork: bool
    source_rolled_back_to: int | None = strawberry.field(
        description="The ordinal the source was rolled back to, when it was."
    )
    unmerged_run_ordinals: list[int] = strawberry.field(
        description="The fork's history runs no merge-back (or subagent result) has carried."
    )
    last_merge_back_at: datetime | None

    @classmethod
    def of(cls, found: Divergence) -> ForkDivergence:
        return from_model(
            cls,
            found,
            source_run_ordinal=found.forkedAt,
            source_item_index=found.forkedAtItem,
            source_runs_since_fork=list(found.sourceRunsSinceFork),
            unmerged_run_ordinals=list(found.unmerged),
        )


@strawberry.type
class RunItem:
    kind: RunItemKind
    text: str
    key: str | None
    path: str | None
    attributes: JSON | None

    @classmethod
    def of(cls, item: models.RunItem) -> RunItem:
        return from_model(cls, item)


@strawberry.type
class FileDiffStat:
    path: str
    additions: int
    deletions: int
    change_kind: str


@strawberry.type
class ProviderThreadCoverage:
    provider_thread_id: strawberry.ID
    native_run_ordinals: list[int]
    handoff_ids: list[strawberry.ID]
    covered_run_ordinals: list[int]
    missing_run_ordinals: list[int]

    @classmethod
    def of(cls, cov: Coverage) -> ProviderThreadCoverage:
        return cls(
            provider_thread_id=strawberry.ID(cov.providerThreadId),
            native_run_ordinals=list(cov.native),
            handoff_ids=[strawberry.ID(h) for h in cov.handoffIds],
            covered_run_ordinals=list(cov.covered),
            missing_run_ordinals=list(cov.missing),
        )


@strawberry.type
class OrdinalRange:
    from_: int = strawberry.field(name="from")
    to: int


@strawberry.type
class HandoffSection:
    title: str
    lines: list[str]
