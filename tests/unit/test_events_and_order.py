"""Event payloads as typed models, and the one rule of the order handoffs are injected in."""

from __future__ import annotations

from datetime import UTC, datetime

from graph import events
from graph.events import PAYLOADS, EventType, payload_of
from graph.models import HandoffKind, ProviderAction, StartStrategy, ThreadNode
from graph.thread_state import ThreadState
from resolvers.start import injection

AT = datetime(2026, 1, 1, tzinfo=UTC)


def test_every_event_type_has_its_payload_model() -> None:
    assert set(PAYLOADS) == set(EventType)
    assert all(model.kind is kind for kind, model in PAYLOADS.items())


def test_a_payload_stores_the_fields_its_command_gave_and_reads_back_older_ones() -> None:
    started = events.RunRestarted(
        ordinal=3, strategy=StartStrategy.FULL_HANDOFF_NEW_THREAD, providerAction="CREATE"
    )
    assert started.stored() == {
        "ordinal": 3,
        "strategy": "FULL_HANDOFF_NEW_THREAD",
        "providerAction": "CREATE",
    }
    assert events.HandoffSuperseded(handoffId="h", reason="rollback").stored() == {
        "handoffId": "h",
        "reason": "rollback",
    }
    assert events.CleanContextRequested().stored() is None
    # Written before run.restarted kept its provider action: read back without it.
    older = payload_of("run.restarted", {"ordinal": 3, "strategy": "FULL_HANDOFF_NEW_THREAD"})
    assert isinstance(older, events.RunRestarted) and older.providerAction is None
    again = payload_of(EventType.RUN_RESTARTED, started.stored())
    assert again == started and again.providerAction is ProviderAction.CREATE


class Planned:
    def __init__(self, source: str, kind: HandoffKind) -> None:
        self.sourceThreadId = source
        self.kind = kind


def state(thread: str, parent: str | None) -> ThreadState:
    node = ThreadNode(id=thread, workspace="w", createdAt=AT, rootId="r", parentId=parent)
    return ThreadState(thread=node)


def test_inherited_context_root_first_then_the_thread_then_what_was_delivered() -> None:
    fork = state("f", "p")
    related = {"p": state("p", "r"), "r": state("r", None)}
    given = [
        Planned("g", HandoffKind.DELTA_CONTEXT),  # a merge-back from f's own fork g
        Planned("f", HandoffKind.DELTA_CONTEXT),
        Planned("p", HandoffKind.PORTABLE_CONTEXT),
        Planned("r", HandoffKind.PORTABLE_CONTEXT),
        Planned("h", HandoffKind.DELTA_CONTEXT),  # a subagent result, arrived after g's
    ]
    ordered = injection.ordered(given, fork, related)
    assert [h.sourceThreadId for h in ordered] == ["r", "p", "f", "g", "h"]
    assert injection.ancestors(fork, related) == ["p", "r"]
