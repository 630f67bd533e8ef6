"""Coverage after a rollback (docs/MODEL.md), through GraphQL on Neo4j: a handoff injected
into a run that is rolled back is superseded and leaves every coverage, so the next start
sends what it carried again (a thread's own runs, or a fork's inherited context), whether
it resumes the provider thread or creates one."""

from __future__ import annotations

from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import COMPLETE, FORK, coverage_by_pt, new_thread, run_once, start

ROLLBACK = """
mutation($id: ID!, $to: Int!) {
  rollbackThread(threadId: $id, toRunOrdinal: $to) {
    rolledBackRuns { ordinal }
    supersededHandoffs { id status }
    affectedProviderThreads { id status }
  }
}
"""

HANDOFFS = """
query($id: ID!) { thread(id: $id) { providerThreads { id handoffs { id status } } } }
"""

SOURCES = """
query($id: ID!) { handoff(id: $id) { kind status sourceThread { id } targetRun { id } } }
"""


async def rollback(gql: GraphQLClient, thread: str, to: int) -> dict[str, Any]:
    result: dict[str, Any] = (await gql(ROLLBACK, id=thread, to=to))["rollbackThread"]
    return result


async def test_the_probe_case_sends_run_2_again_to_codex(gql: GraphQLClient) -> None:
    """codex 1, claude 2, codex 3 (a delta of 2), back to 2 with codex rolling back."""
    thread = await new_thread(gql, "probe")
    first = await run_once(gql, thread, "codex", "codex one", history="LEGACY")
    await run_once(gql, thread, "claude", "claude two SECRET2", history="LEGACY")
    third = await run_once(gql, thread, "codex", "codex three", history="LEGACY")
    assert third["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    [delta] = third["handoffs"]
    assert delta["coveredRunOrdinals"] == {"from": 2, "to": 2}
    c1 = first["providerThread"]["id"]

    result = await rollback(gql, thread, 2)
    assert [r["ordinal"] for r in result["rolledBackRuns"]] == [3]
    assert result["supersededHandoffs"] == [{"id": delta["id"], "status": "SUPERSEDED"}]
    assert result["affectedProviderThreads"] == [{"id": c1, "status": "ROLLED_BACK"}]
    coverage = (await coverage_by_pt(gql, thread))[c1]["coverage"]
    assert coverage == {
        "nativeRunOrdinals": [1],
        "handoffIds": [],
        "coveredRunOrdinals": [1],
        "missingRunOrdinals": [2],
    }

    again = await start(gql, thread, "codex", "codex four")
    assert (again["strategy"], again["providerAction"]) == (
        "DELTA_HANDOFF_EXISTING_THREAD",
        "RESUME",
    )
    assert again["providerThread"]["id"] == c1
    [resent] = again["handoffs"]
    assert resent["coveredRunOrdinals"] == {"from": 2, "to": 2}
    assert resent["id"] != delta["id"] and "SECRET2" in again["contextText"]
    kind = await gql(SOURCES, id=resent["id"])
    assert kind["handoff"]["kind"] == "DELTA_CONTEXT"


async def test_explain_answers_what_the_start_does(gql: GraphQLClient) -> None:
    thread = await new_thread(gql, "probe explained")
    for provider in ("codex", "claude", "codex"):
        await run_once(gql, thread, provider, history="LEGACY")
    await rollback(gql, thread, 2)
    explained = await gql(
        """query($id: ID!) { explainStartContext(threadId: $id, provider: "codex") {
        strategy providerAction handoffStrategies coveredRunOrdinals } }""",
        id=thread,
    )
    plan = explained["explainStartContext"]
    assert (plan["strategy"], plan["providerAction"]) == (
        "DELTA_HANDOFF_EXISTING_THREAD",
        "RESUME",
    )
    assert plan["handoffStrategies"] == ["DELTA_SINCE_TARGET_LAST_SEEN"]
    assert plan["coveredRunOrdinals"] == [2]


# ---- a fork's inherited context ---------------------------------------------------

FORK_START = """
mutation($id: ID!, $provider: String!) {
  startRun(threadId: $id, provider: $provider, input: "explore") {
    run { id ordinal } strategy providerAction explanation contextText
    providerThread { id nativeRef }
    handoffs { id kind strategy coveredRunOrdinals { from to } sourceThread { id } }
  }
}
"""


async def source_thread(gql: GraphQLClient, provider: str) -> dict[str, Any]:
    """Three runs on `provider`, each with a secret only its own context holds."""
    thread = await new_thread(gql, "source")
    starts = [
        await run_once(
            gql,
            thread,
            provider,
            f"source step {n}",
            items=[{"kind": "DECISION", "text": f"decision SECRET{n}"}],
        )
        for n in (1, 2, 3)
    ]
    return {"thread": thread, "runs": [s["run"]["id"] for s in starts]}


async def forked_and_ran(gql: GraphQLClient, source: str, provider: str) -> dict[str, Any]:
    """A fork of `source`'s run 2 (the source ran the other provider), one run on
    `provider` (portable context into a new provider thread, LEGACY history)."""
    src = await source_thread(gql, source)
    fork = (await gql(FORK, id=src["thread"], at={"runId": src["runs"][1]}))["forkThread"]
    first = (await gql(FORK_START, id=fork["id"], provider=provider))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("PORTABLE_CONTEXT", "CREATE")
    pt = first["providerThread"]["id"]
    await gql(
        """mutation($id: ID!) { attachNativeThread(providerThreadId: $id,
        nativeRef: "native-fork", historyMode: LEGACY) { id } }""",
        id=pt,
    )
    await gql(COMPLETE, runId=first["run"]["id"], turn="turn-1")
    return {"source": src["thread"], "fork": fork["id"], "first": first, "pt": pt}


def inherited_only(started: dict[str, Any], source: str) -> None:
    """The start injects the fork's inherited context alone: the source's runs 1-2."""
    [context] = started["handoffs"]
    assert context["kind"] == "PORTABLE_CONTEXT"
    assert context["sourceThread"]["id"] == source
    assert context["coveredRunOrdinals"] == {"from": 1, "to": 2}
    text = started["contextText"]
    assert "SECRET1" in text and "SECRET2" in text and "SECRET3" not in text


async def test_inherited_context_is_sent_again_on_resume(gql: GraphQLClient) -> None:
    f = await forked_and_ran(gql, source="claude", provider="codex")
    [received] = f["first"]["handoffs"]
    result = await rollback(gql, f["fork"], 0)
    assert result["supersededHandoffs"] == [{"id": received["id"], "status": "SUPERSEDED"}]
    assert result["affectedProviderThreads"] == [{"id": f["pt"], "status": "ROLLED_BACK"}]

    again = (await gql(FORK_START, id=f["fork"], provider="codex"))["startRun"]
    assert (again["strategy"], again["providerAction"]) == ("PORTABLE_CONTEXT", "RESUME")
    assert again["providerThread"]["id"] == f["pt"]
    inherited_only(again, f["source"])
    assert any("inherited" in line for line in again["explanation"])
    sent = await gql(SOURCES, id=again["handoffs"][0]["id"])
    assert sent["handoff"]["targetRun"]["id"] == again["run"]["id"]

    # Received again and held: the next run on codex needs nothing.
    await gql(COMPLETE, runId=again["run"]["id"], turn="turn-2")
    then = (await gql(FORK_START, id=f["fork"], provider="codex"))["startRun"]
    assert (then["strategy"], then["handoffs"]) == ("NO_HANDOFF", [])


async def test_inherited_context_is_sent_again_on_create(gql: GraphQLClient) -> None:
    f = await forked_and_ran(gql, source="codex", provider="claude")
    result = await rollback(gql, f["fork"], 0)
    assert result["affectedProviderThreads"] == [{"id": f["pt"], "status": "DIVERGENT"}]
    again = (await gql(FORK_START, id=f["fork"], provider="claude"))["startRun"]
    assert (again["strategy"], again["providerAction"]) == ("PORTABLE_CONTEXT", "CREATE")
    assert again["providerThread"]["id"] != f["pt"]
    inherited_only(again, f["source"])
    handoffs = await gql(HANDOFFS, id=f["fork"])
    statuses = {
        h["id"]: h["status"] for pt in handoffs["thread"]["providerThreads"] for h in pt["handoffs"]
    }
    assert statuses == {
        f["first"]["handoffs"][0]["id"]: "SUPERSEDED",
        again["handoffs"][0]["id"]: "READY",
    }


async def test_a_fork_with_nothing_to_reuse_starts_with_its_inherited_context(
    gql: GraphQLClient,
) -> None:
    src = await source_thread(gql, "codex")
    fork = (await gql(FORK, id=src["thread"], at={"runId": src["runs"][1]}))["forkThread"]
    first = (await gql(FORK_START, id=fork["id"], provider="claude"))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("PORTABLE_CONTEXT", "CREATE")
    inherited_only(first, src["thread"])


async def test_a_native_fork_is_not_sent_its_inherited_context(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = (await gql(FORK, id=src["thread"], at={"runId": src["runs"][1]}))["forkThread"]
    first = (await gql(FORK_START, id=fork["id"], provider="codex"))["startRun"]
    assert first["strategy"] == "NATIVE_FORK"
    await gql(
        """mutation($id: ID!) { attachNativeThread(providerThreadId: $id,
        nativeRef: "native-fork", historyMode: LEGACY) { id } }""",
        id=first["providerThread"]["id"],
    )
    await gql(COMPLETE, runId=first["run"]["id"], turn="turn-1")
    await rollback(gql, fork["id"], 0)
    again = (await gql(FORK_START, id=fork["id"], provider="codex"))["startRun"]
    assert (again["strategy"], again["providerAction"]) == ("NO_HANDOFF", "RESUME")
    assert again["handoffs"] == []
