"""The MCP tools, each one operation of the public GraphQL schema.

A tool runs its operation in-process, as the caller (their token's workspace and scope),
through the same schema the `/graphql` endpoint serves: every rule, limit, scope check and
error code is the GraphQL API's own, and an answer is exactly what GraphQL answers. Each
operation is named after its tool, so a refusal's audit line names the tool.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from strawberry import Schema

from api.auth import Principal
from api.graphql.context import Context
from api.graphql.errors import with_code
from api.services import Services
from graph.errors import ErrorCode


@dataclass(frozen=True)
class Answer:
    """A tool's result: the GraphQL value, or the first error's code and message."""

    value: Any = None
    code: str | None = None
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.code is not None


@dataclass(frozen=True)
class Operation:
    """`document`'s answer is the value of its field `root`. `missing` names what a null
    (or empty) answer means, which a tool reports as NOT_FOUND rather than as nothing."""

    document: str
    root: str
    missing: str | None = None
    empty: Callable[[Any], bool] = lambda value: value is None


# The id the warm-up reads: no thread or handoff has it (a server-made id has a prefix).
WARM_UP_ID = "threadline-warm-up"
THREAD_SUMMARY = "id title createdAt relationshipToParent parent { id } root { id }"

LIST_THREADS = Operation(
    f"""query list_threads($first: Int, $after: String, $titleContains: String,
  $newestFirst: Boolean) {{
  threads(first: $first, after: $after, titleContains: $titleContains,
    newestFirst: $newestFirst) {{
    edges {{ cursor node {{ {THREAD_SUMMARY} }} }} pageInfo {{ hasNextPage endCursor }} }} }}""",
    "threads",
)
THREAD_READ = Operation(
    """query thread_read($id: ID!, $first: Int, $after: String, $kinds: [RunItemKind!],
  $runOrdinals: [Int!]) {
  thread(id: $id) { items(first: $first, after: $after, kinds: $kinds, runOrdinals: $runOrdinals) {
    edges { cursor node { runId runOrdinal index kind text key path attributes } }
    pageInfo { hasNextPage endCursor } } } }""",
    "thread",
    missing="thread",
)
THREAD_CONTEXT = Operation(
    f"""query thread_context($id: ID!) {{ thread(id: $id) {{ {THREAD_SUMMARY} cleanContextRequested
  runs {{ id ordinal provider status }}
  providerThreads {{ id provider status nativeRef
    coverage {{ nativeRunOrdinals coveredRunOrdinals missingRunOrdinals }} }} }} }}""",
    "thread",
    missing="thread",
)
LINEAGE = Operation(
    """query lineage($id: ID!, $direction: LineageDirection, $depth: Int) {
  lineage(threadId: $id, direction: $direction, depth: $depth) {
    nodes { depth thread { id title relationshipToParent } }
    edges { from to relationship sourceRunOrdinal } } }""",
    "lineage",
    missing="thread",
    empty=lambda value: value is None or not value["nodes"],
)
PLAN = """strategy providerAction providerThread { id provider }
  handoffStrategies coveredRunOrdinals tokenEstimate omittedCount stalenessSignals explanation
  budget { windowTokens windowSource usedTokens reserveTokens capTokens budgetTokens }"""
EXPLAIN_START = Operation(
    f"""query explain_start($id: ID!, $provider: String!, $model: String) {{
  explainStartContext(threadId: $id, provider: $provider, model: $model) {{ {PLAN} }} }}""",
    "explainStartContext",
)
HANDOFF = """id status strategy kind summaryText tokenEstimate
  summarySource createdByProvider coveredRunOrdinals { from to }
  thread { id } toProviderThread { id provider }
  omitted { runOrdinal index kind key path tokenEstimate cut }
  quality { score fidelity facets { kind kept total missing } }"""
GET_HANDOFF = Operation(
    f"""query get_handoff($id: ID!) {{ handoff(id: $id) {{ {HANDOFF} }} }}""",
    "handoff",
    missing="handoff",
)
SUGGEST_PROVIDERS = Operation(
    f"""query suggest_providers($id: ID!) {{
  suggestProviders(threadId: $id) {{ provider available resetsAt
  plan {{ {PLAN} }} }} }}""",
    "suggestProviders",
)
SEARCH = Operation(
    """query search($query: String!, $kinds: [RunItemKind!], $first: Int) {
  search(query: $query, kinds: $kinds, first: $first) {
    thread { id title } runOrdinal index kind snippet score } }""",
    "search",
)
# What a handoff resource holds: the text the next start on the provider would inject.
HANDOFF_TEXT = Operation(
    """query handoff_text($id: ID!, $provider: String!) {
  explainStartContext(threadId: $id, provider: $provider) { contextText } }""",
    "explainStartContext",
)

# ---- the agent's own writes: each the mutation of the same name, with its commandId ------

TRANSFER = """id type status sourceProvider targetProvider resolutionStrategy createdAt
  sourceThread { id } targetThread { id } handoff { id status tokenEstimate }"""
FORK_THREAD = Operation(
    f"""mutation fork_thread($id: ID!, $at: SourcePointInput!, $title: String,
  $commandId: String) {{
  forkThread(sourceThreadId: $id, at: $at, title: $title, commandId: $commandId) {{
    {THREAD_SUMMARY} incomingTransfers {{ id type status }} }} }}""",
    "forkThread",
)
PREPARE_HANDOFF = Operation(
    """mutation prepare_handoff($id: ID!, $provider: String!, $model: String, $commandId: String) {
  prepareHandoff(threadId: $id, provider: $provider, model: $model, commandId: $commandId) {
    id status strategy kind summaryText tokenEstimate summarySource preparedFor
    coveredRunOrdinals { from to } thread { id } } }""",
    "prepareHandoff",
)
MERGE_BACK = Operation(
    f"""mutation merge_back($id: ID!, $commandId: String) {{
  mergeBack(forkThreadId: $id, commandId: $commandId) {{ {TRANSFER} }} }}""",
    "mergeBack",
)
SPAWN_SUBAGENT = Operation(
    f"""mutation spawn_subagent($id: ID!, $task: String!, $provider: String, $commandId: String) {{
  spawnSubagent(parentRunId: $id, task: $task, provider: $provider, commandId: $commandId) {{
    {THREAD_SUMMARY} incomingTransfers {{ id type status }} }} }}""",
    "spawnSubagent",
)
COMPLETE_SUBAGENT = Operation(
    f"""mutation complete_subagent($id: ID!, $result: String!, $commandId: String) {{
  completeSubagent(childThreadId: $id, result: $result, commandId: $commandId) {{
    {TRANSFER} }} }}""",
    "completeSubagent",
)
REPORT_LIMIT = Operation(
    """mutation report_limit($provider: String!, $reason: String!, $resetsAt: DateTime, $runId: ID,
  $commandId: String) {
  reportProviderLimit(provider: $provider, reason: $reason, resetsAt: $resetsAt, runId: $runId,
    commandId: $commandId) { provider reason resetsAt reportedAt active } }""",
    "reportProviderLimit",
)
REPORT_USAGE = Operation(
    """mutation report_usage($id: ID!, $usage: ContextUsageInput!, $commandId: String) {
  reportContextUsage(providerThreadId: $id, usage: $usage, commandId: $commandId) {
    id provider status contextUsage { contextTokens contextWindowTokens reportedAt } } }""",
    "reportContextUsage",
)
SUBMIT_HANDOFF_SUMMARY = Operation(
    f"""mutation submit_handoff_summary($id: ID!, $text: String!, $by: String,
  $commandId: String) {{
  submitHandoffSummary(handoffId: $id, summaryText: $text, createdByProvider: $by,
    commandId: $commandId) {{ {HANDOFF} }} }}""",
    "submitHandoffSummary",
)


class Gateway:
    """Runs operations as a principal on the app's schema and services."""

    def __init__(
        self, schema: Schema, services: Callable[[], Services], cold_wait_s: float = 0.0
    ) -> None:
        self._schema = schema
        self._services = services
        self._cold_wait_s = cold_wait_s

    @property
    def sdl(self) -> str:
        """The schema the operations run on, as SDL: what their answers' types are read from."""
        return self._schema.as_str()

    def waiting_for_warm_up(self, wait_s: float) -> Gateway:
        """This gateway, its calls made before the first warm-up has ended waiting up to
        `wait_s` for it: for a caller that cannot wait for /readyz, as `threadline mcp`'s
        agent calls as soon as the process starts, when a cold Neo4j plans each statement
        in seconds and every early call ran out of time (UNAVAILABLE). After an outage
        calls do not wait: statements are planned as they are needed, as for `serve`."""
        return Gateway(self._schema, self._services, wait_s)

    async def ready(self, principal: Principal) -> None:
        """The first warm-up done, then each read tool's operation run once as `principal`,
        on the caller's newest thread (or, in an empty workspace, an id none holds): its
        document parsed and validated, its code paths and statements run with the shapes
        real calls have, so that the first call an agent makes takes what later ones
        take. Reads only: nothing is written."""
        await self._services().store.warm_up.wait()
        newest = await self.run(principal, LIST_THREADS, {"first": 1, "newestFirst": True})
        edges = [] if newest.failed else newest.value["edges"]
        thread = edges[0]["node"]["id"] if edges else WARM_UP_ID
        for provider in [p.kind for p in self._services().providers.all()]:
            for operation, variables in (
                (SEARCH, {"query": "warm up", "first": 1}),
                (THREAD_READ, {"id": thread}),
                (THREAD_CONTEXT, {"id": thread}),
                (LINEAGE, {"id": thread}),
                (EXPLAIN_START, {"id": thread, "provider": provider}),
                (GET_HANDOFF, {"id": WARM_UP_ID}),
                (SUGGEST_PROVIDERS, {"id": thread}),
                (HANDOFF_TEXT, {"id": thread, "provider": provider}),
            ):
                await self.run(principal, operation, variables)

    async def run(
        self, principal: Principal, operation: Operation, variables: Mapping[str, Any]
    ) -> Answer:
        services = self._services()
        if self._cold_wait_s and not services.store.warm_up.serving:
            with contextlib.suppress(TimeoutError):  # then as any call: on the request's bound
                async with asyncio.timeout(self._cold_wait_s):
                    await services.store.warm_up.wait()
        context = Context(services, principal=principal, path="/mcp")
        result = await self._schema.execute(
            operation.document, variable_values=dict(variables), context_value=context
        )
        if result.errors:
            first = with_code(result.errors[0].formatted)
            return Answer(code=first["extensions"]["code"], message=first["message"])
        value = (result.data or {}).get(operation.root)
        if operation.missing and operation.empty(value):
            ident = variables.get("id")
            return Answer(
                code=ErrorCode.NOT_FOUND.value,
                message=f"No {operation.missing} with id {ident!r} in this workspace.",
            )
        return Answer(value=value)
