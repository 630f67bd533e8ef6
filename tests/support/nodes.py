"""Graph nodes for unit tests of pure decisions, with every field a test does not care
about filled in."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.models import HandoffKind, HandoffNode, HandoffStatus, HandoffStrategy

AT = datetime(2026, 1, 1, tzinfo=UTC)


def handoff(
    ident: str,
    low: int,
    high: int,
    *,
    status: HandoffStatus = HandoffStatus.READY,
    about: str = "t",
    to: str = "pt",
) -> HandoffNode:
    return HandoffNode(
        id=ident,
        threadId="t",
        sourceThreadId=about,
        toProviderThreadId=to,
        coveredFrom=low,
        coveredTo=high,
        strategy=HandoffStrategy.FULL_THREAD_SUMMARY,
        kind=HandoffKind.PORTABLE_CONTEXT,
        summaryText="s",
        tokenEstimate=1,
        status=status,
        createdAt=AT,
        updatedAt=AT,
    )
