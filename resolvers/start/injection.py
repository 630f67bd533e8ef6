"""The order a start injects its handoffs in, the one rule every start and restart follows:
the context inherited from the thread's ancestors, the root's first; then the summary of
the thread's own runs; then merge-backs and subagent results delivered to it, in the
order they arrived."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from graph.models import HandoffKind
from graph.thread_state import ThreadState


class Injected(Protocol):
    @property
    def sourceThreadId(self) -> str: ...

    @property
    def kind(self) -> HandoffKind: ...


H = TypeVar("H", bound=Injected)


def ancestors(state: ThreadState, related: Mapping[str, ThreadState]) -> list[str]:
    """The thread's ancestors whose states are known, parent first."""
    found: list[str] = []
    current = state.thread
    while current.parentId is not None and current.parentId in related:
        found.append(current.parentId)
        current = related[current.parentId].thread
    return found


def order(
    handoffs: Sequence[H], state: ThreadState, related: Mapping[str, ThreadState]
) -> list[int]:
    """The positions of `handoffs` in injection order (ties keep the order given)."""
    line = ancestors(state, related)

    def rank(position: int) -> tuple[int, int, int]:
        handoff = handoffs[position]
        if handoff.sourceThreadId == state.thread.id:
            return (1, 0, position)
        if handoff.kind is HandoffKind.PORTABLE_CONTEXT and handoff.sourceThreadId in line:
            return (0, -line.index(handoff.sourceThreadId), position)
        return (2, 0, position)

    return sorted(range(len(handoffs)), key=rank)


def ordered(
    handoffs: Sequence[H], state: ThreadState, related: Mapping[str, ThreadState]
) -> list[H]:
    return [handoffs[i] for i in order(handoffs, state, related)]
