"""Side threads: a fork for a side question that never merges back, stays out of lineage
unless asked for, and leaves nothing in its source's handoffs or coverage."""

from __future__ import annotations

from tests.support.graphql import GraphQLClient
from tests.support.steps import COVERAGE, new_thread, run_once

SIDE = """
mutation($id: ID!, $run: ID!) {
  forkThread(sourceThreadId: $id, at: {runId: $run}, title: "what does this do?", side: true) {
    id relationshipToParent parent { id }
  }
}
"""

MERGE = "mutation($id: ID!) { mergeBack(forkThreadId: $id) { id } }"

LINEAGE = """
query($id: ID!, $side: Boolean) {
  lineage(threadId: $id, includeSide: $side) {
    nodes { thread { id } } edges { from to relationship }
  }
  thread(id: $id) { children { id relationshipToParent } }
}
"""


async def test_a_side_thread_is_a_fork_that_never_merges_back(gql: GraphQLClient) -> None:
    source = await new_thread(gql, "source")
    first = await run_once(gql, source, "codex", "build the parser")
    side = (await gql(SIDE, id=source, run=first["run"]["id"]))["forkThread"]
    assert side["relationshipToParent"] == "SIDE" and side["parent"]["id"] == source
    asked = await run_once(gql, side["id"], "codex", "what does parse() do? SIDE-QUESTION")
    assert asked["strategy"] == "NATIVE_FORK"  # otherwise a fork: it inherits the source
    await run_once(
        gql,
        side["id"],
        "codex",
        "and tokenize()?",
        items=[{"kind": "ASSISTANT_MESSAGE", "text": "it splits words SIDE-ANSWER"}],
    )
    error = await gql.error(MERGE, id=side["id"])
    assert error["extensions"]["code"] == "INVALID_INPUT" and "side thread" in error["message"]
    outlook = await gql(
        "query($id: ID!) { explainMergeBack(threadId: $id) { possible reason } }", id=side["id"]
    )
    assert outlook["explainMergeBack"]["possible"] is False

    # Nothing of it reaches the source: its next handoff, its coverage.
    later = await run_once(gql, source, "claude", "carry on")
    assert "SIDE-" not in (later["contextText"] or "")
    covered = await gql(COVERAGE, id=source)
    by_provider = {
        pt["provider"]: (pt["coverage"]["coveredRunOrdinals"], pt["coverage"]["missingRunOrdinals"])
        for pt in covered["thread"]["providerThreads"]
    }
    assert by_provider == {"codex": ([1], [2]), "claude": ([1, 2], [])}
    divergence = await gql(
        "query($id: ID!) { thread(id: $id) { divergence { unmergedRunOrdinals } } }", id=side["id"]
    )
    assert divergence["thread"]["divergence"]["unmergedRunOrdinals"] == [1, 2]


async def test_lineage_leaves_side_threads_out_unless_asked(gql: GraphQLClient) -> None:
    source = await new_thread(gql, "source")
    first = await run_once(gql, source, "codex", "build the parser")
    side = (await gql(SIDE, id=source, run=first["run"]["id"]))["forkThread"]["id"]
    fork = await gql(
        "mutation($id: ID!, $run: ID!) {"
        " forkThread(sourceThreadId: $id, at: {runId: $run}) { id } }",
        id=source,
        run=first["run"]["id"],
    )
    plain = fork["forkThread"]["id"]

    default = await gql(LINEAGE, id=source, side=None)
    assert {n["thread"]["id"] for n in default["lineage"]["nodes"]} == {source, plain}
    assert [e["relationship"] for e in default["lineage"]["edges"]] == ["FORK"]
    children = {c["id"]: c["relationshipToParent"] for c in default["thread"]["children"]}
    assert children == {side: "SIDE", plain: "FORK"}

    asked = await gql(LINEAGE, id=source, side=True)
    assert {n["thread"]["id"] for n in asked["lineage"]["nodes"]} == {source, plain, side}
    assert sorted(e["relationship"] for e in asked["lineage"]["edges"]) == ["FORK", "SIDE"]

    # Asked about itself, a side thread shows where it came from.
    own = await gql(LINEAGE, id=side, side=None)
    assert {n["thread"]["id"] for n in own["lineage"]["nodes"]} == {source, side}
