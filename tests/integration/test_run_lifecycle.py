"""Start failures, handoff regeneration and submission, clean context, explain, events."""

from __future__ import annotations

from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import ATTACH, COMPLETE, coverage_by_pt, new_thread, run_once, start

FAIL_START = """
mutation($id: ID!, $reason: String!) {
  reportStartFailure(runId: $id, reason: $reason) {
    run { id ordinal status } strategy providerAction stalenessSignals
    providerThread { id status } handoffs { id coveredRunOrdinals { from to } }
  }
}
"""

HANDOFF = """
query($id: ID!) { handoff(id: $id) {
  id status summaryText createdByProvider tokenEstimate sections { title lines }
  supersededBy { id status createdByProvider summaryText }
  targetRun { ordinal } toProviderThread { id } sourceThread { id } thread { id }
} }
"""

EXPLAIN = """
query($id: ID!, $provider: String!) {
  explainStartContext(threadId: $id, provider: $provider) {
    strategy providerAction providerThread { id } handoffStrategies coveredRunOrdinals
    tokenEstimate stalenessSignals explanation
  }
}
"""


async def test_report_start_failure_moves_the_run_to_a_new_thread(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    first = await run_once(gql, thread, "codex")
    await run_once(gql, thread, "claude")
    resumed = await start(gql, thread, "codex", "resume please")
    assert resumed["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    old_handoff = resumed["handoffs"][0]["id"]

    again = await gql(FAIL_START, id=resumed["run"]["id"], reason="resume 404")
    result = again["reportStartFailure"]
    assert result["run"] == {**resumed["run"], "status": "STARTING"}
    assert (result["strategy"], result["providerAction"]) == ("FULL_HANDOFF_NEW_THREAD", "CREATE")
    assert result["stalenessSignals"] == ["RESUME_FAILED"]
    assert result["providerThread"]["id"] != first["providerThread"]["id"]
    assert result["handoffs"][0]["coveredRunOrdinals"] == {"from": 1, "to": 2}

    pts = await coverage_by_pt(gql, thread)
    assert pts[first["providerThread"]["id"]]["status"] == "FAILED"
    old = (await gql(HANDOFF, id=old_handoff))["handoff"]
    assert old["status"] == "SUPERSEDED"
    assert old["supersededBy"]["id"] == result["handoffs"][0]["id"]

    new_pt = result["providerThread"]["id"]
    await gql(ATTACH, id=new_pt, ref="codex-new", mode="LEGACY")
    await gql(COMPLETE, runId=result["run"]["id"], turn="t3")
    assert (await coverage_by_pt(gql, thread))[new_pt]["coverage"]["missingRunOrdinals"] == []


async def test_completed_run_cannot_report_failure(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    done = await run_once(gql, thread, "codex")
    await gql.refused("CONFLICT", FAIL_START, id=done["run"]["id"], reason="late")


async def test_regenerate_and_submit_supersede_never_mutate(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(
        gql,
        thread,
        "codex",
        "build the parser",
        items=[{"kind": "DECISION", "text": "use a PEG grammar"}],
    )
    switched = await run_once(gql, thread, "claude")
    h1 = switched["handoffs"][0]
    assert "use a PEG grammar" in h1["summaryText"]

    regen = await gql(
        "mutation($id: ID!) { regenerateHandoff(handoffId: $id) { id status } }", id=h1["id"]
    )
    h2 = regen["regenerateHandoff"]["id"]
    old = (await gql(HANDOFF, id=h1["id"]))["handoff"]
    assert old["status"] == "SUPERSEDED" and old["summaryText"] == h1["summaryText"]
    assert old["supersededBy"]["id"] == h2
    new = (await gql(HANDOFF, id=h2))["handoff"]
    assert new["summaryText"] == h1["summaryText"]  # same inputs, same bytes
    assert new["targetRun"] == {"ordinal": 2}

    submitted = await gql(
        """mutation($id: ID!) { submitHandoffSummary(handoffId: $id, summaryText: "Claude's own",
           createdByProvider: "claude") { id status createdByProvider summaryText } }""",
        id=h2,
    )
    h3 = submitted["submitHandoffSummary"]
    assert h3["createdByProvider"] == "claude" and h3["status"] == "READY"
    assert (await gql(HANDOFF, id=h2))["handoff"]["supersededBy"]["id"] == h3["id"]
    await gql.refused(
        "CONFLICT", "mutation($id: ID!) { regenerateHandoff(handoffId: $id) { id } }", id=h1["id"]
    )
    pts = await coverage_by_pt(gql, thread)
    claude_pt = switched["providerThread"]["id"]
    assert pts[claude_pt]["coverage"]["handoffIds"] == [h3["id"]]
    assert pts[claude_pt]["coverage"]["coveredRunOrdinals"] == [1, 2]


async def test_submit_rejects_unknown_provider(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex")
    switched = await run_once(gql, thread, "claude")
    await gql.refused(
        "INVALID_INPUT",
        """mutation($id: ID!) { submitHandoffSummary(handoffId: $id, summaryText: "x",
           createdByProvider: "nobody") { id } }""",
        id=switched["handoffs"][0]["id"],
    )


async def test_clean_context_forces_a_new_thread_once(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex")
    flagged = await gql(
        "mutation($id: ID!) { requestCleanContext(threadId: $id) { cleanContextRequested } }",
        id=thread,
    )
    assert flagged["requestCleanContext"]["cleanContextRequested"] is True
    fresh = await run_once(gql, thread, "codex")
    assert fresh["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert fresh["stalenessSignals"] == ["CLEAN_CONTEXT_REQUESTED"]
    assert (await run_once(gql, thread, "codex"))["strategy"] == "NO_HANDOFF"


async def test_explain_matches_start_and_writes_nothing(gql: GraphQLClient, store: Store) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex")
    await run_once(gql, thread, "codex")

    async def count_nodes(tx: Tx) -> int:
        row = await tx.row("testing/count_nodes")
        return int(row["nodes"]) if row else 0

    before = await store.read(count_nodes)
    plan = (await gql(EXPLAIN, id=thread, provider="claude"))["explainStartContext"]
    assert await store.read(count_nodes) == before
    assert plan["strategy"] == "FULL_HANDOFF_NEW_THREAD" and plan["providerThread"] is None
    assert plan["coveredRunOrdinals"] == [1, 2]
    actual = await start(gql, thread, "claude")
    assert actual["strategy"] == plan["strategy"]
    assert actual["handoffs"][0]["tokenEstimate"] == plan["tokenEstimate"]
    await gql.refused("CONFLICT", EXPLAIN, id=thread, provider="claude")


async def test_events_are_appended_in_order(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    await run_once(gql, thread, "codex")
    events = (await gql("query($id: ID!) { events(threadId: $id) { id type runId } }", id=thread))[
        "events"
    ]
    assert [e["type"] for e in events] == [
        "thread.created",
        "providerThread.created",
        "run.started",
        "providerThread.attached",
        "run.completed",
    ]
    later = (
        await gql(
            "query($id: ID!, $after: ID) { events(threadId: $id, after: $after) { type } }",
            id=thread,
            after=events[2]["id"],
        )
    )["events"]
    assert [e["type"] for e in later] == ["providerThread.attached", "run.completed"]


async def test_errors_carry_codes(gql: GraphQLClient) -> None:
    await gql.refused(
        "NOT_FOUND",
        'mutation { startRun(threadId: "nope", provider: "codex", input: "x") { strategy } }',
    )
    thread = await new_thread(gql)
    await gql.refused(
        "INVALID_INPUT",
        'mutation($id: ID!) { startRun(threadId: $id, provider: "gemini", input: "x") '
        "{ strategy } }",
        id=thread,
    )
    await start(gql, thread, "codex")
    busy = await gql.refused(
        "CONFLICT",
        'mutation($id: ID!) { startRun(threadId: $id, provider: "codex", input: "x") '
        "{ strategy } }",
        id=thread,
    )
    assert "in progress" in busy["message"]


async def test_a_blank_native_ref_is_refused_and_the_real_one_attaches(
    gql: GraphQLClient,
) -> None:
    thread = await new_thread(gql)
    started = await start(gql, thread, "codex")
    pt, run = started["providerThread"]["id"], started["run"]["id"]
    for blank in ("", "   ", " codex-1"):
        refused = await gql.refused("INVALID_INPUT", ATTACH, id=pt, ref=blank, mode="LEGACY")
        assert "nativeRef" in refused["message"]
    attached = (await gql(ATTACH, id=pt, ref="codex-1", mode="LEGACY"))["attachNativeThread"]
    assert attached == {"id": pt, "status": "ACTIVE"}
    subagent = """mutation($run: ID!, $ref: String!) {
      recordNativeSubagent(parentRunId: $run, provider: "codex", nativeRef: $ref) { id } }"""
    await gql.refused("INVALID_INPUT", subagent, run=run, ref=" ")
    assert (await lineage_size(gql, thread)) == 0


async def lineage_size(gql: GraphQLClient, thread: str) -> int:
    found = await gql("query($t: ID!) { thread(id: $t) { children { id } } }", t=thread)
    return len(found["thread"]["children"])


async def every_page(gql: GraphQLClient, newest_first: bool) -> list[str]:
    """Thread ids, two a page, following each page's endCursor."""
    query = """query($after: String, $newest: Boolean!) {
      threads(first: 2, after: $after, newestFirst: $newest) {
        edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }"""
    seen: list[str] = []
    after = None
    while True:
        page = (await gql(query, after=after, newest=newest_first))["threads"]
        seen += [edge["node"]["id"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        after = page["pageInfo"]["endCursor"]


async def test_threads_page_by_keyset(gql: GraphQLClient) -> None:
    ids = [await new_thread(gql, f"t{n}") for n in range(5)]
    assert await every_page(gql, newest_first=False) == ids
    assert await every_page(gql, newest_first=True) == ids[::-1]
    await gql.refused("INVALID_INPUT", "{ threads(first: 100000) { edges { cursor } } }")


async def test_threads_page_through_threads_made_at_one_instant(
    gql: GraphQLClient, store: Store
) -> None:
    ids = [await new_thread(gql, f"t{n}") for n in range(5)]

    async def same_instant(tx: Tx) -> None:
        await tx.rows("testing/same_instant", ids=ids[1:4])

    await store.write(same_instant)
    older = [*sorted(ids[1:4]), ids[0], ids[4]]  # the instant is before today
    assert await every_page(gql, newest_first=False) == older
    assert await every_page(gql, newest_first=True) == older[::-1]


async def test_fail_run_is_history_summarised_as_failure(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    started = await start(gql, thread, "codex", "try the migration")
    await gql(ATTACH, id=started["providerThread"]["id"], ref="c1", mode="LEGACY")
    failed = await gql(
        'mutation($id: ID!) { failRun(runId: $id, reason: "disk full") { status } }',
        id=started["run"]["id"],
    )
    assert failed["failRun"]["status"] == "FAILED"
    switched = await start(gql, thread, "claude")
    assert "Run 1 failed: disk full" in switched["contextText"]
