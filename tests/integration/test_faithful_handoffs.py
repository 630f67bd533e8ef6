"""Faithful handoffs on the real service: an imported session's every assistant message is
shown whole or listed; the start's decision and the budget agree on what fits; control
characters never reach a handoff; whoever writes the text, what it does not show whole is
listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import ATTACH, new_thread, run_once

SESSIONS = Path(__file__).parent.parent / "fixtures" / "sessions"
HANDOFF = """id summaryText tokenEstimate budget { budgetTokens }
  omitted { runOrdinal index kind cut tokenEstimate }
  entries { section text runOrdinal index kind cut }
  quality { score fidelity }"""
START = f"""mutation($t: ID!, $p: String!, $i: String!) {{
  startRun(threadId: $t, provider: $p, input: $i) {{
    strategy stalenessSignals run {{ id }} providerThread {{ id nativeRef }}
    handoffs {{ {HANDOFF} }} }} }}"""
EXPLAIN = """query($t: ID!, $p: String!) {
  explainStartContext(threadId: $t, provider: $p) { strategy tokenEstimate
    budget { budgetTokens } } }"""
IMPORT = """mutation($content: String!) {
  importSession(format: CLAUDE_CODE_JSONL, content: $content) { thread { id } importedRuns } }"""
ITEMS = """query($t: ID!, $kinds: [RunItemKind!]) { thread(id: $t) {
  items(first: 200, kinds: $kinds) { edges { node { runOrdinal index kind text } } } } }"""
USAGE = """mutation($p: ID!, $used: Int!, $window: Int!) {
  reportContextUsage(providerThreadId: $p,
    usage: {contextTokens: $used, contextWindowTokens: $window}) { id } }"""
SUBMIT = f"""mutation($id: ID!, $text: String!) {{
  submitHandoffSummary(handoffId: $id, summaryText: $text, createdByProvider: "codex") {{
    {HANDOFF} }} }}"""
THREAD_PT = """query($t: ID!) { thread(id: $t) { providerThreads { id provider } } }"""
WINDOW = 100_000
RESERVE = 25_000  # a quarter of the window: more than the least reserve


async def start(gql: GraphQLClient, thread: str, provider: str, said: str = "go on") -> Any:
    found = (await gql(START, t=thread, p=provider, i=said))["startRun"]
    if found["providerThread"]["nativeRef"] is None:
        await gql(ATTACH, id=found["providerThread"]["id"], ref=f"n-{provider}-{thread}")
    return found


def whole(text: str) -> str:
    """White space folded within each line, as a handoff shows an item whole."""
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).strip("\n")


def shown_whole(handoff: dict[str, Any], text: str) -> bool:
    return any(whole(text) in entry["text"] for entry in handoff["entries"] if not entry["cut"])


async def test_an_imported_sessions_every_assistant_message_is_shown_or_listed(
    gql: GraphQLClient,
) -> None:
    content = (SESSIONS / "claude_code.jsonl").read_text()
    imported = (await gql(IMPORT, content=content))["importSession"]
    thread = imported["thread"]["id"]
    replies = (await gql(ITEMS, t=thread, kinds=["ASSISTANT_MESSAGE"]))["thread"]["items"]
    messages = [edge["node"] for edge in replies["edges"]]
    assert len(messages) >= 2
    (handoff,) = (await start(gql, thread, "codex"))["handoffs"]
    listed = {(o["runOrdinal"], o["index"]) for o in handoff["omitted"]}
    for message in messages:
        place = (message["runOrdinal"], message["index"])
        assert shown_whole(handoff, message["text"]) or place in listed, message
    # The default budget holds this session whole: nothing is left out, fidelity 1.0.
    assert handoff["omitted"] == [] and handoff["quality"]["fidelity"] == 1.0
    assert "\n".join(e["text"] for e in handoff["entries"]) == handoff["summaryText"]
    assert any(e["section"] == "Conversation" for e in handoff["entries"])


async def test_a_delta_that_fits_the_room_left_is_sent_at_the_boundary(
    gql: GraphQLClient,
) -> None:
    """The start's decision and the budget measure "fits" the same way: with room for the
    delta whole it is sent; one token less, the ladder moves to a new thread (never
    CONTEXT_TOO_LARGE when a handoff could be sent)."""
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex", "Write the exporter")
    await run_once(
        gql,
        thread,
        "claude",
        "Add the CSV header",
        items=[
            {"kind": "DECISION", "text": "Quote every field"},
        ],
    )
    pts = (await gql(THREAD_PT, t=thread))["thread"]["providerThreads"]
    codex = next(pt["id"] for pt in pts if pt["provider"] == "codex")
    await gql(USAGE, p=codex, used=0, window=WINDOW)
    roomy = (await gql(EXPLAIN, t=thread, p="codex"))["explainStartContext"]
    assert roomy["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    delta = roomy["tokenEstimate"]
    await gql(USAGE, p=codex, used=WINDOW - RESERVE - (delta - 1), window=WINDOW)
    short = (await gql(EXPLAIN, t=thread, p="codex"))["explainStartContext"]
    assert short["strategy"] == "FULL_HANDOFF_NEW_THREAD", short  # a new thread has room
    await gql(USAGE, p=codex, used=WINDOW - RESERVE - delta, window=WINDOW)
    started = await start(gql, thread, "codex")
    assert started["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    (handoff,) = started["handoffs"]
    assert handoff["tokenEstimate"] <= handoff["budget"]["budgetTokens"] == delta
    assert "Quote every field" in handoff["summaryText"] and handoff["omitted"] == []


async def test_control_characters_never_reach_a_handoff(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    output = "collected 3 items\x00\n\x1b[31mFAILED\x1b[0m test_nul\r\n\x07done"
    await run_once(
        gql,
        thread,
        "codex",
        "Run the\x00 tests",
        items=[
            {"kind": "TOOL_OUTPUT", "key": "call-1", "text": output},
            {"kind": "ASSISTANT_MESSAGE", "text": "One test\x1b[1m fails\x1b[0m."},
        ],
    )
    (handoff,) = (await start(gql, thread, "claude"))["handoffs"]
    text = handoff["summaryText"]
    assert "collected 3 items\nFAILED test_nul\ndone" in text
    assert "Run 1 asked: Run the tests" in text and "One test fails." in text
    for said in [text, *(e["text"] for e in handoff["entries"])]:
        assert not any(ord(c) < 32 and c not in "\n\t" for c in said), said


async def test_a_submitted_text_lists_what_it_does_not_show_whole(gql: GraphQLClient) -> None:
    """Whoever writes it: items shown whole, omitted and never included are the covered
    items, so a provider's shorter text lists the messages it dropped."""
    thread = await new_thread(gql)
    await run_once(
        gql,
        thread,
        "codex",
        "Find the slow query",
        items=[
            {"kind": "ASSISTANT_MESSAGE", "text": "The report query scans every invoice."},
            {"kind": "DECISION", "text": "Add an index on invoices(customer_id)"},
            {"kind": "REASONING", "text": "hidden"},
        ],
    )
    (handoff,) = (await start(gql, thread, "claude"))["handoffs"]
    text = (
        "# Context\n- Run 1 asked: Find the slow query\n"
        "- Decision: Add an index on invoices(customer_id)\n"
    )
    replaced = (await gql(SUBMIT, id=handoff["id"], text=text))["submitHandoffSummary"]
    omitted = {(o["runOrdinal"], o["index"], o["kind"]) for o in replaced["omitted"]}
    assert omitted == {(1, 0, "ASSISTANT_MESSAGE")}  # the reasoning is never material
    assert 0 < replaced["quality"]["fidelity"] < 1
    assert replaced["quality"]["score"] == 1.0  # the request and the decision are carried
    decision = next(e for e in replaced["entries"] if "Add an index" in e["text"])
    assert (decision["runOrdinal"], decision["index"], decision["kind"]) == (1, 1, "DECISION")
