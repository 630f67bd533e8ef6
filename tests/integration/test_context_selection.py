"""What a budget keeps: protected items always, the rest newest first; what it leaves out
is listed and readable with Thread.items; protected items that fit no thread are
CONTEXT_TOO_LARGE; every handoff is graded, whoever wrote it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from graph.store import Store
from tests.support.graphql import GraphQLClient, with_claude_cap
from tests.support.steps import ATTACH, new_thread, run_once

QUALITY = "quality { score facets { kind kept total missing } }"
START = f"""mutation($t: ID!, $p: String!) {{
  startRun(threadId: $t, provider: $p, input: "carry on") {{
    run {{ id }} providerThread {{ id nativeRef }}
    handoffs {{ id summaryText tokenEstimate budget {{ budgetTokens }}
      omitted {{ runOrdinal index kind key path tokenEstimate cut }} {QUALITY} }} }} }}"""
EXPLAIN = """query($t: ID!, $p: String!) {
  explainStartContext(threadId: $t, provider: $p) { omittedCount tokenEstimate } }"""
ITEMS = """query($t: ID!, $first: Int, $after: String, $kinds: [RunItemKind!], $runs: [Int!]) {
  thread(id: $t) { items(first: $first, after: $after, kinds: $kinds, runOrdinals: $runs) {
    edges { cursor node { runId runOrdinal index kind text key path attributes } }
    pageInfo { hasNextPage endCursor } } } }"""
SUBMIT = f"""mutation($id: ID!, $text: String!) {{
  submitHandoffSummary(handoffId: $id, summaryText: $text, createdByProvider: "codex") {{
    id summarySource {QUALITY} }} }}"""
FOOTPRINT = """query($t: ID!) { thread(id: $t) {
  runs(includeRolledBack: true) { id } providerThreads { id } } events(threadId: $t) { id } }"""

CAP = 400  # claude's cap on one handoff here: far less than the runs below hold


@pytest.fixture
async def small(clean_store: Store, tmp_path: Path) -> AsyncIterator[GraphQLClient]:
    async with with_claude_cap(clean_store, tmp_path, CAP) as client:
        yield client


def item(kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "text": text, **extra}


async def busy_thread(gql: GraphQLClient) -> str:
    """Eight codex runs: the first states a goal and a constraint, every one runs many
    long commands and ends with a reply."""
    thread = await new_thread(gql)
    for n in range(1, 9):
        items = [item("COMMAND", f"make step-{n}-{k} " + "x" * 120) for k in range(6)]
        items.append(item("ASSISTANT_MESSAGE", f"Reply {n}: done with step {n}"))
        if n == 1:
            items[:0] = [
                item("USER_GOAL", "Ship the invoice exporter"),
                item("CONSTRAINT", "Never change the public schema"),
            ]
        if n == 3:
            items.append(item("FILE_CHANGE", "@@", path="billing/export.py"))
        await run_once(gql, thread, "codex", f"Step {n} of the exporter", items=items)
    return thread


async def started(gql: GraphQLClient, thread: str, provider: str) -> Any:
    found = (await gql(START, t=thread, p=provider))["startRun"]
    if found["providerThread"]["nativeRef"] is None:
        await gql(ATTACH, id=found["providerThread"]["id"], ref=f"n-{thread}")
    return found


async def all_items(gql: GraphQLClient, thread: str, page: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    after = None
    while True:
        items = (await gql(ITEMS, t=thread, first=page, after=after))["thread"]["items"]
        found.extend(edge["node"] for edge in items["edges"])
        if not items["pageInfo"]["hasNextPage"]:
            return found
        after = items["pageInfo"]["endCursor"]


async def test_protected_items_survive_a_budget_that_fits_nothing_else(
    small: GraphQLClient,
) -> None:
    gql = small
    thread = await busy_thread(gql)
    explained = (await gql(EXPLAIN, t=thread, p="claude"))["explainStartContext"]
    (handoff,) = (await started(gql, thread, "claude"))["handoffs"]
    text = handoff["summaryText"]
    assert handoff["tokenEstimate"] <= handoff["budget"]["budgetTokens"] == CAP
    for kept in (
        "Goal: Ship the invoice exporter",
        "Constraint: Never change the public schema",
        "Run 1 asked: Step 1 of the exporter",
        "Run 8 asked: Step 8 of the exporter",
        "Reply 8: done with step 8",
    ):
        assert kept in text
    assert "make step-8-5" in text and "make step-1-0" not in text  # newest first
    omitted = handoff["omitted"]
    kinds = {o["kind"] for o in omitted}
    assert omitted and kinds <= {"COMMAND", "USER_GOAL", "FILE_CHANGE", "ASSISTANT_MESSAGE"}
    cut = sum(1 for o in omitted if o["cut"])
    shortened = f" ({cut} shown shortened)" if cut else ""
    assert text.rstrip().endswith(
        f"{len(omitted)} items of the covered runs are not shown whole here{shortened}; "
        "Thread.items (or the MCP tool thread_read) returns each whole."
    )
    assert explained["omittedCount"] == len(omitted)


async def test_omitted_items_are_the_thread_items_at_their_places(small: GraphQLClient) -> None:
    gql = small
    thread = await busy_thread(gql)
    (handoff,) = (await started(gql, thread, "claude"))["handoffs"]
    every = await all_items(gql, thread, page=7)
    assert [(i["runOrdinal"], i["index"]) for i in every] == sorted(
        (i["runOrdinal"], i["index"]) for i in every
    )
    # Each run's input (index -1; run 9, in progress, has only its input), the eight runs'
    # seven items, run 1's goal and constraint, run 3's file.
    assert len(every) == 9 + 8 * 7 + 2 + 1
    assert len({(i["runId"], i["index"]) for i in every}) == len(every)
    at = {(i["runOrdinal"], i["index"]): i for i in every}
    for left in handoff["omitted"]:
        found = at[(left["runOrdinal"], left["index"])]
        assert (found["kind"], found["key"], found["path"]) == (
            left["kind"],
            left["key"],
            left["path"],
        )
        assert found["text"] not in handoff["summaryText"]
    commands = (await gql(ITEMS, t=thread, first=50, kinds=["COMMAND"], runs=[2, 3]))["thread"]
    assert {(i["node"]["runOrdinal"], i["node"]["kind"]) for i in commands["items"]["edges"]} == {
        (2, "COMMAND"),
        (3, "COMMAND"),
    }
    assert len(commands["items"]["edges"]) == 12


async def test_protected_items_that_fit_no_thread_are_refused_and_nothing_is_written(
    small: GraphQLClient,
) -> None:
    gql = small
    thread = await new_thread(gql)
    # Each line is at most 400 characters (100 tokens): six constraints need more than CAP.
    rules = [item("CONSTRAINT", f"Rule {k}: " + "never do this " * 40) for k in range(6)]
    await run_once(gql, thread, "codex", "set the rules", items=rules)
    before = await gql(FOOTPRINT, t=thread)
    error = await gql.refused("CONTEXT_TOO_LARGE", START, t=thread, p="claude")
    assert f"the budget is {CAP}" in error["message"] and "window 200000" in error["message"]
    assert await gql(FOOTPRINT, t=thread) == before


async def test_every_handoff_is_graded_whoever_wrote_it(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(
        gql,
        thread,
        "codex",
        "Export invoices as CSV",
        items=[
            item("DECISION", "Stream rows through the csv module"),
            item("FILE_CHANGE", "@@", path="billing/export.py"),
            item("FILE_CHANGE", "@@", path="billing/format.py"),
        ],
    )
    (local,) = (await started(gql, thread, "claude"))["handoffs"]
    assert local["quality"]["score"] == 1.0
    text = "Export invoices as CSV; stream rows through the csv module; edited billing/export.py."
    submitted = (await gql(SUBMIT, id=local["id"], text=text))["submitHandoffSummary"]
    files = next(f for f in submitted["quality"]["facets"] if f["kind"] == "FILE_CHANGE")
    assert (files["kept"], files["total"], files["missing"]) == (1, 2, ["billing/format.py"])
    assert submitted["quality"]["score"] < 1.0
