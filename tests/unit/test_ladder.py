"""The strategy ladder and the staleness signals, decided without a database."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    SETTLED,
    ContextUsage,
    HistoryMode,
    ProviderThreadStatus,
    RunItem,
    RunItemKind,
    RunStatus,
    StalenessSignal,
    StartStrategy,
)
from graph.ranges import Ranges
from resolvers.content import Content
from resolvers.coverage import coverage
from resolvers.providers import registry_from_toml
from resolvers.start.decision import StartRequest, decide_start
from resolvers.start.staleness import StalenessPolicy
from tests.support.scenario import Scenario

S = StartStrategy
Sig = StalenessSignal


def test_first_run_creates_without_handoff() -> None:
    decision = Scenario().decide("codex")
    assert (decision.strategy, decision.providerAction.value) == (S.NO_HANDOFF, "CREATE")
    assert decision.handoffs == [] and decision.context_text is None


def test_canonical_coverage() -> None:
    sc = Scenario()
    for _ in range(5):
        sc.run("codex")
    assert sc.run("claude").strategy is S.FULL_HANDOFF_NEW_THREAD
    assert [sc.run("claude").providerAction.value for _ in range(2)] == ["CONTINUE", "CONTINUE"]
    nine = sc.run("codex")
    assert nine.strategy is S.DELTA_HANDOFF_EXISTING_THREAD
    assert (nine.handoffs[0].coveredFrom, nine.handoffs[0].coveredTo) == (6, 8)
    state = sc.state
    c1, l1 = state.providerThreads
    assert list(coverage(c1, state.history, state.handoffs).native) == [1, 2, 3, 4, 5, 9]
    assert list(coverage(l1, state.history, state.handoffs).missing) == [9]


def test_resume_when_covered_but_not_previous() -> None:
    sc = Scenario()
    sc.run("codex")
    sc.run("claude")
    sc.run("codex")  # delta: codex now covers 1-3
    decision = sc.decide("codex")
    assert decision.providerAction.value == "CONTINUE"
    sc.run("codex")
    # claude thread misses 3-4 → delta; after it, a claude run without gap resumes cleanly
    assert sc.run("claude").strategy is S.DELTA_HANDOFF_EXISTING_THREAD


def test_delta_chain_too_long_gives_full_summary_on_existing_thread() -> None:
    sc = Scenario(policy=StalenessPolicy(max_delta_chain=2))
    sc.run("codex")
    sc.run("claude")
    strategies = []
    for provider in ["codex", "claude"] * 3:
        strategies.append(sc.run(provider).strategy)
    assert strategies[:4] == [S.DELTA_HANDOFF_EXISTING_THREAD] * 4
    assert strategies[4:] == [S.FULL_HANDOFF_EXISTING_THREAD] * 2


def test_too_many_off_provider_runs() -> None:
    sc = Scenario(policy=StalenessPolicy(max_off_provider_runs=2))
    sc.run("codex")
    for _ in range(3):
        sc.run("claude")
    decision = sc.decide("codex")
    assert decision.stalenessSignals == [Sig.TOO_MANY_OFF_PROVIDER_RUNS]
    assert decision.strategy is S.FULL_HANDOFF_NEW_THREAD
    assert decision.staleProviderThreadIds == [sc.state.providerThreads[0].id]


def test_too_many_chained_handoffs() -> None:
    sc = Scenario(policy=StalenessPolicy(max_chained_handoffs=2, max_delta_chain=10))
    sc.run("codex")
    for provider in ["claude", "codex", "claude", "codex", "claude"]:
        sc.run(provider)
    assert Sig.TOO_MANY_CHAINED_HANDOFFS in sc.decide("codex").stalenessSignals


def test_incompatible_runtime_mode_but_model_change_is_fine() -> None:
    sc = Scenario()
    sc.run("codex", runtime_mode="sandbox")
    assert sc.decide("codex", "full-access").stalenessSignals == [Sig.INCOMPATIBLE_SETTINGS]
    assert sc.decide("codex", None).stalenessSignals == []
    assert sc.decide("codex", "sandbox").strategy is S.NO_HANDOFF


def test_clean_context_requested() -> None:
    sc = Scenario()
    sc.run("codex")
    sc.request_clean_context()
    decision = sc.decide("codex")
    assert decision.stalenessSignals == [Sig.CLEAN_CONTEXT_REQUESTED]
    assert decision.strategy is S.FULL_HANDOFF_NEW_THREAD
    sc.run("codex")
    assert sc.decide("codex").stalenessSignals == []  # the flag clears when a run starts


def test_exceeds_context_policy() -> None:
    """A native thread too full for what it missed moves to a new one, budgeted as new."""
    sc = Scenario()
    sc.run("codex")
    sc.run("claude", RunItem(kind=RunItemKind.CONSTRAINT, text="keep " * 60))
    codex = next(pt for pt in sc.provider_threads.values() if pt.provider == "codex")
    usage = ContextUsage(contextTokens=272_000 - 68_000 - 20, reportedAt=codex.createdAt)
    sc.provider_threads[codex.id] = codex.model_copy(update={"contextUsage": usage})
    decision = sc.decide("codex")
    assert Sig.EXCEEDS_CONTEXT_POLICY in decision.stalenessSignals
    assert decision.strategy is S.FULL_HANDOFF_NEW_THREAD
    assert decision.budget is not None and decision.budget.usedTokens == 0
    assert "keep keep" in decision.handoffs[0].summary.text


def test_context_too_large_when_protected_items_fit_no_thread() -> None:
    toml = "[providers.tiny]\nmax_handoff_tokens = 60\n"
    sc = Scenario(registry=registry_from_toml(toml))
    sc.run("codex", RunItem(kind=RunItemKind.CONSTRAINT, text="c" * 400))
    with pytest.raises(ThreadlineError) as refused:
        sc.decide("tiny")
    assert refused.value.code is ErrorCode.CONTEXT_TOO_LARGE
    assert "budget is 60" in refused.value.message


def test_a_decision_lacking_runs_is_refused_for_size_only_once_it_has_them() -> None:
    """Its caller loads the runs a decision lacked and decides again: a refusal before
    that would name the protected tokens of a text without those runs' items."""
    sc = Scenario(registry=registry_from_toml("[providers.tiny]\nmax_handoff_tokens = 1\n"))
    sc.run("codex", RunItem(kind=RunItemKind.CONSTRAINT, text="c" * 400))
    lacking = Content()
    decide_start(
        sc.state, StartRequest(provider="tiny", input="x"), sc.registry, sc.policy, lacking
    )
    assert lacking.take_missing()  # it asked for run 1, and did not refuse without it
    with pytest.raises(ThreadlineError) as refused:
        sc.decide("tiny")
    protected = re.search(r"it takes about (\d+) tokens", refused.value.message)
    assert protected is not None and int(protected.group(1)) >= 100  # the 400-char constraint


def test_resume_failed_and_divergent_are_reported() -> None:
    sc = Scenario(history=HistoryMode.PAGINATED)
    sc.run("codex")
    sc.run("claude")
    sc.rollback(1)
    codex, claude = sc.state.providerThreads
    assert claude.status is ProviderThreadStatus.DIVERGENT
    decision = sc.decide("claude")
    assert decision.stalenessSignals == [Sig.ROLLED_BACK_OR_DIVERGENT]
    sc.provider_threads[codex.id] = codex.model_copy(update={"status": ProviderThreadStatus.FAILED})
    assert sc.decide("codex").stalenessSignals == [Sig.RESUME_FAILED]


def test_unsupported_transfer_is_refused() -> None:
    sc = Scenario(registry=registry_from_toml("[providers.mute]\naccepts_handoff = false\n"))
    assert sc.decide("mute").strategy is S.NO_HANDOFF  # nothing to transfer yet
    sc.run("codex")
    with pytest.raises(ThreadlineError) as error:
        sc.decide("mute")
    assert error.value.code is ErrorCode.UNSUPPORTED_TRANSFER


def test_unknown_provider_and_busy_thread() -> None:
    sc = Scenario()
    with pytest.raises(ThreadlineError) as error:
        sc.decide("gemini")
    assert error.value.code is ErrorCode.INVALID_INPUT
    sc.run("codex", status=RunStatus.RUNNING)
    with pytest.raises(ThreadlineError) as busy:
        sc.decide("codex")
    assert busy.value.code is ErrorCode.CONFLICT


steps = st.lists(
    st.one_of(
        st.tuples(st.just("run"), st.sampled_from(["codex", "claude"])),
        st.tuples(st.just("rollback"), st.integers(min_value=0, max_value=12)),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(steps, st.sampled_from([HistoryMode.LEGACY, HistoryMode.PAGINATED]))
def test_any_sequence_keeps_coverage_honest(
    ops: list[tuple[str, object]], mode: HistoryMode
) -> None:
    sc = Scenario(history=mode)
    for op, arg in ops:
        if op == "rollback":
            sc.rollback(min(int(str(arg)), sc.thread.lastOrdinal))
        else:
            # A start decides the same without the settled provider threads the state
            # read leaves out (cypher/thread/state.cypher, `trimmed`).
            for provider in ("codex", "claude"):
                assert sc.decide(provider, trimmed=True) == sc.decide(provider)
            sc.run(str(arg))
            state = sc.state
            assert state.lastRun is not None
            chosen = state.provider_thread(state.lastRun.providerThreadId)
            assert chosen is not None
            # once its handoff is applied, the provider thread that ran covers every run
            assert not coverage(chosen, state.history, state.handoffs).missing
        state = sc.state
        history = Ranges.of(r.ordinal for r in sc.history_runs())
        assert state.history == history
        for pt in state.providerThreads:
            covered = coverage(pt, state.history, state.handoffs).covered
            assert covered - history == Ranges()  # never a rolled-back run
            # What the plans maintain is what the definitions say.
            assert pt.native == sc.native(pt.id)
            if pt.status not in SETTLED:  # only a reusable provider thread continues one
                assert state.deltaChains.get(pt.id, 0) == sc.delta_chain(pt.id)
