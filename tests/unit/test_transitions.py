"""Each status change on its own: the change it writes and the event that tells it."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count

import pytest

from graph import events
from graph.events import EventType
from graph.models import (
    HandoffStatus,
    HistoryMode,
    ProviderThreadNode,
    ProviderThreadStatus,
    ResolutionStrategy,
    RunItem,
    RunItemKind,
    RunNode,
    RunStatus,
    StalenessSignal,
    SummarySource,
    TransferStatus,
)
from graph.plan import WritePlan
from resolvers import transitions
from resolvers.draft import Draft

AT = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)


def draft() -> Draft:
    ids = count(1)
    return Draft(lambda prefix: f"{prefix}_{next(ids)}", AT)


def provider_thread(
    status: ProviderThreadStatus, native_ref: str | None = None
) -> ProviderThreadNode:
    return ProviderThreadNode(
        id="pt",
        threadId="t",
        provider="codex",
        nativeRef=native_ref,
        status=status,
        createdAt=AT,
        lastUsedAt=AT,
    )


def running_run() -> RunNode:
    return RunNode(
        id="r",
        threadId="t",
        ordinal=3,
        provider="codex",
        status=RunStatus.RUNNING,
        input="fix the flaky test",
        providerThreadId="pt",
        startedAt=AT,
    )


def event_types(plan: WritePlan) -> list[EventType]:
    return [event.type for event in plan.events]


def test_run_running_changes_the_status_alone() -> None:
    d = draft()
    transitions.run_running(d, "r")
    plan = d.build()
    assert [(c.id, c.status) for c in plan.runChanges] == [("r", RunStatus.RUNNING)]
    assert plan.events == []  # the attach or the summary that let it run is logged


@pytest.mark.parametrize("status", [RunStatus.STARTING, RunStatus.RUNNING])
def test_a_run_waits_or_runs(status: RunStatus) -> None:
    d = draft()
    transitions.run_waits_or_runs(d, "r", status)
    assert [c.status for c in d.build().runChanges] == [status]


def test_a_run_in_progress_never_waits_as_ended() -> None:
    with pytest.raises(ValueError):
        transitions.run_waits_or_runs(draft(), "r", RunStatus.COMPLETED)


def test_end_run_writes_status_digest_native_run_and_event() -> None:
    d = draft()
    pt = provider_thread(ProviderThreadStatus.ACTIVE, "sess")
    items = [RunItem(kind=RunItemKind.DECISION, text="retry three times")]
    ended = transitions.end_run(
        d,
        "t",
        running_run(),
        pt,
        events.RunCompleted(ordinal=3, items=1),
        status=RunStatus.COMPLETED,
        nativeTurnRef="turn-3",
        items=items,
    )
    plan = d.build()
    [change] = plan.runChanges
    assert (change.status, change.nativeTurnRef, change.completedAt) == (
        RunStatus.COMPLETED,
        "turn-3",
        AT,
    )
    assert change.digest is not None and change.digest.items[0].text == "retry three times"
    [pt_change] = plan.providerThreadChanges
    assert pt_change.nativeRanges == [3, 3]
    assert pt_change.heldTokens is not None and pt_change.heldTokens > 0
    assert event_types(plan) == [EventType.RUN_COMPLETED]
    assert ended.status is RunStatus.COMPLETED and ended.items == items


def test_a_run_ends_only_as_history() -> None:
    with pytest.raises(ValueError):
        transitions.end_run(
            draft(),
            "t",
            running_run(),
            None,
            events.RunCompleted(ordinal=3, items=1),
            status=RunStatus.RUNNING,
        )


def test_roll_back_run_names_the_ordinal_it_went_back_to() -> None:
    d = draft()
    transitions.roll_back_run(d, "r", 1)
    [change] = d.build().runChanges
    assert (change.status, change.rolledBackTo) == (RunStatus.ROLLED_BACK, 1)


def test_ready_handoff_with_the_event_that_says_who_wrote_it() -> None:
    d = draft()
    told = events.HandoffSummarized(
        handoffId="h", source=SummarySource.CONFIGURED, generationMs=12.5
    )
    transitions.ready_handoff(d, "t", "r", "h", told, generation_ms=12.5)
    plan = d.build()
    [change] = plan.handoffChanges
    assert (change.status, change.updatedAt, change.generationMs) == (HandoffStatus.READY, AT, 12.5)
    [event] = plan.events
    assert (event.type, event.runId) == (EventType.HANDOFF_SUMMARIZED, "r")


def test_supersede_handoff_names_its_replacement() -> None:
    d = draft()
    transitions.supersede_handoff(d, "t", "h", run_id="r", reason="rollback", by="h2")
    plan = d.build()
    [change] = plan.handoffChanges
    assert (change.status, change.supersededById) == (HandoffStatus.SUPERSEDED, "h2")
    assert event_types(plan) == [EventType.HANDOFF_SUPERSEDED]


def test_fail_handoff_keeps_the_reason() -> None:
    d = draft()
    transitions.fail_handoff(d, "t", "r", "h", "the summarizer timed out", replaced_by="h2")
    plan = d.build()
    [change] = plan.handoffChanges
    assert (change.status, change.failureReason) == (
        HandoffStatus.FAILED,
        "the summarizer timed out",
    )
    assert event_types(plan) == [EventType.HANDOFF_FAILED]


def test_supersede_transfer() -> None:
    d = draft()
    transitions.supersede_transfer(d, "t", "x", reason="rollback")
    plan = d.build()
    assert [c.status for c in plan.transferChanges] == [TransferStatus.SUPERSEDED]
    assert event_types(plan) == [EventType.TRANSFER_SUPERSEDED]


@pytest.mark.parametrize(
    ("strategy", "resolved"),
    [
        (ResolutionStrategy.NATIVE_FORK, TransferStatus.RESOLVED_NATIVE),
        (ResolutionStrategy.PORTABLE_CONTEXT, TransferStatus.RESOLVED_PORTABLE),
    ],
)
def test_consume_transfer_logs_both_steps(
    strategy: ResolutionStrategy, resolved: TransferStatus
) -> None:
    d = draft()
    transitions.consume_transfer(d, "t", "r", "x", strategy, "pt", None)
    plan = d.build()
    [change] = plan.transferChanges
    assert (change.status, change.consumedByRunId) == (TransferStatus.CONSUMED, "r")
    assert event_types(plan) == [EventType.TRANSFER_RESOLVED, EventType.TRANSFER_CONSUMED]
    assert plan.events[0].payload.model_dump()["status"] == resolved


def test_set_provider_thread_status() -> None:
    d = draft()
    transitions.set_provider_thread_status(d, "t", "pt", ProviderThreadStatus.DIVERGENT)
    plan = d.build()
    assert [c.status for c in plan.providerThreadChanges] == [ProviderThreadStatus.DIVERGENT]
    assert event_types(plan) == [EventType.PROVIDER_THREAD_STATUS]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (ProviderThreadStatus.PENDING, ProviderThreadStatus.ACTIVE),
        (ProviderThreadStatus.ROLLED_BACK, ProviderThreadStatus.ROLLED_BACK),
    ],
)
def test_attach_provider_thread(before: ProviderThreadStatus, after: ProviderThreadStatus) -> None:
    d = draft()
    status = transitions.attach_provider_thread(
        d, "t", provider_thread(before), "sess-1", HistoryMode.LEGACY
    )
    plan = d.build()
    [change] = plan.providerThreadChanges
    assert (status, change.status, change.nativeRef) == (after, after, "sess-1")
    assert event_types(plan) == [EventType.PROVIDER_THREAD_ATTACHED]


def test_fail_provider_thread_is_the_runs_start_failure() -> None:
    d = draft()
    transitions.fail_provider_thread(d, "t", "r", "pt", "resume refused")
    plan = d.build()
    [change] = plan.providerThreadChanges
    assert (change.status, change.failureReason) == (ProviderThreadStatus.FAILED, "resume refused")
    [event] = plan.events
    assert (event.type, event.runId) == (EventType.RUN_START_FAILED, "r")


def test_retire_provider_thread_keeps_its_signals() -> None:
    d = draft()
    signals = [StalenessSignal.TOO_MANY_CHAINED_HANDOFFS]
    transitions.retire_provider_thread(d, "pt", signals)
    [change] = d.build().providerThreadChanges
    assert (change.status, change.staleSignals) == (ProviderThreadStatus.STALE, signals)


@pytest.mark.parametrize(
    ("before", "native_ref", "after"),
    [
        (ProviderThreadStatus.ROLLED_BACK, "sess", ProviderThreadStatus.ACTIVE),
        (ProviderThreadStatus.PENDING, None, ProviderThreadStatus.PENDING),
    ],
)
def test_reuse_provider_thread(
    before: ProviderThreadStatus, native_ref: str | None, after: ProviderThreadStatus
) -> None:
    d = draft()
    transitions.reuse_provider_thread(d, provider_thread(before, native_ref), "gpt-5")
    [change] = d.build().providerThreadChanges
    assert (change.status, change.model, change.lastUsedAt) == (after, "gpt-5", AT)
