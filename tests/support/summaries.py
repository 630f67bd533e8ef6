"""GraphQL steps of the summary-source tests: a history worth summarising, a start that
names its source, the handoff with its provenance, submissions."""

from __future__ import annotations

from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread, run_once

HANDOFF_FIELDS = """
fragment H on ContextHandoff {
  id status summaryText tokenEstimate summarySource createdByProvider model generationMs
  fallbackReason failureReason cachedFrom { id } supersededBy { id }
  coveredRunOrdinals { from to } quality { score }
}
"""

START = (
    """
mutation($threadId: ID!, $provider: String!, $input: String!, $source: SummarySource,
         $commandId: String) {
  startRun(threadId: $threadId, provider: $provider, input: $input, summarySource: $source,
           commandId: $commandId) {
    run { id ordinal status } strategy providerAction contextText explanation
    providerThread { id nativeRef status }
    handoffs { ...H }
    summarizationRequests {
      handoffId source provider maxTokens title instructions include exclude material
    }
  }
}
"""
    + HANDOFF_FIELDS
)

FAIL_START = (
    """
mutation($runId: ID!, $reason: String!, $source: SummarySource) {
  reportStartFailure(runId: $runId, reason: $reason, summarySource: $source) {
    run { id ordinal status } strategy providerAction contextText explanation
    providerThread { id nativeRef status }
    handoffs { ...H }
    summarizationRequests { handoffId source provider maxTokens }
  }
}
"""
    + HANDOFF_FIELDS
)

HANDOFF = "query($id: ID!) { handoff(id: $id) { ...H } }" + HANDOFF_FIELDS

SUBMIT = (
    """
mutation($id: ID!, $text: String!, $by: String!) {
  submitHandoffSummary(handoffId: $id, summaryText: $text, createdByProvider: $by) { ...H }
}
"""
    + HANDOFF_FIELDS
)

RUN = "query($id: ID!) { run(id: $id) { id status } }"

EVENTS = """query($id: ID!) { events(threadId: $id, first: 200) { type runId payload } }"""

# Two codex runs whose items exercise the include and exclude rules.
FIRST = [
    {"kind": "USER_GOAL", "text": "parse the config files"},
    {"kind": "DECISION", "text": "use a PEG grammar"},
    {"kind": "REASONING", "text": "hidden chain of thought"},
    {
        "kind": "FILE_CHANGE",
        "text": "@@ diff body @@",
        "path": "parser.py",
        "attributes": {"additions": 40, "deletions": 2, "changeKind": "added"},
    },
    {"kind": "TOOL_OUTPUT", "key": "build", "text": "build failed: 3 errors"},
]
SECOND = [
    {"kind": "TEST", "text": "pytest tests/parser", "attributes": {"outcome": "passed"}},
    {"kind": "TOOL_OUTPUT", "key": "build", "text": "build passed"},
]
INPUTS = ("Write the config parser", "Make the build pass")


async def codex_history(gql: GraphQLClient, title: str = "history") -> str:
    """A thread whose runs 1-2 ran on codex: a switch to another provider summarises them."""
    thread = await new_thread(gql, title)
    for text, items in zip(INPUTS, (FIRST, SECOND), strict=True):
        await run_once(gql, thread, "codex", text, items=items)
    return thread


async def start(
    gql: GraphQLClient,
    thread: str,
    provider: str,
    source: str | None = None,
    command_id: str | None = None,
    text: str = "Now add the tests",
) -> dict[str, Any]:
    data = await gql(
        START, threadId=thread, provider=provider, input=text, source=source, commandId=command_id
    )
    started: dict[str, Any] = data["startRun"]
    return started


async def waiting_start(
    gql: GraphQLClient, provider: str, source: str
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A switch from codex_history to `provider` whose run waits for `source`'s summary:
    the thread, the start's answer and its one (PENDING) handoff."""
    thread = await codex_history(gql)
    started = await start(gql, thread, provider, source)
    [waiting] = started["handoffs"]
    return thread, started, waiting


async def handoff(gql: GraphQLClient, ident: str) -> dict[str, Any]:
    found: dict[str, Any] = (await gql(HANDOFF, id=ident))["handoff"]
    return found


async def run_status(gql: GraphQLClient, run_id: str) -> str:
    return str((await gql(RUN, id=run_id))["run"]["status"])


async def events(gql: GraphQLClient, thread: str, kind: str) -> list[dict[str, Any]]:
    found = (await gql(EVENTS, id=thread))["events"]
    return [e for e in found if e["type"] == kind]
