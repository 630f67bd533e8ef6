"""What a provider thread has seen: native runs plus ready handoffs (SEMANTICS "Vocabulary").

All of it is ranges of ordinals: the thread's history, the history runs the provider
thread ran (kept on the provider thread as they end), and the ranges of the ready
handoffs it received. Nothing here reads a run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from graph.models import HandoffHead, HandoffStatus, ProviderThreadNode
from graph.ranges import Ranges

H = TypeVar("H", bound=HandoffHead)


@dataclass(frozen=True)
class Coverage:
    providerThreadId: str
    native: Ranges
    handoffIds: list[str]
    covered: Ranges
    missing: Ranges

    def is_suffix(self) -> bool:
        """The missing runs all come after the last covered one."""
        return not self.missing or (self.missing.first or 0) > (self.covered.last or 0)


def received_ready(provider_thread_id: str, handoffs: Iterable[H]) -> list[H]:
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


class Spanning(Protocol):
    """A handoff, made or planned: the thread its range is about, and the range."""

    @property
    def sourceThreadId(self) -> str: ...

    @property
    def covered(self) -> Ranges: ...


def handoff_ranges(thread_id: str, handoffs: Iterable[Spanning]) -> Ranges:
    """The ordinals the ranges of `handoffs` about `thread_id` span (history or not)."""
    spans = Ranges()
    for handoff in handoffs:
        if handoff.sourceThreadId == thread_id:
            spans = spans | handoff.covered
    return spans


def coverage(
    provider_thread: ProviderThreadNode, history: Ranges, handoffs: Iterable[HandoffHead]
) -> Coverage:
    """Coverage of one provider thread over the history of its own app thread."""
    native = provider_thread.native & history
    ready = received_ready(provider_thread.id, handoffs)
    covered = native | (handoff_ranges(provider_thread.threadId, ready) & history)
    return Coverage(
        providerThreadId=provider_thread.id,
        native=native,
        handoffIds=[handoff.id for handoff in ready],
        covered=covered,
        missing=history - covered,
    )
