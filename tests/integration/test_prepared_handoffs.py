"""Prepared handoffs: written before the start that injects them, read and replaced by a
person, injected as they are when the plan has not moved, superseded when it has."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread, run_once, start

PREPARE = """
mutation($id: ID!, $provider: String!) {
  prepareHandoff(threadId: $id, provider: $provider) {
    id status summaryText summarySource createdByProvider preparedFor strategy
    coveredRunOrdinals { from to } targetRun { id } toProviderThread { id }
  }
}
"""

SUBMIT = """
mutation($id: ID!, $text: String!) {
  submitHandoffSummary(handoffId: $id, summaryText: $text) {
    id status summaryText summarySource createdByProvider preparedFor targetRun { id }
  }
}
"""

EXPLAIN = """
query($id: ID!, $provider: String!, $at: DateTime) {
  explainStartContext(threadId: $id, provider: $provider, asOf: $at) {
    strategy coveredRunOrdinals explanation preparedHandoff { id summaryText }
  }
}
"""

WAITING = """
query($id: ID!, $at: DateTime) {
  thread(id: $id, asOf: $at) { preparedHandoffs { id status preparedFor } }
}
"""

STARTED = """
mutation($id: ID!, $provider: String!) {
  startRun(threadId: $id, provider: $provider, input: "carry on") {
    run { id } strategy explanation contextText providerThread { id }
    handoffs { id summaryText summarySource coveredRunOrdinals { from to } }
  }
}
"""

STATUS = "query($id: ID!) { handoff(id: $id) { status supersededBy { id } targetRun { id } } }"


async def two_codex_runs(gql: GraphQLClient) -> str:
    thread = await new_thread(gql, "prepared")
    await run_once(gql, thread, "codex", "write the parser FIRST-REQUEST")
    await run_once(gql, thread, "codex", "add error recovery SECOND-REQUEST")
    return thread


async def prepare(gql: GraphQLClient, thread: str, provider: str = "claude") -> dict[str, Any]:
    found: dict[str, Any] = (await gql(PREPARE, id=thread, provider=provider))["prepareHandoff"]
    return found


async def waiting(gql: GraphQLClient, thread: str, at: datetime | None = None) -> list[str]:
    found = await gql(WAITING, id=thread, at=at.isoformat() if at else None)
    return [h["id"] for h in found["thread"]["preparedHandoffs"]]


async def test_a_person_edits_the_prepared_handoff_and_the_start_injects_it(
    gql: GraphQLClient,
) -> None:
    thread = await two_codex_runs(gql)
    prepared = await prepare(gql, thread)
    assert prepared["status"] == "READY" and prepared["preparedFor"] == "claude"
    assert prepared["targetRun"] is None and prepared["toProviderThread"] is None
    assert prepared["summarySource"] == "LOCAL"
    assert prepared["coveredRunOrdinals"] == {"from": 1, "to": 2}
    assert "SECOND-REQUEST" in prepared["summaryText"]
    assert await waiting(gql, thread) == [prepared["id"]]
    plan = (await gql(EXPLAIN, id=thread, provider="claude"))["explainStartContext"]
    assert plan["preparedHandoff"]["id"] == prepared["id"]

    edited_text = prepared["summaryText"] + "\nNote from me: keep the error messages short."
    edited = (await gql(SUBMIT, id=prepared["id"], text=edited_text))["submitHandoffSummary"]
    assert (edited["summarySource"], edited["createdByProvider"]) == ("PERSON", None)
    assert edited["preparedFor"] == "claude" and edited["targetRun"] is None
    old = (await gql(STATUS, id=prepared["id"]))["handoff"]
    assert (old["status"], old["supersededBy"]["id"]) == ("SUPERSEDED", edited["id"])
    plan = (await gql(EXPLAIN, id=thread, provider="claude"))["explainStartContext"]
    assert plan["preparedHandoff"]["id"] == edited["id"]
    assert any(
        f"prepared handoff {edited['id']} (written by a person)" in line
        for line in plan["explanation"]
    )

    started = (await gql(STARTED, id=thread, provider="claude"))["startRun"]
    [injected] = started["handoffs"]
    assert injected["id"] == edited["id"] and started["contextText"] == edited_text
    now = (await gql(STATUS, id=edited["id"]))["handoff"]
    assert now["status"] == "READY" and now["targetRun"]["id"] == started["run"]["id"]
    assert await waiting(gql, thread) == []
    coverage = await gql(
        "query($id: ID!) { providerThread(id: $id) { coverage { coveredRunOrdinals } } }",
        id=started["providerThread"]["id"],
    )
    assert coverage["providerThread"]["coverage"]["coveredRunOrdinals"] == [1, 2]


async def test_a_second_prepare_supersedes_the_first(gql: GraphQLClient) -> None:
    thread = await two_codex_runs(gql)
    first = await prepare(gql, thread)
    second = await prepare(gql, thread)
    old = (await gql(STATUS, id=first["id"]))["handoff"]
    assert (old["status"], old["supersededBy"]["id"]) == ("SUPERSEDED", second["id"])
    assert await waiting(gql, thread) == [second["id"]]


async def test_a_start_whose_plan_moved_supersedes_the_prepared_handoff(
    gql: GraphQLClient,
) -> None:
    thread = await two_codex_runs(gql)
    prepared = await prepare(gql, thread)
    edited = await gql(SUBMIT, id=prepared["id"], text="PERSON-TEXT about runs 1 and 2")
    kept = edited["submitHandoffSummary"]
    before_new_run = datetime.now(UTC)
    await run_once(gql, thread, "codex", "one more on codex THIRD-REQUEST")
    started = (await gql(STARTED, id=thread, provider="claude"))["startRun"]
    [fresh] = started["handoffs"]
    assert fresh["id"] != kept["id"] and fresh["summarySource"] == "LOCAL"
    assert fresh["coveredRunOrdinals"] == {"from": 1, "to": 3}
    assert "PERSON-TEXT" not in started["contextText"]
    assert "THIRD-REQUEST" in started["contextText"]
    assert any(
        f"prepared handoff {kept['id']} is superseded" in line for line in started["explanation"]
    )
    now = (await gql(STATUS, id=kept["id"]))["handoff"]
    assert (now["status"], now["supersededBy"]["id"]) == ("SUPERSEDED", fresh["id"])
    assert now["targetRun"] is None

    # As of before the new run, the prepared handoff was waiting, and a start would have
    # injected it; now nothing waits and the start's handoff is the fresh one.
    assert await waiting(gql, thread, before_new_run) == [kept["id"]]
    assert await waiting(gql, thread) == []
    then = await gql(EXPLAIN, id=thread, provider="claude", at=before_new_run.isoformat())
    assert then["explainStartContext"]["preparedHandoff"]["id"] == kept["id"]
    assert then["explainStartContext"]["coveredRunOrdinals"] == [1, 2]


async def test_nothing_to_prepare_is_a_conflict_that_says_why(gql: GraphQLClient) -> None:
    empty = await new_thread(gql, "empty")
    await gql.refused("CONFLICT", PREPARE, id=empty, provider="claude")
    thread = await two_codex_runs(gql)
    error = await gql.error(PREPARE, id=thread, provider="codex")  # covers every run
    assert error["extensions"]["code"] == "CONFLICT"
    assert "already covers every run" in error["message"]
    await start(gql, thread, "codex", "busy")
    error = await gql.error(PREPARE, id=thread, provider="claude")
    assert error["extensions"]["code"] == "CONFLICT" and "in progress" in error["message"]
