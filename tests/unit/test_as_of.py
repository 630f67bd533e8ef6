"""The past rebuilt from histories (resolvers/past/as_of.py) is the state each command left.

A `TimedScenario` drives the pure plans, keeps histories as the store writes them and
the state after each command; rebuilding the thread as of each of those instants must
give that state back exactly, and so the same coverage and the same next decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.models import HandoffNode, HistoryMode, RunStatus
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers.coverage import coverage
from resolvers.past.as_of import Instant, past
from tests.support.scenario import T0
from tests.support.timeline import TimedScenario


def coverage_table(
    state: ThreadState, handoffs: Iterable[HandoffNode]
) -> dict[str, tuple[list[int], list[int], list[str]]]:
    """Each provider thread's covered and missing runs and the handoffs counted."""
    table = {}
    for pt in state.providerThreads:
        cov = coverage(pt, state.history, handoffs)
        table[pt.id] = (list(cov.covered), list(cov.missing), cov.handoffIds)
    return table


def assert_rebuilds(sc: TimedScenario) -> None:
    timeline = sc.timeline()
    for moment in sc.moments:
        rebuilt = past(timeline, Instant(moment.at))
        assert rebuilt is not None
        assert rebuilt.state == moment.state, moment.at
        assert sorted(rebuilt.handoffs, key=lambda h: h.id) == sorted(
            moment.handoffs, key=lambda h: h.id
        )
        cov = rebuilt.coverage_state()
        assert coverage_table(cov, cov.handoffs) == coverage_table(moment.state, moment.handoffs)
        # Nothing changes between two commands.
        later = past(timeline, Instant(moment.at + timedelta(milliseconds=500)))
        assert later is not None and later.state == moment.state
    assert past(timeline, Instant(T0 - timedelta(seconds=1))) is None


def canonical() -> TimedScenario:
    sc = TimedScenario(history=HistoryMode.LEGACY)
    for provider in ["codex"] * 5 + ["claude"] * 3 + ["codex"]:
        sc.run(provider)
    return sc


def test_the_canonical_example_then_a_rollback() -> None:
    sc = canonical()
    sc.rollback(5)
    sc.run("codex")
    sc.run("claude")
    assert_rebuilds(sc)


def test_a_run_in_progress_is_not_history_as_of_then() -> None:
    sc = canonical()
    timeline = sc.timeline()
    run_9 = next(r for r in sc.runs.values() if r.ordinal == 9)
    assert run_9.completedAt == sc.moments[-1].at
    during = past(timeline, Instant(run_9.startedAt))
    assert during is not None
    run = during.run(9)
    assert run is not None and run.status in (RunStatus.STARTING, RunStatus.RUNNING)
    assert run.completedAt is None and run.items == []
    assert 9 not in during.state.history
    before = past(timeline, Instant(run_9.startedAt, before=True))
    assert before is not None and before.run(9) is None and before.state.thread.lastOrdinal == 8


STEP = st.one_of(
    st.tuples(
        st.just("run"),
        st.sampled_from(["codex", "claude"]),
        st.booleans(),
        st.sampled_from([None, None, "plan"]),  # another mode retires the provider thread
    ),
    st.tuples(
        st.just("rollback"), st.integers(min_value=0, max_value=12), st.just(False), st.none()
    ),
    st.tuples(st.just("clean"), st.just(""), st.just(False), st.none()),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=14), st.sampled_from(list(HistoryMode)))
def test_any_sequence_of_commands_is_rebuilt_at_every_instant(
    steps: list[tuple[str, object, bool, str | None]], mode: HistoryMode
) -> None:
    sc = TimedScenario(history=mode)
    for kind, arg, failed, runtime_mode in steps:
        if kind == "run":
            status = RunStatus.FAILED if failed else RunStatus.COMPLETED
            sc.run(str(arg), runtime_mode=runtime_mode, status=status)
        elif kind == "rollback":
            sc.rollback(min(int(str(arg)), sc.thread.lastOrdinal))
        else:
            sc.request_clean_context()
    assert_rebuilds(sc)
    assert Ranges.unflatten(sc.thread.rolledBack) == sc.thread.rolled_back
