"""Fork divergence and the merge-back refusal (resolvers/lineage/divergence.py), on plain states."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    RunNode,
    RunStatus,
    SourcePoint,
    ThreadNode,
    ThreadRelationship,
    TransferNode,
    TransferStatus,
    TransferType,
)
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.lineage.divergence import divergence, require_source_kept
from tests.support.scenario import T0


def thread(
    ident: str, last: int, rolled_back: Ranges | None = None, parent: str | None = None
) -> ThreadNode:
    return ThreadNode(
        id=ident,
        workspace="w",
        createdAt=T0,
        rootId="s",
        parentId=parent,
        relationshipToParent=ThreadRelationship.FORK if parent else None,
        lastOrdinal=last,
        rolledBack=(rolled_back or Ranges()).flatten(),
    )


def transfer(
    kind: TransferType, status: TransferStatus, ordinal: int, minutes: int
) -> TransferNode:
    source, target = ("s", "f") if kind is TransferType.FORK else ("f", "s")
    return TransferNode(
        id=f"x{minutes}",
        type=kind,
        status=status,
        sourceThreadId=source,
        targetThreadId=target,
        sourcePoint=SourcePoint(threadId=source, runOrdinal=ordinal),
        createdAt=T0 + timedelta(minutes=minutes),
    )


def child(runs: int, forked_at: int) -> ThreadState:
    origin = transfer(TransferType.FORK, TransferStatus.CONSUMED, forked_at, 0)
    return ThreadState(thread=thread("f", runs, parent="s"), transfers=[origin])


def point(ordinal: int, to: int | None) -> RunNode:
    status = RunStatus.ROLLED_BACK if to is not None else RunStatus.COMPLETED
    return RunNode(
        id="p",
        threadId="s",
        ordinal=ordinal,
        provider="codex",
        status=status,
        input="x",
        startedAt=T0,
        rolledBackTo=to,
    )


def test_a_root_has_none() -> None:
    assert divergence(ThreadState(thread=thread("s", 3)), thread("s", 3), None, []) is None


@given(
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=0, max_value=12),
)
def test_the_source_moves_on_or_rolls_back(forked_at: int, to: int, later: int) -> None:
    last = max(forked_at, to) + later
    rolled = Ranges.span(to + 1, max(forked_at, to)) if to < forked_at else Ranges()
    found = divergence(
        child(2, forked_at), thread("s", last, rolled), point(forked_at, to if rolled else None), []
    )
    assert found is not None
    assert found.sourceRolledBackPastFork == (to < forked_at)
    assert found.sourceRolledBackTo == (to if to < forked_at else None)
    assert list(found.sourceRunsSinceFork) == [
        o for o in range(forked_at + 1, last + 1) if o not in rolled
    ]
    assert list(found.unmerged) == [1, 2] and found.lastMergeBackAt is None


def test_merge_backs_carry_up_to_their_point_unless_superseded() -> None:
    returns = [
        transfer(TransferType.MERGE_BACK, TransferStatus.CONSUMED, 2, 1),
        transfer(TransferType.MERGE_BACK, TransferStatus.SUPERSEDED, 4, 3),
        transfer(TransferType.MERGE_BACK, TransferStatus.PENDING, 3, 2),
    ]
    found = divergence(child(5, 1), thread("s", 1), point(1, None), returns)
    assert found is not None
    assert list(found.unmerged) == [4, 5] and found.lastMergeBackAt == returns[2].createdAt


def test_merge_back_refused_only_past_the_fork_point() -> None:
    parent = ThreadState(thread=thread("s", 5, Ranges.span(3, 5)))
    with pytest.raises(ThreadlineError) as refused:
        require_source_kept(child(1, 3), parent)
    assert (
        refused.value.code is ErrorCode.CONFLICT
        and "rolled back past run 3" in refused.value.message
    )
    require_source_kept(child(1, 2), parent)  # rolled back after the fork point: fine
