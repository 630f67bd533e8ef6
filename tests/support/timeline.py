"""A `Scenario` that also keeps every node's history as the store does (graph/history.py),
and the state after each command: the oracle the past is rebuilt against."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph import history
from graph.history import NodeKind, Timeline, Versioned
from graph.models import HandoffNode
from graph.plan import NodeChange, WritePlan
from graph.thread_state import ThreadState
from tests.support.scenario import T0, Scenario


@dataclass(frozen=True)
class Moment:
    """Right after a command: its time, the thread's state and every handoff then."""

    at: datetime
    full_state: ThreadState
    handoffs: list[HandoffNode]

    @property
    def state(self) -> ThreadState:
        """The state as history can tell it: a provider thread's reported usage and what
        it holds are kept only as they are now (resolvers/past/as_of.py)."""
        pts = [pt.model_copy(update=NOW_ONLY) for pt in self.full_state.providerThreads]
        return self.full_state.model_copy(update={"providerThreads": pts})


NOW_ONLY = {"contextUsage": None, "heldTokens": 0}


class TimedScenario(Scenario):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stored: dict[str, list[str]] = {
            self.thread.id: [history.entry(T0, history.tracked("thread", dict(self.thread)))]
        }
        self.moments: list[Moment] = []

    def timeline(self) -> Timeline:
        def versioned(node: Any) -> Versioned[Any]:
            return Versioned(node, history.parse(self.stored.get(node.id)))

        return Timeline(
            thread=versioned(self.thread),
            runs=tuple(versioned(r) for r in self._ordered_runs()),
            providerThreads=tuple(versioned(pt) for pt in self.provider_threads.values()),
            handoffs=tuple(versioned(h) for h in self.handoffs.values()),
            transfersIn=(),
            transfersOut=(),
        )

    def _replay(self, plan: WritePlan) -> None:
        assert plan.at is not None
        for kind, nodes in (
            ("providerThread", plan.providerThreads),
            ("handoff", plan.handoffs),
            ("run", plan.runs),
        ):
            for node in nodes:
                self._entry(kind, node.id, plan.at, dict(node))  # type: ignore[arg-type]
        self._changed("thread", plan.threadChanges, {self.thread.id: self.thread}, plan.at)
        self._changed("providerThread", plan.providerThreadChanges, self.provider_threads, plan.at)
        self._changed("run", plan.runChanges, self.runs, plan.at)
        self._changed("handoff", plan.handoffChanges, self.handoffs, plan.at)
        super()._replay(plan)
        self.moments.append(Moment(plan.at, self.state, list(self.handoffs.values())))

    def _changed(
        self, kind: NodeKind, changes: Sequence[NodeChange], nodes: dict[str, Any], at: datetime
    ) -> None:
        """An entry only where a tracked value really changes (as plan/apply.cypher does)."""
        for change in changes:
            kept = history.tracked(kind, change.props)
            if any(getattr(nodes[change.id], k) != v for k, v in kept.items()):
                self.stored[change.id].append(history.entry(at, kept))

    def _entry(self, kind: NodeKind, ident: str, at: datetime, values: dict[str, Any]) -> None:
        self.stored.setdefault(ident, []).append(history.entry(at, history.tracked(kind, values)))
