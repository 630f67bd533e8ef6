"""What the run commands other than the start write: a new thread, clean context, and a
started run attached, completed or failed. Each function checks the command's rules on
the thread's state and adds its writes and events to a `Draft`."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from graph import events
from graph.errors import conflict, invalid
from graph.models import (
    Actor,
    CheckpointNode,
    ContextUsage,
    FileDiffStat,
    HistoryMode,
    ProviderLimitNode,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunItem,
    RunNode,
    RunStatus,
    ThreadNode,
    UsageReport,
)
from graph.plan import ProviderThreadChange, ThreadChange
from graph.thread_state import ThreadState
from resolvers import transitions
from resolvers.draft import Draft
from resolvers.handoffs import awaited


def create_thread(draft: Draft, workspace: str, title: str | None, ident: str | None) -> ThreadNode:
    chosen = draft.new_id("thr") if ident is None else chosen_thread_id(ident)
    thread = ThreadNode(
        id=chosen,
        workspace=workspace,
        title=title,
        createdBy=Actor.USER,
        createdAt=draft.at,
        rootId=chosen,
    )
    draft.thread(thread)
    draft.event(chosen, events.ThreadCreated(title=title))
    return thread


# Why an id was refused, in the words of its refusal.
UNNAMEABLE = "is empty, starts or ends with whitespace, or holds a control character"


def chosen_thread_id(ident: str) -> str:
    """A thread id a client chose, if it can name the thread: INVALID_INPUT for an empty one
    (clients send it as a placeholder, and it once stood for "make one"), one that starts
    or ends with whitespace (clients and the lineage page trim what they are given, so no
    one would find that thread by the id they see), or one holding a control character
    (a newline or a NUL no one types into a search box)."""
    if not nameable(ident):
        raise invalid(
            f"Thread id {ident!r} {UNNAMEABLE}: choose one without, or send no id for the "
            "service to make one."
        )
    return ident


def nameable(ident: str) -> bool:
    """An id someone can name: not empty, not starting or ending with whitespace, and no
    control character (a newline, a tab, a NUL) anywhere."""
    return (
        bool(ident)
        and ident == ident.strip()
        and not any(unicodedata.category(char) == "Cc" for char in ident)
    )


def named_ref(ref: str) -> None:
    """A provider's own id for a thread (its session id): INVALID_INPUT unless it is
    `nameable`, as every provider's id is. A blank one attached would be resumed as if it
    named a session, and lock the provider thread to it."""
    if not nameable(ref):
        raise invalid(
            f"nativeRef {ref!r} {UNNAMEABLE}: send the provider's own id for its thread "
            "(its session id) as the provider gave it."
        )


def request_clean_context(draft: Draft, state: ThreadState) -> None:
    draft.change(ThreadChange(id=state.thread.id, cleanContextRequested=True))
    draft.event(state.thread.id, events.CleanContextRequested())


def in_progress(state: ThreadState, run: RunNode, verb: str) -> RunNode:
    """`run` (read after the thread's lock was taken) if it is in progress; else CONFLICT.

    The run in progress, if any, is always the thread's latest: a run starts only when
    none is in progress, and a rollback needs none in progress.
    """
    current = state.run_in_progress
    if current is None or current.id != run.id:
        raise conflict(f"Run {run.ordinal} is {run.status}; only a run in progress can {verb}.")
    return current


def attach(
    draft: Draft,
    state: ThreadState,
    pt: ProviderThreadNode,
    native_ref: str,
    history_mode: HistoryMode,
) -> ProviderThreadNode:
    named_ref(native_ref)
    if pt.nativeRef and pt.nativeRef != native_ref:
        raise conflict(f"Provider thread {pt.id} is already attached to {pt.nativeRef!r}.")
    if pt.status in (ProviderThreadStatus.FAILED, ProviderThreadStatus.STALE):
        raise conflict(f"Provider thread {pt.id} is {pt.status}; it cannot be attached.")
    transitions.attach_provider_thread(draft, state.thread.id, pt, native_ref, history_mode)
    waiting = state.run_in_progress
    # The run starts running once no handoff it consumes still waits for its summary too.
    if (
        waiting
        and waiting.providerThreadId == pt.id
        and waiting.status is RunStatus.STARTING
        and not awaited.pending_of(state, waiting.id)
    ):
        transitions.run_running(draft, waiting.id)
    return draft.updated(pt)


def complete(
    draft: Draft,
    state: ThreadState,
    run: RunNode,
    native_turn_ref: str | None,
    items: Sequence[RunItem],
    checkpoint_ref: str | None,
    diff_summary: Sequence[FileDiffStat] | None,
    usage: UsageReport | None = None,
) -> RunNode:
    """`usage`: what the run's native thread holds now, as its provider reported it."""
    awaited.require_settled(state, run)
    checkpoint = None
    if diff_summary is not None:
        checkpoint = CheckpointNode(
            id=draft.new_id("ckp"),
            runId=run.id,
            ref=checkpoint_ref,
            diffSummary=list(diff_summary),
            createdAt=draft.at,
        )
    checkpoint_id = checkpoint.id if checkpoint else None
    done = transitions.end_run(
        draft,
        state.thread.id,
        run,
        state.provider_thread(run.providerThreadId),
        events.RunCompleted(ordinal=run.ordinal, items=len(items), checkpointId=checkpoint_id),
        status=RunStatus.COMPLETED,
        nativeTurnRef=native_turn_ref,
        items=list(items),
        checkpoint=checkpoint,
    )
    pt = state.provider_thread(run.providerThreadId)
    if usage is not None and pt is not None:
        report_usage(draft, state, pt, usage, run.id)
    return done


def report_usage(
    draft: Draft,
    state: ThreadState,
    pt: ProviderThreadNode,
    usage: UsageReport,
    run_id: str | None = None,
) -> ProviderThreadNode:
    """The native thread's latest usage report: what its next budget starts from."""
    latest = ContextUsage(**usage.model_dump(), reportedAt=draft.at)
    draft.change(ProviderThreadChange(id=pt.id, contextUsage=latest))
    draft.event(
        state.thread.id,
        events.ProviderThreadUsage(
            providerThreadId=pt.id,
            contextTokens=usage.contextTokens,
            contextWindowTokens=usage.contextWindowTokens,
        ),
        run_id,
    )
    return draft.updated(pt)


def fail(draft: Draft, state: ThreadState, run: RunNode, reason: str) -> RunNode:
    awaited.fail_pending(draft, state, run, reason)
    ended = events.RunFailed(ordinal=run.ordinal, reason=reason)
    return transitions.end_run(
        draft,
        state.thread.id,
        run,
        state.provider_thread(run.providerThreadId),
        ended,
        status=RunStatus.FAILED,
        failureReason=reason,
    )


def interrupt(
    draft: Draft,
    state: ThreadState,
    run: RunNode,
    limit: ProviderLimitNode,
    items: Sequence[RunItem],
) -> RunNode:
    """A usage limit of its provider stopped `run`: it keeps the items it produced before
    (`items`) and becomes history, seen by its provider thread like any ended run; the
    reason it stopped is the limit's."""
    if run.provider != limit.provider:
        raise invalid(
            f"Run {run.ordinal} runs on {run.provider!r}, not {limit.provider!r}: "
            "a limit interrupts only a run of its own provider."
        )
    awaited.fail_pending(draft, state, run, f"usage limit: {limit.reason}")
    stopped = events.RunInterrupted(
        ordinal=run.ordinal,
        provider=run.provider,
        reason=limit.reason,
        items=len(items),
        limitId=limit.id,
        resetsAt=limit.resetsAt,
    )
    return transitions.end_run(
        draft,
        state.thread.id,
        run,
        state.provider_thread(run.providerThreadId),
        stopped,
        status=RunStatus.INTERRUPTED,
        failureReason=limit.reason,
        items=list(items),
    )
