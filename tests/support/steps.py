"""GraphQL steps the integration tests compose: start, attach, complete."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from tests.support.graphql import GraphQLClient

START = """
mutation($threadId: ID!, $provider: String!, $input: String!, $runtimeMode: String) {
  startRun(threadId: $threadId, provider: $provider, input: $input, runtimeMode: $runtimeMode) {
    run { id ordinal status }
    strategy providerAction stalenessSignals explanation contextText injectionMode
    providerThread { id provider status nativeRef }
    handoffs { id strategy kind coveredRunOrdinals { from to } status summaryText
               tokenEstimate fromProviderThreads { id } toProviderThread { id } }
  }
}
"""

ATTACH = """
mutation($id: ID!, $ref: String!, $mode: HistoryMode) {
  attachNativeThread(providerThreadId: $id, nativeRef: $ref, historyMode: $mode) { id status }
}
"""

COMPLETE = """
mutation($runId: ID!, $turn: String, $items: [RunItemInput!], $checkpoint: CheckpointInput) {
  completeRun(runId: $runId, nativeTurnRef: $turn, items: $items, checkpoint: $checkpoint) {
    id status
  }
}
"""

COVERAGE = """
query($id: ID!) {
  thread(id: $id) {
    providerThreads {
      id provider status
      coverage { nativeRunOrdinals handoffIds coveredRunOrdinals missingRunOrdinals }
      handoffs { id status coveredRunOrdinals { from to } }
    }
  }
}
"""


async def new_thread(gql: GraphQLClient, title: str = "t") -> str:
    data = await gql("mutation($t: String) { createThread(title: $t) { id } }", t=title)
    return str(data["createThread"]["id"])


async def start(
    gql: GraphQLClient, thread_id: str, provider: str, text: str = "do it", **extra: Any
) -> dict[str, Any]:
    data = await gql(START, threadId=thread_id, provider=provider, input=text, **extra)
    result: dict[str, Any] = data["startRun"]
    return result


async def run_once(
    gql: GraphQLClient,
    thread_id: str,
    provider: str,
    text: str = "do it",
    history: str = "LEGACY",
    items: list[dict[str, Any]] | None = None,
    checkpoint: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """start → attach (when the provider thread is new) → complete."""
    started = await start(gql, thread_id, provider, text, **extra)
    pt = started["providerThread"]
    if pt["nativeRef"] is None:
        await gql(ATTACH, id=pt["id"], ref=f"{provider}-{pt['id'][-6:]}", mode=history)
    ordinal = started["run"]["ordinal"]
    await gql(
        COMPLETE,
        runId=started["run"]["id"],
        turn=f"turn-{ordinal}",
        items=items,
        checkpoint=checkpoint,
    )
    return started


async def coverage_by_pt(gql: GraphQLClient, thread_id: str) -> dict[str, dict[str, Any]]:
    data = await gql(COVERAGE, id=thread_id)
    return {pt["id"]: pt for pt in data["thread"]["providerThreads"]}


def tokens_file(path: Path, tokens: dict[str, tuple[str, str]]) -> Path:
    """A tokens file granting each token (workspace, scope)."""
    lines = []
    for token, (workspace, scope) in tokens.items():
        digest = hashlib.sha256(token.encode()).hexdigest()
        lines.append(
            f'[[tokens]]\nname = "{token}"\nsha256 = "{digest}"\n'
            f'scopes = ["{scope}"]\nworkspace = "{workspace}"\n'
        )
    file = path / "tokens.toml"
    file.write_text("\n".join(lines))
    return file


class As(GraphQLClient):
    """A client that sends one bearer token (or none)."""

    def __init__(self, base: GraphQLClient, token: str | None) -> None:
        super().__init__(base.http)
        self.token = token
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def post(
        self, query: str, headers: dict[str, str] | None = None, **variables: Any
    ) -> dict[str, Any]:
        return await super().post(query, headers={**self.headers, **(headers or {})}, **variables)


FORK = """
mutation($id: ID!, $at: SourcePointInput!) {
  forkThread(sourceThreadId: $id, at: $at, title: "fork") {
    id relationshipToParent parent { id } root { id } providerThreads { id } runs { id }
    incomingTransfers {
      id type status sourceProvider resolutionStrategy handoff { id }
      sourcePoint { thread { id } run { ordinal } checkpoint { id }
                    providerThreadRef providerTurnRef }
    }
  }
}
"""

SPAWN = """mutation($run: ID!, $task: String!) {
  spawnSubagent(parentRunId: $run, task: $task, provider: "claude") {
    id createdBy relationshipToParent parent { id }
    incomingTransfers { id type status createdBy } } }"""

COMPLETE_SUBAGENT = """mutation($id: ID!, $result: String!) {
  completeSubagent(childThreadId: $id, result: $result) { id type status targetThread { id } } }"""
