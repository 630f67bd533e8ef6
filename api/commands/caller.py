"""What every command needs besides its arguments, and the steps they share."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar, Unpack

from graph import gates, repo
from graph.errors import being_restored, not_found
from graph.models import HandoffNode, RunNode, SummarySource
from graph.thread_state import ThreadState
from graph.tx import Tx
from resolvers.content import Content
from resolvers.draft import Draft
from resolvers.handoffs import sources
from resolvers.handoffs.budget import ContextPolicy
from resolvers.handoffs.digests import digest_of
from resolvers.handoffs.planning import PlannedHandoff
from resolvers.handoffs.sources import Assignment, SummaryPolicy
from resolvers.providers import ProviderCapabilities, ProviderRegistry
from resolvers.start.staleness import StalenessPolicy

T = TypeVar("T")
# A decision reads run content at most three times: the runs a delta would carry, then
# (when that delta is too big) the whole history, then whatever inherited context needs.
CONTENT_READS = 4


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Caller:
    workspace: str
    providers: ProviderRegistry
    policy: StalenessPolicy
    summaries: SummaryPolicy = field(default_factory=SummaryPolicy)
    context: ContextPolicy = field(default_factory=ContextPolicy)
    clock: Callable[[], datetime] = field(default=utcnow)

    def draft(self) -> Draft:
        return Draft(new_id, self.clock())


async def locked(
    tx: Tx,
    caller: Caller,
    thread_id: str | None = None,
    *,
    ends: bool = False,
    parent: bool = False,
    **options: Unpack[repo.StateOptions],
) -> tuple[ThreadState, dict[str, ThreadState]]:
    """The state of the thread named by its id, or by a run or provider thread on it, with
    its write lock taken (and what `options` ask for: `repo.StateOptions`). `ends`: for the
    commands that consume, supersede or replace a transfer, whose other end is locked too
    (and `parent` for those that send one to the parent); docs/MODEL.md, "Locks".
    `trimmed`: for the commands on a run (start, attach, complete, fail), whose decisions
    name no other settled provider thread than those `repo.states` keeps;
    `run_handoffs_only`: for those after the start (attach, complete, fail), whose
    decisions look only at the handoffs of the run in progress. `limits_at`: for a start,
    the workspace's usage limits in force then, read with the state."""
    return await states(
        tx, caller, thread_id, lock=True, lock_ends=ends, lock_parent=parent, **options
    )


async def states(
    tx: Tx,
    caller: Caller,
    thread_id: str | None,
    *,
    lock: bool,
    lock_ends: bool = False,
    lock_parent: bool = False,
    **options: Unpack[repo.StateOptions],
) -> tuple[ThreadState, dict[str, ThreadState]]:
    """`repo.states` in the caller's workspace; NOT_FOUND names what named the thread."""
    found = await repo.states(
        tx,
        caller.workspace,
        thread_id=thread_id,
        lock=lock,
        lock_ends=lock_ends,
        lock_parent=lock_parent,
        **options,
    )
    if found is None:
        if await gates.closed(tx, caller.workspace):
            raise being_restored(caller.workspace)
        if (run_id := options.get("run_id")) is not None:
            raise not_found("run", run_id)
        if (provider_thread_id := options.get("provider_thread_id")) is not None:
            raise not_found("provider thread", provider_thread_id)
        raise not_found("thread", thread_id or "")
    return found


async def decided(tx: Tx, caller: Caller, decide: Callable[[Content], T]) -> T:
    """`decide`'s answer once it has every run it reads: run it, load what it lacked, again."""
    content = Content(clock=time.perf_counter)  # times the local summaries
    for _ in range(CONTENT_READS):
        answer = decide(content)
        missing = content.take_missing()
        if not missing:
            return answer
        loaded = await repo.digests(tx, caller.workspace, missing)
        content.add(
            (thread, found if not isinstance(found, RunNode) else digest_of(found))
            for thread, found in loaded
        )
    raise AssertionError("a decision kept asking for runs it was given")


async def assigned(
    tx: Tx,
    caller: Caller,
    plans: Sequence[PlannedHandoff],
    source: SummarySource,
    entering: ProviderCapabilities,
    state: ThreadState,
    related: Mapping[str, ThreadState],
) -> tuple[list[Assignment], dict[str, HandoffNode]]:
    """Who writes each of `plans` (for the thread of `state`, with its `related` threads),
    and the configured summaries of the same material already paid for, by key."""
    states = {state.thread.id: state, **related}
    assignments = sources.assign(plans, source, entering, states, caller.summaries)
    keys = [a.request.key for a in assignments if a.configured and a.request is not None]
    cached = await repo.summaries_by_key(tx, caller.workspace, keys) if keys else {}
    return assignments, cached
