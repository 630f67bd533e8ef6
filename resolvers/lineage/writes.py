"""What the lineage commands write: forks, merge-backs, subagents. Cheap now, resolved on
the child's (or parent's) next start."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph import events
from graph.errors import ThreadlineError, invalid
from graph.models import (
    Actor,
    ProviderThreadNode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunNode,
    SourcePoint,
    ThreadNode,
    ThreadRelationship,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.content import Content
from resolvers.draft import Draft
from resolvers.handoffs.budget import ContextPolicy, budget_into, fitted
from resolvers.lineage import divergence, points
from resolvers.providers import ProviderRegistry
from resolvers.runs import named_ref
from resolvers.start import transfers

TITLE_LIMIT = 80


@dataclass(frozen=True)
class ForkRequest:
    """Where a fork is taken and what it is: at `run` (as a checkpoint, or up to its item
    `itemIndex`, whose key is `itemKey`), a side thread or not."""

    run: RunNode
    atCheckpoint: bool = False
    itemIndex: int | None = None
    itemKey: str | None = None
    side: bool = False


def fork(draft: Draft, source: ThreadState, asked: ForkRequest, title: str | None) -> ThreadNode:
    run = asked.run
    point = points.point_at(
        source,
        run,
        at_checkpoint=asked.atCheckpoint,
        item_index=asked.itemIndex,
        item_key=asked.itemKey,
    )
    kind = ThreadRelationship.SIDE if asked.side else ThreadRelationship.FORK
    child = _child(draft, source, kind, Actor.USER, title)
    transfer = _transfer(
        draft,
        TransferType.FORK,
        source.thread.id,
        child.id,
        point,
        Actor.USER,
        source_provider=run.provider,
    )
    _open_child(draft, child, transfer, events.ThreadForked, run.id)
    return child


def merge_back(draft: Draft, fork_state: ThreadState, parent: ThreadState) -> TransferNode:
    point, base = points.merge_back_points(fork_state)
    divergence.require_source_kept(fork_state, parent)
    return _deliver_to_parent(
        draft, TransferType.MERGE_BACK, fork_state, parent, point, Actor.USER, base=base
    )


@dataclass(frozen=True)
class MergeBackOutlook:
    """What `mergeBack` would carry, or why it would be refused (explainMergeBack)."""

    targetThreadId: str
    reason: str | None = None  # None: possible
    runs: Ranges = field(default_factory=Ranges)
    text: str | None = None
    tokenEstimate: int = 0


def explain_merge_back(
    draft: Draft,
    fork_state: ThreadState,
    parent: ThreadState,
    registry: ProviderRegistry,
    content: Content,
    policy: ContextPolicy,
) -> MergeBackOutlook:
    """The merge-back's checks, then the delta the parent's next run would get: fitted to
    the context budget of a start on the provider the parent ran last, into the native
    thread that run used (a new one's, on the fork's latest provider, before the parent
    ran)."""
    target = parent.thread.id
    try:
        transfer = merge_back(draft, fork_state, parent)
    except ThreadlineError as refused:
        return MergeBackOutlook(target, reason=refused.message)
    last = parent.lastRun or fork_state.latestCompleted
    provider = registry.get(last.provider if last else transfer.sourceProvider or "")
    native = parent.provider_thread(parent.lastRun.providerThreadId) if parent.lastRun else None
    budget = budget_into(provider, native, None, policy)
    [planned] = fitted([transfers.parent_delivery(transfer, fork_state, provider, content)], budget)
    return MergeBackOutlook(
        target,
        runs=transfers.history_up_to(fork_state, transfer.sourcePoint.runOrdinal),
        text=planned.summary.text,
        tokenEstimate=planned.summary.tokenEstimate,
    )


def spawn_subagent(
    draft: Draft, parent: ThreadState, run: RunNode, task: str, provider: str | None
) -> ThreadNode:
    if not task.strip():
        raise invalid("A subagent needs a task.")
    child = _child(draft, parent, ThreadRelationship.SUBAGENT, Actor.AGENT, task)
    transfer = _spawn(draft, parent, child, run, provider, task=task)
    _open_child(draft, child, transfer, events.SubagentSpawned, run.id)
    return child


def record_native_subagent(
    draft: Draft,
    parent: ThreadState,
    run: RunNode,
    provider: str,
    native_ref: str,
    title: str | None,
) -> ThreadNode:
    named_ref(native_ref)
    child = _child(draft, parent, ThreadRelationship.SUBAGENT, Actor.AGENT, title)
    pt = ProviderThreadNode(
        id=draft.new_id("pth"),
        threadId=child.id,
        provider=provider,
        nativeRef=native_ref,
        status=ProviderThreadStatus.ACTIVE,
        createdAt=draft.at,
        lastUsedAt=draft.at,
    )
    transfer = _spawn(draft, parent, child, run, provider, resolved_to=pt.id)
    draft.provider_thread(pt)
    _open_child(draft, child, transfer, events.SubagentRecorded, run.id, native_ref)
    return child


def complete_subagent(
    draft: Draft, child: ThreadState, parent: ThreadState, result: str
) -> TransferNode:
    if not result.strip():
        raise invalid("A subagent result cannot be empty.")
    points.require_subagent(child)
    point = points.latest_point(child)
    return _deliver_to_parent(
        draft, TransferType.SUBAGENT_RESULT, child, parent, point, Actor.AGENT, payload=result
    )


# ---- shared steps ------------------------------------------------------------------


def _child(
    draft: Draft,
    parent: ThreadState,
    relationship: ThreadRelationship,
    actor: Actor,
    title: str | None,
) -> ThreadNode:
    label = " ".join(title.split())[:TITLE_LIMIT] if title else None
    return ThreadNode(
        id=draft.new_id("thr"),
        workspace=parent.thread.workspace,
        title=label,
        createdBy=actor,
        createdAt=draft.at,
        parentId=parent.thread.id,
        relationshipToParent=relationship,
        rootId=parent.thread.rootId,
    )


def _transfer(
    draft: Draft,
    kind: TransferType,
    source_thread_id: str,
    target_thread_id: str,
    point: SourcePoint,
    actor: Actor,
    *,
    base: SourcePoint | None = None,
    source_provider: str | None = None,
    target_provider: str | None = None,
    spawned_by: str | None = None,
    payload: str | None = None,
    resolved_to: str | None = None,
) -> TransferNode:
    """A new transfer: `PENDING`, or resolved natively to the provider thread `resolved_to`
    (a subagent the provider spawned itself)."""
    return TransferNode(
        id=draft.new_id("xfr"),
        type=kind,
        sourceThreadId=source_thread_id,
        targetThreadId=target_thread_id,
        sourcePoint=point,
        basePoint=base,
        createdBy=actor,
        createdAt=draft.at,
        sourceProvider=source_provider,
        targetProvider=target_provider,
        spawnedByRunId=spawned_by,
        payload=payload,
        status=TransferStatus.RESOLVED_NATIVE if resolved_to else TransferStatus.PENDING,
        resolutionStrategy=ResolutionStrategy.NATIVE_FORK if resolved_to else None,
        resolvedProviderThreadId=resolved_to,
    )


def _spawn(
    draft: Draft,
    parent: ThreadState,
    child: ThreadNode,
    run: RunNode,
    provider: str | None,
    *,
    task: str | None = None,
    resolved_to: str | None = None,
) -> TransferNode:
    """The SUBAGENT_SPAWN transfer from the parent's latest completed run to the child."""
    return _transfer(
        draft,
        TransferType.SUBAGENT_SPAWN,
        parent.thread.id,
        child.id,
        points.latest_point(parent),
        Actor.AGENT,
        source_provider=run.provider,
        target_provider=provider,
        spawned_by=run.id,
        payload=task,
        resolved_to=resolved_to,
    )


def _deliver_to_parent(
    draft: Draft,
    kind: TransferType,
    child: ThreadState,
    parent: ThreadState,
    point: SourcePoint,
    actor: Actor,
    *,
    base: SourcePoint | None = None,
    payload: str | None = None,
) -> TransferNode:
    """A merge-back or subagent result from `child`, pending for the parent's next run; it
    replaces the pending ones of its kind from the same child, logged on the parent."""
    latest = child.latestCompleted
    transfer = _transfer(
        draft,
        kind,
        child.thread.id,
        parent.thread.id,
        point,
        actor,
        base=base,
        source_provider=latest.provider if latest else None,
        payload=payload,
    )
    superseded = points.superseded_by_new(parent, kind, child.thread.id)
    draft.transfer(transfer)
    created = events.TransferCreated(
        transferId=transfer.id,
        type=transfer.type,
        sourceThreadId=transfer.sourceThreadId,
        targetThreadId=transfer.targetThreadId,
    )
    draft.event(transfer.targetThreadId, created)
    for ident in superseded:
        transitions.supersede_transfer(draft, transfer.targetThreadId, ident, by=transfer.id)
    draft.event(transfer.sourceThreadId, created)
    return transfer


def _open_child(
    draft: Draft,
    child: ThreadNode,
    transfer: TransferNode,
    opened: type[events.ChildOpened],
    run_id: str,
    native_ref: str | None = None,
) -> None:
    """A new fork or subagent thread, its transfer, and events on both threads."""
    draft.thread(child, transfer.sourcePoint.runOrdinal, transfer.sourcePoint.itemIndex)
    draft.transfer(transfer)
    said = {"nativeRef": native_ref} if native_ref else {}
    draft.event(
        transfer.sourceThreadId,
        opened(childThreadId=child.id, transferId=transfer.id, **said),
        run_id,
    )
    draft.event(
        child.id,
        events.ThreadCreated(
            parentId=transfer.sourceThreadId, relationship=transfer.type, transferId=transfer.id
        ),
    )
    draft.event(
        child.id,
        events.TransferCreated(transferId=transfer.id, type=transfer.type, status=transfer.status),
    )
