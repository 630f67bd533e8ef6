"""What a native thread holds, as its provider reports it: with a run's completion or on its
own; the latest report is on the provider thread, and a provider's windows are listed."""

from __future__ import annotations

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread, start

COMPLETE = """mutation($r: ID!, $u: ContextUsageInput) {
  completeRun(runId: $r, nativeTurnRef: "t1", usage: $u) { id status } }"""
REPORT = """mutation($p: ID!, $u: ContextUsageInput!) {
  reportContextUsage(providerThreadId: $p, usage: $u) {
    id contextUsage { contextTokens contextWindowTokens inputTokens outputTokens reportedAt } } }"""
USAGE = """query($p: ID!) { providerThread(id: $p) {
  contextUsage { contextTokens contextWindowTokens reportedAt } } }"""
EVENTS = "query($t: ID!) { events(threadId: $t) { type payload } }"


async def test_a_completed_run_and_a_later_report_set_the_latest_usage(gql: GraphQLClient) -> None:
    thread = await new_thread(gql)
    started = await start(gql, thread, "claude")
    pt = started["providerThread"]["id"]
    assert (await gql(USAGE, p=pt))["providerThread"]["contextUsage"] is None
    await gql(
        COMPLETE,
        r=started["run"]["id"],
        u={"contextTokens": 41_000, "contextWindowTokens": 200_000, "inputTokens": 900},
    )
    first = (await gql(USAGE, p=pt))["providerThread"]["contextUsage"]
    assert (first["contextTokens"], first["contextWindowTokens"]) == (41_000, 200_000)
    # After a native compaction the thread holds less; no window this time.
    later = (await gql(REPORT, p=pt, u={"contextTokens": 12_000}))["reportContextUsage"]
    usage = later["contextUsage"]
    assert (usage["contextTokens"], usage["contextWindowTokens"], usage["inputTokens"]) == (
        12_000,
        None,
        None,
    )
    assert usage["reportedAt"] >= first["reportedAt"]
    logged = [
        e for e in (await gql(EVENTS, t=thread))["events"] if e["type"] == "providerThread.usage"
    ]
    assert [e["payload"]["contextTokens"] for e in logged] == [41_000, 12_000]


async def test_a_usage_that_makes_no_sense_is_refused_and_writes_nothing(
    gql: GraphQLClient,
) -> None:
    thread = await new_thread(gql)
    started = await start(gql, thread, "codex")
    pt = started["providerThread"]["id"]
    error = await gql.error(REPORT, p=pt, u={"contextTokens": -5})
    assert error["extensions"]["code"] == "INVALID_INPUT" and "contextTokens" in error["message"]
    await gql.refused("NOT_FOUND", REPORT, p="pth_nope", u={"contextTokens": 5})
    assert (await gql(USAGE, p=pt))["providerThread"]["contextUsage"] is None


async def test_providers_list_their_default_window_and_known_models(gql: GraphQLClient) -> None:
    found = await gql("{ providers { kind defaultContextWindowTokens models { name } } }")
    windows = {p["kind"]: p["defaultContextWindowTokens"] for p in found["providers"]}
    assert windows == {"claude": 200_000, "codex": 272_000}
    assert all(p["models"] == [] for p in found["providers"])
