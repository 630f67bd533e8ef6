"""Choosing a summary source, and the request another summarizer gets (pure)."""

from __future__ import annotations

import pytest

from api.commands.summarizer_client import chat_completions_url
from graph.errors import ErrorCode, ThreadlineError
from graph.models import (
    DigestItem,
    HandoffKind,
    HandoffStrategy,
    RunDigest,
    RunItem,
    RunItemKind,
    RunStatus,
    SummarySource,
)
from resolvers.handoffs.planning import plan_handoff
from resolvers.handoffs.requests import SummaryMaterial, refusal, request_for, summary_key
from resolvers.handoffs.sources import (
    LOCAL,
    MODEL_SETTING,
    URL_SETTING,
    SummaryPolicy,
    assign,
    chosen,
    require_available,
)
from tests.support.scenario import Scenario

CONFIGURED = SummaryPolicy(endpoint=True, model="tiny", name="local-llm")


def test_the_call_wins_then_the_provider_then_the_default() -> None:
    registry = Scenario().registry
    claude = registry.get("claude").model_copy(
        update={"summary_source": SummarySource.ENTERING_PROVIDER}
    )
    default = SummaryPolicy(default=SummarySource.LEAVING_PROVIDER)
    assert chosen(SummarySource.LOCAL, claude, default) is SummarySource.LOCAL
    assert chosen(None, claude, default) is SummarySource.ENTERING_PROVIDER
    assert chosen(None, registry.get("codex"), default) is SummarySource.LEAVING_PROVIDER
    assert chosen(None, registry.get("codex"), SummaryPolicy()) is SummarySource.LOCAL


@pytest.mark.parametrize(
    ("policy", "setting"),
    [(SummaryPolicy(), URL_SETTING), (SummaryPolicy(endpoint=True), MODEL_SETTING)],
)
def test_configured_without_a_summarizer_is_refused_naming_the_setting(
    policy: SummaryPolicy, setting: str
) -> None:
    with pytest.raises(ThreadlineError) as refused:
        require_available(SummarySource.CONFIGURED, policy)
    assert refused.value.code is ErrorCode.INVALID_INPUT and setting in refused.value.message
    require_available(SummarySource.LEAVING_PROVIDER, SummaryPolicy())  # needs no setting


def writer(source: SummarySource) -> str | None:
    """Runs 1-2 on codex, 3 on claude: who writes the summary a return to codex needs."""
    scenario = Scenario()
    for provider in ("codex", "codex", "claude"):
        scenario.run(provider)
    decision = scenario.decide("codex")
    state = scenario.state
    [assignment] = assign(
        decision.handoffs, source, decision.provider, {state.thread.id: state}, CONFIGURED
    )
    if assignment.request is None:
        assert assignment == LOCAL
        return None
    return assignment.request.provider


def test_the_leaving_provider_is_the_one_of_the_latest_covered_run() -> None:
    assert writer(SummarySource.LEAVING_PROVIDER) == "claude"
    assert writer(SummarySource.ENTERING_PROVIDER) == "codex"
    assert writer(SummarySource.CONFIGURED) == "local-llm"
    assert writer(SummarySource.LOCAL) is None


def test_a_handoff_of_no_run_is_always_local() -> None:
    """A subagent's result or a bare task are the caller's own words: nothing to summarise."""
    codex = Scenario().registry.get("codex")
    plans = [
        plan_handoff(
            "t",
            [digest(1)],
            codex,
            HandoffStrategy.MANUAL_CONTEXT,
            HandoffKind.DELTA_CONTEXT,
            subagent_results=["done"],
            results_only=True,
        ),
        plan_handoff(
            "t",
            [],
            codex,
            HandoffStrategy.FULL_THREAD_SUMMARY,
            HandoffKind.PORTABLE_CONTEXT,
            task="port it",
        ),
    ]
    for source in SummarySource:
        assert assign(plans, source, codex, {}, CONFIGURED) == [LOCAL, LOCAL]


def digest(ordinal: int, *items: RunItem, pt: str = "pth_a") -> RunDigest:
    return RunDigest(
        ordinal=ordinal,
        status=RunStatus.COMPLETED,
        input=f"run {ordinal}",
        providerThreadId=pt,
        items=[DigestItem(**item.model_dump(), index=n) for n, item in enumerate(items)],
    )


def test_the_material_drops_superseded_output_and_ids() -> None:
    old = RunItem(kind=RunItemKind.TOOL_OUTPUT, key="build", text="failed")
    new = RunItem(kind=RunItemKind.TOOL_OUTPUT, key="build", text="passed")
    other = RunItem(kind=RunItemKind.TOOL_OUTPUT, key="lint", text="clean")
    wire = SummaryMaterial(title="t", runs=[digest(2, new), digest(1, old, other)]).wire()
    assert [run["ordinal"] for run in wire["runs"]] == [1, 2]
    assert [[i["text"] for i in run["items"]] for run in wire["runs"]] == [["clean"], ["passed"]]
    assert all("providerThreadId" not in run for run in wire["runs"])


def test_the_key_follows_the_material_and_the_model_not_the_ids() -> None:
    here = SummaryMaterial(title="t", runs=[digest(1, pt="pth_a")])
    there = SummaryMaterial(title="t", runs=[digest(1, pt="pth_b")])
    other = SummaryMaterial(title="t", runs=[digest(2)])
    assert summary_key("i", here, "m") == summary_key("i", there, "m")
    assert summary_key("i", here, "m") != summary_key("i", other, "m")
    assert summary_key("i", here, "m") != summary_key("i", here, "n")
    assert summary_key("i", here, "m") != summary_key("j", here, "m")
    request = request_for("hnd_1", SummarySource.CONFIGURED, "x", "codex", here, 100, "m")
    assert "100 tokens" in request.instructions and "t" in request.instructions


def test_an_answer_must_have_text_within_the_budget() -> None:
    assert refusal(None, 10) == refusal("  \n", 10) == "empty: the answer has no text"
    words = " ".join(["word"] * 10)  # ten tokens
    assert refusal(words, 10) is None
    reason = refusal(words + " word", 10)
    assert reason is not None and reason.startswith("oversized: the answer is about 11 tokens")


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:11434/v1",
        "http://localhost:11434/v1/",
        "http://localhost:11434/v1/chat/completions",
    ],
)
def test_a_base_url_or_the_endpoint_itself(url: str) -> None:
    assert chat_completions_url(url) == "http://localhost:11434/v1/chat/completions"
