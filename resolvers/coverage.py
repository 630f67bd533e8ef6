"""What a provider thread has seen: native runs plus ready handoffs (SEMANTICS "Vocabulary")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from graph.models import (
    IN_PROGRESS,
    HandoffNode,
    HandoffStatus,
    ProviderThreadNode,
    RunNode,
    RunStatus,
)


class Coverage(BaseModel):
    model_config = ConfigDict(frozen=True)

    providerThreadId: str
    nativeRunOrdinals: list[int]
    handoffIds: list[str]
    coveredRunOrdinals: list[int]
    missingRunOrdinals: list[int]


def is_history(run: RunNode) -> bool:
    """History = neither rolled back nor still in progress."""
    return run.status is not RunStatus.ROLLED_BACK and run.status not in IN_PROGRESS


def history(runs: Iterable[RunNode]) -> list[RunNode]:
    return sorted((run for run in runs if is_history(run)), key=lambda run: run.ordinal)


def native_ordinals(provider_thread_id: str, runs: Iterable[RunNode]) -> list[int]:
    return [run.ordinal for run in history(runs) if run.providerThreadId == provider_thread_id]


def received_ready(provider_thread_id: str, handoffs: Iterable[HandoffNode]) -> list[HandoffNode]:
    """Ready, non-superseded handoffs delivered to the provider thread, oldest first."""
    return sorted(
        (
            handoff
            for handoff in handoffs
            if handoff.toProviderThreadId == provider_thread_id
            and handoff.status is HandoffStatus.READY
        ),
        key=lambda handoff: (handoff.createdAt, handoff.id),
    )


def covered_by_handoffs(
    thread_id: str, handoffs: Iterable[HandoffNode], runs: Sequence[RunNode]
) -> set[int]:
    """History runs of `thread_id` inside the ranges of `handoffs` about that thread."""
    ranges = [(h.coveredFrom, h.coveredTo) for h in handoffs if h.sourceThreadId == thread_id]
    return {
        run.ordinal
        for run in history(runs)
        if any(low <= run.ordinal <= high for low, high in ranges)
    }


def coverage(
    provider_thread: ProviderThreadNode, runs: Sequence[RunNode], handoffs: Iterable[HandoffNode]
) -> Coverage:
    """Coverage of one provider thread over the runs of its own app thread."""
    native = native_ordinals(provider_thread.id, runs)
    ready = received_ready(provider_thread.id, handoffs)
    covered = set(native) | covered_by_handoffs(provider_thread.threadId, ready, runs)
    all_history = [run.ordinal for run in history(runs)]
    return Coverage(
        providerThreadId=provider_thread.id,
        nativeRunOrdinals=native,
        handoffIds=[handoff.id for handoff in ready],
        coveredRunOrdinals=sorted(covered),
        missingRunOrdinals=[ordinal for ordinal in all_history if ordinal not in covered],
    )
