"""Forks: lazy creation, native or portable first dispatch, rollback of the source."""

from __future__ import annotations

from typing import Any

from graph.store import Store
from graph.tx import Tx
from tests.support.graphql import GraphQLClient
from tests.support.steps import COMPLETE, FORK, new_thread, start

FIRST_RUN = """
mutation($id: ID!, $provider: String!) {
  startRun(threadId: $id, provider: $provider, input: "explore") {
    run { id ordinal } strategy providerAction explanation contextText
    nativeFork { sourceProviderThreadRef lastTurnId rollbackTurns }
    providerThread { id forkedFrom { id } }
    handoffs { id kind strategy coveredRunOrdinals { from to } sourceThread { id } }
    consumedTransfers { id status resolutionStrategy resolvedProviderThread { id }
                        consumedBy { id } handoff { id } }
  }
}
"""


async def source_thread(
    gql: GraphQLClient, provider: str, runs: int = 3, history: str = "LEGACY", turns: bool = True
) -> dict[str, Any]:
    thread = await new_thread(gql, "source")
    started = []
    for n in range(1, runs + 1):
        first = await start(gql, thread, provider, f"source step {n} SECRET{n}")
        if n == 1:
            await gql(
                """mutation($id: ID!, $mode: HistoryMode) {
                attachNativeThread(providerThreadId: $id, nativeRef: "native-src",
                historyMode: $mode) { id } }""",
                id=first["providerThread"]["id"],
                mode=history,
            )
        await gql(
            COMPLETE,
            runId=first["run"]["id"],
            turn=f"turn-{n}" if turns else None,
            items=[{"kind": "DECISION", "text": f"decision SECRET{n}"}],
            checkpoint={"ref": f"ckpt-{n}", "diffSummary": []},
        )
        started.append(first)
    return {
        "thread": thread,
        "runs": [s["run"]["id"] for s in started],
        "pt": started[0]["providerThread"]["id"],
    }


async def fork_at(gql: GraphQLClient, thread: str, **at: Any) -> dict[str, Any]:
    data: dict[str, Any] = (await gql(FORK, id=thread, at=at))["forkThread"]
    return data


async def test_fork_creates_nothing_eager(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], runId=src["runs"][1])
    assert fork["relationshipToParent"] == "FORK"
    assert fork["parent"]["id"] == src["thread"] and fork["root"]["id"] == src["thread"]
    assert fork["providerThreads"] == [] and fork["runs"] == []
    [transfer] = fork["incomingTransfers"]
    assert (transfer["type"], transfer["status"]) == ("FORK", "PENDING")
    assert transfer["resolutionStrategy"] is None and transfer["handoff"] is None
    point = transfer["sourcePoint"]
    assert point["run"]["ordinal"] == 2 and point["providerTurnRef"] == "turn-2"
    assert point["providerThreadRef"] == "native-src" and point["checkpoint"] is not None
    handoffs = await gql(
        "query($id: ID!) { thread(id: $id) { providerThreads { id } } }", id=src["thread"]
    )
    assert len(handoffs["thread"]["providerThreads"]) == 1


async def test_fork_source_point_rules(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex", runs=1)
    latest = await fork_at(gql, src["thread"], latestStable=True)
    assert latest["incomingTransfers"][0]["sourcePoint"]["run"]["ordinal"] == 1
    busy = await start(gql, src["thread"], "codex", "in progress")
    await gql.refused("CONFLICT", FORK, id=src["thread"], at={"runId": busy["run"]["id"]})
    await gql(
        'mutation($id: ID!) { failRun(runId: $id, reason: "x") { id } }', id=busy["run"]["id"]
    )
    await gql.refused("INVALID_INPUT", FORK, id=src["thread"], at={"runId": busy["run"]["id"]})
    empty = await new_thread(gql)
    await gql.refused("INVALID_INPUT", FORK, id=empty, at={"latestStable": True})
    await gql.refused("INVALID_INPUT", FORK, id=src["thread"], at={})
    # An id the workspace does not hold, as any id a mutation names: NOT_FOUND; a run of
    # another thread is no point of this one: INVALID_INPUT.
    await gql.refused("NOT_FOUND", FORK, id=src["thread"], at={"runId": "run_nope"})
    await gql.refused("NOT_FOUND", FORK, id=src["thread"], at={"checkpointId": "ckpt_nope"})
    other = await source_thread(gql, "codex", runs=1)
    await gql.refused("INVALID_INPUT", FORK, id=src["thread"], at={"runId": other["runs"][0]})


async def test_same_provider_fork_is_native_at_the_turn(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], runId=src["runs"][1])
    first = (await gql(FIRST_RUN, id=fork["id"], provider="codex"))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("NATIVE_FORK", "NATIVE_FORK")
    assert first["nativeFork"] == {
        "sourceProviderThreadRef": "native-src",
        "lastTurnId": "turn-2",
        "rollbackTurns": 0,
    }
    assert first["handoffs"] == [] and first["contextText"] is None
    assert first["providerThread"]["forkedFrom"]["id"] == src["pt"]
    [transfer] = first["consumedTransfers"]
    assert transfer["status"] == "CONSUMED" and transfer["resolutionStrategy"] == "NATIVE_FORK"
    assert transfer["resolvedProviderThread"]["id"] == first["providerThread"]["id"]
    assert transfer["consumedBy"]["id"] == first["run"]["id"]

    await gql(
        """mutation($id: ID!) { attachNativeThread(providerThreadId: $id,
        nativeRef: "native-fork") { id } }""",
        id=first["providerThread"]["id"],
    )
    await gql(COMPLETE, runId=first["run"]["id"], turn="f-1")
    second = (await gql(FIRST_RUN, id=fork["id"], provider="codex"))["startRun"]
    assert (second["strategy"], second["providerAction"]) == ("NO_HANDOFF", "CONTINUE")
    assert second["handoffs"] == [] and second["consumedTransfers"] == []


async def test_fork_without_turn_ref_rolls_back_on_legacy(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex", turns=False)
    fork = await fork_at(gql, src["thread"], runId=src["runs"][0])
    first = (await gql(FIRST_RUN, id=fork["id"], provider="codex"))["startRun"]
    assert first["strategy"] == "NATIVE_FORK"
    assert first["nativeFork"]["lastTurnId"] is None
    assert first["nativeFork"]["rollbackTurns"] == 2


async def test_paginated_history_refuses_rollback_and_falls_back(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex", history="PAGINATED", turns=False)
    fork = await fork_at(gql, src["thread"], runId=src["runs"][0])
    first = (await gql(FIRST_RUN, id=fork["id"], provider="codex"))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("PORTABLE_CONTEXT", "CREATE")
    assert first["nativeFork"] is None
    assert any("PAGINATED" in line and "rollback" in line for line in first["explanation"])
    assert first["consumedTransfers"][0]["resolutionStrategy"] == "PORTABLE_CONTEXT"


async def test_claude_forks_latest_only(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "claude")
    latest = await fork_at(gql, src["thread"], runId=src["runs"][2])
    native = (await gql(FIRST_RUN, id=latest["id"], provider="claude"))["startRun"]
    assert native["strategy"] == "NATIVE_FORK"
    assert native["nativeFork"]["lastTurnId"] is None
    assert native["nativeFork"]["rollbackTurns"] == 0
    middle = await fork_at(gql, src["thread"], runId=src["runs"][1])
    portable = (await gql(FIRST_RUN, id=middle["id"], provider="claude"))["startRun"]
    assert portable["strategy"] == "PORTABLE_CONTEXT"


async def test_cross_provider_fork_gets_context_up_to_the_fork_point(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], runId=src["runs"][1])
    first = (await gql(FIRST_RUN, id=fork["id"], provider="claude"))["startRun"]
    assert (first["strategy"], first["providerAction"]) == ("PORTABLE_CONTEXT", "CREATE")
    [handoff] = first["handoffs"]
    assert handoff["kind"] == "PORTABLE_CONTEXT"
    assert handoff["strategy"] == "FULL_THREAD_SUMMARY"
    assert handoff["sourceThread"]["id"] == src["thread"]
    assert handoff["coveredRunOrdinals"] == {"from": 1, "to": 2}
    text = first["contextText"]
    assert "SECRET1" in text and "SECRET2" in text and "SECRET3" not in text
    [transfer] = first["consumedTransfers"]
    assert transfer["resolutionStrategy"] == "PORTABLE_CONTEXT"
    assert transfer["handoff"]["id"] == handoff["id"]

    await run_after(gql, first)
    second = (await gql(FIRST_RUN, id=fork["id"], provider="claude"))["startRun"]
    assert second["strategy"] == "NO_HANDOFF" and second["handoffs"] == []


async def run_after(gql: GraphQLClient, started: dict[str, Any]) -> None:
    await gql(
        """mutation($id: ID!) { attachNativeThread(providerThreadId: $id,
        nativeRef: "n") { id } }""",
        id=started["providerThread"]["id"],
    )
    await gql(COMPLETE, runId=started["run"]["id"], turn="t")


async def test_checkpoint_fork_uses_a_checkpoint_summary(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], latestStable=True)
    first = (await gql(FIRST_RUN, id=fork["id"], provider="claude"))["startRun"]
    assert first["handoffs"][0]["strategy"] == "CHECKPOINT_SUMMARY"
    assert "ckpt-3" in first["contextText"]


async def test_new_provider_on_a_fork_carries_the_inherited_context(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], runId=src["runs"][1])
    await run_after(gql, (await gql(FIRST_RUN, id=fork["id"], provider="codex"))["startRun"])
    switched = (await gql(FIRST_RUN, id=fork["id"], provider="claude"))["startRun"]
    assert switched["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    sources = [(h["sourceThread"]["id"], h["coveredRunOrdinals"]) for h in switched["handoffs"]]
    assert sources == [
        (src["thread"], {"from": 1, "to": 2}),
        (fork["id"], {"from": 1, "to": 1}),
    ]
    assert "SECRET2" in switched["contextText"] and "SECRET3" not in switched["contextText"]


ROLLBACK = """mutation($id: ID!, $to: Int!) { rollbackThread(threadId: $id, toRunOrdinal: $to) {
  supersededTransfers { id status } } }"""


async def test_rollback_supersedes_pending_forks_and_leaves_taken_ones(
    gql: GraphQLClient, store: Store
) -> None:
    src = await source_thread(gql, "codex")
    taken = await fork_at(gql, src["thread"], runId=src["runs"][2])
    first = (await gql(FIRST_RUN, id=taken["id"], provider="claude"))["startRun"]
    await run_after(gql, first)
    pending = await fork_at(gql, src["thread"], runId=src["runs"][2])
    kept = await fork_at(gql, src["thread"], runId=src["runs"][0])

    result = (await gql(ROLLBACK, id=src["thread"], to=1))["rollbackThread"]
    pending_id = pending["incomingTransfers"][0]["id"]
    assert result["supersededTransfers"] == [{"id": pending_id, "status": "SUPERSEDED"}]
    state = await gql(
        """query($a: ID!, $b: ID!) {
        a: thread(id: $a) { runs { status } incomingTransfers { status } }
        b: thread(id: $b) { incomingTransfers { status } } }""",
        a=taken["id"],
        b=kept["id"],
    )
    assert state["a"]["incomingTransfers"] == [{"status": "CONSUMED"}]
    assert state["a"]["runs"] == [{"status": "COMPLETED"}]
    assert state["b"]["incomingTransfers"] == [{"status": "PENDING"}]


async def test_provenance_is_one_match(gql: GraphQLClient, store: Store) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], runId=src["runs"][1])
    first = (await gql(FIRST_RUN, id=fork["id"], provider="claude"))["startRun"]

    async def provenance(tx: Tx) -> list[dict[str, Any]]:
        return await tx.rows(
            "analysis/context_provenance", runId=first["run"]["id"], workspace="default"
        )

    [row] = await store.read(provenance)
    assert row["transferType"] == "FORK"
    assert row["sourceThread"] == src["thread"]
    assert row["coveredRuns"] == [1, 2]


async def test_fork_of_a_fork_inherits_the_whole_chain(gql: GraphQLClient) -> None:
    src = await source_thread(gql, "codex")
    fork = await fork_at(gql, src["thread"], runId=src["runs"][1])
    first = (await gql(FIRST_RUN, id=fork["id"], provider="claude"))["startRun"]
    await run_after(gql, first)
    grand = await fork_at(gql, fork["id"], runId=first["run"]["id"])
    second = (await gql(FIRST_RUN, id=grand["id"], provider="codex"))["startRun"]
    assert second["strategy"] == "PORTABLE_CONTEXT"  # codex did not run the fork's source
    sources = [h["sourceThread"]["id"] for h in second["handoffs"]]
    assert sources == [src["thread"], fork["id"]]
    assert "SECRET2" in second["contextText"] and "SECRET3" not in second["contextText"]
