"""Every mutation: its signature, and one call of `mutate` naming the command that does the
work (`api.commands`), the arguments its receipt covers, and how its answer is shaped."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TypeVar

import strawberry

from api.commands import handoffs, imports, limits, lineage, runs
from api.graphql import answers as a
from api.graphql import types as t
from api.graphql.inputs import (
    CheckpointInput,
    ContextUsageInput,
    RunItemInput,
    SourcePointInput,
)
from api.graphql.mutate import mutate
from graph import models
from resolvers.imports.plan import Imported
from resolvers.lineage.rollback import RollbackDecision
from resolvers.start.decision import StartRequest
from resolvers.start.plan import StartOutcome

Info = t.Info
V = TypeVar("V")


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def create_thread(
        self,
        info: Info,
        title: str | None = None,
        id: strawberry.ID | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        return await mutate(
            info,
            "createThread",
            {"title": title, "id": id},
            command_id,
            models.ThreadNode,
            lambda tx, caller: runs.create_thread(tx, caller, title, id),
            t.Thread.of,
        )

    @t.described("The one entry point for every run: how it starts, its context.", mutation=True)
    async def start_run(
        self,
        info: Info,
        thread_id: strawberry.ID,
        provider: str,
        input: str,
        model: str | None = None,
        runtime_mode: str | None = None,
        command_id: str | None = None,
        summary_source: t.SummarySource | None = None,
        ignore_limit: bool | None = False,
    ) -> a.StartContextResolution:
        request = StartRequest(
            provider=provider, input=input, model=model, runtimeMode=runtime_mode
        )
        source = models.SummarySource(summary_source) if summary_source else None
        ignore = bool(ignore_limit)
        args = {
            "threadId": thread_id,
            **request.model_dump(),
            **_source_arg(source),
            # Only when set: a receipt stored before the argument existed still matches.
            **({"ignoreLimit": True} if ignore else {}),
        }
        return await mutate(
            info,
            "startRun",
            args,
            command_id,
            StartOutcome,
            lambda tx, caller: runs.start_run(
                tx, caller, thread_id, request, source, ignore_limit=ignore
            ),
            lambda outcome: _started(info, outcome, command_id),
        )

    @strawberry.mutation
    async def attach_native_thread(
        self,
        info: Info,
        provider_thread_id: strawberry.ID,
        native_ref: str,
        history_mode: t.HistoryMode | None = models.HistoryMode.UNKNOWN,
        command_id: str | None = None,
    ) -> t.ProviderThread:
        mode = models.HistoryMode(history_mode or models.HistoryMode.UNKNOWN)
        return await mutate(
            info,
            "attachNativeThread",
            {"id": provider_thread_id, "ref": native_ref, "mode": mode.value},
            command_id,
            models.ProviderThreadNode,
            lambda tx, caller: runs.attach_native_thread(
                tx, caller, provider_thread_id, native_ref, mode
            ),
            t.ProviderThread.of,
        )

    @t.described(
        "The provider action failed: the run moves to a new provider thread. While the run "
        "waits for a summary, the summary failed: its handoff becomes FAILED and a new one "
        "(the local summary, or `summarySource`) replaces it.",
        mutation=True,
    )
    async def report_start_failure(
        self,
        info: Info,
        run_id: strawberry.ID,
        reason: str,
        command_id: str | None = None,
        summary_source: t.SummarySource | None = None,
    ) -> a.StartContextResolution:
        source = models.SummarySource(summary_source) if summary_source else None
        return await mutate(
            info,
            "reportStartFailure",
            {"runId": run_id, "reason": reason, **_source_arg(source)},
            command_id,
            StartOutcome,
            lambda tx, caller: runs.report_start_failure(tx, caller, run_id, reason, source),
            lambda outcome: _started(info, outcome, command_id),
        )

    @strawberry.mutation
    async def complete_run(
        self,
        info: Info,
        run_id: strawberry.ID,
        native_turn_ref: str | None = None,
        items: list[RunItemInput] | None = None,
        checkpoint: CheckpointInput | None = None,
        command_id: str | None = None,
        usage: ContextUsageInput | None = None,
    ) -> t.Run:
        run_items = [item.model() for item in items or []]
        report = usage.model() if usage is not None else None
        diff = [s.model() for s in checkpoint.diff_summary] if checkpoint is not None else None
        ref = checkpoint.ref if checkpoint else None
        args = {
            "runId": run_id,
            "nativeTurnRef": native_turn_ref,
            "items": [i.model_dump() for i in run_items],
            "checkpointRef": ref,
            "diff": [d.model_dump() for d in diff] if diff is not None else None,
            # Only when given: a receipt stored before `usage` existed still matches.
            **({"usage": report.model_dump()} if report is not None else {}),
        }
        return await mutate(
            info,
            "completeRun",
            args,
            command_id,
            models.RunNode,
            lambda tx, caller: runs.complete_run(
                tx, caller, run_id, native_turn_ref, run_items, ref, diff, report
            ),
            t.Run.of,
        )

    @t.described(
        "What a native thread holds now, as its provider reported it (after a native "
        "compaction, say): the next start's budget starts from it.",
        mutation=True,
    )
    async def report_context_usage(
        self,
        info: Info,
        provider_thread_id: strawberry.ID,
        usage: ContextUsageInput,
        command_id: str | None = None,
    ) -> t.ProviderThread:
        report = usage.model()
        return await mutate(
            info,
            "reportContextUsage",
            {"providerThreadId": provider_thread_id, "usage": report.model_dump()},
            command_id,
            models.ProviderThreadNode,
            lambda tx, caller: runs.report_context_usage(tx, caller, provider_thread_id, report),
            t.ProviderThread.of,
        )

    @strawberry.mutation
    async def fail_run(
        self, info: Info, run_id: strawberry.ID, reason: str, command_id: str | None = None
    ) -> t.Run:
        return await mutate(
            info,
            "failRun",
            {"runId": run_id, "reason": reason},
            command_id,
            models.RunNode,
            lambda tx, caller: runs.fail_run(tx, caller, run_id, reason),
            t.Run.of,
        )

    @t.described(
        "A provider account ran out: starts on it are refused until resetsAt (or until "
        "cleared). With runId, that run (in progress on the provider) is INTERRUPTED and "
        "keeps partialItems as its items.",
        mutation=True,
    )
    async def report_provider_limit(
        self,
        info: Info,
        provider: str,
        reason: str,
        resets_at: datetime | None = None,
        run_id: strawberry.ID | None = None,
        partial_items: list[RunItemInput] | None = None,
        command_id: str | None = None,
    ) -> t.ProviderLimit:
        items = [item.model() for item in partial_items or []]
        args = {
            "provider": provider,
            "reason": reason,
            "resetsAt": resets_at.isoformat() if resets_at else None,
            "runId": run_id,
            "items": [item.model_dump() for item in items],
        }
        return await mutate(
            info,
            "reportProviderLimit",
            args,
            command_id,
            models.ProviderLimitNode,
            lambda tx, caller: limits.report_provider_limit(
                tx, caller, provider, reason, resets_at, run_id, items
            ),
            t.ProviderLimit.of,
        )

    @t.described(
        "Ends the provider's usage limit now: answers the limit it ended, or null.",
        mutation=True,
    )
    async def clear_provider_limit(
        self, info: Info, provider: str, command_id: str | None = None
    ) -> t.ProviderLimit | None:
        return await mutate(
            info,
            "clearProviderLimit",
            {"provider": provider},
            command_id,
            limits.Cleared,
            lambda tx, caller: limits.clear_provider_limit(tx, caller, provider),
            lambda cleared: t.ProviderLimit.of(cleared.limit) if cleared.limit else None,
        )

    @t.described(
        "A provider's own session file (Claude Code JSONL, Codex rollout JSONL) as a thread: "
        "one completed run per request, natively covered by one provider thread. The same "
        "session again adds only its new runs.",
        mutation=True,
    )
    async def import_session(
        self,
        info: Info,
        format: t.SessionFormat,
        content: str,
        thread_id: strawberry.ID | None = None,
        title: str | None = None,
        command_id: str | None = None,
    ) -> a.SessionImport:
        chosen = models.SessionFormat(format)
        args = {
            "format": chosen.value,
            "content": hashlib.sha256(content.encode()).hexdigest(),  # the file, by its hash
            "threadId": thread_id,
            "title": title,
        }
        return await mutate(
            info,
            "importSession",
            args,
            command_id,
            Imported,
            lambda tx, caller: imports.import_session(
                tx, caller, chosen, content, thread_id, title
            ),
            lambda made: a.SessionImport.of(info, made),
        )

    @strawberry.mutation
    async def rollback_thread(
        self,
        info: Info,
        thread_id: strawberry.ID,
        to_run_ordinal: int,
        command_id: str | None = None,
    ) -> a.RollbackResult:
        return await mutate(
            info,
            "rollbackThread",
            {"threadId": thread_id, "to": to_run_ordinal},
            command_id,
            RollbackDecision,
            lambda tx, caller: runs.rollback_thread(tx, caller, thread_id, to_run_ordinal),
            lambda decision: a.RollbackResult.load(info, thread_id, decision),
        )

    @strawberry.mutation
    async def regenerate_handoff(
        self, info: Info, handoff_id: strawberry.ID, command_id: str | None = None
    ) -> t.ContextHandoff:
        return await mutate(
            info,
            "regenerateHandoff",
            {"handoffId": handoff_id},
            command_id,
            str,
            lambda tx, caller: handoffs.regenerate_handoff(tx, caller, handoff_id),
            _node(info, t.ContextHandoff),
        )

    @strawberry.mutation
    async def submit_handoff_summary(
        self,
        info: Info,
        handoff_id: strawberry.ID,
        summary_text: str,
        created_by_provider: str,
        command_id: str | None = None,
    ) -> t.ContextHandoff:
        return await mutate(
            info,
            "submitHandoffSummary",
            {"handoffId": handoff_id, "text": summary_text, "by": created_by_provider},
            command_id,
            str,
            lambda tx, caller: handoffs.submit_handoff_summary(
                tx, caller, handoff_id, summary_text, created_by_provider
            ),
            _node(info, t.ContextHandoff),
        )

    @strawberry.mutation
    async def request_clean_context(
        self, info: Info, thread_id: strawberry.ID, command_id: str | None = None
    ) -> t.Thread:
        return await mutate(
            info,
            "requestCleanContext",
            {"threadId": thread_id},
            command_id,
            str,
            lambda tx, caller: runs.request_clean_context(tx, caller, thread_id),
            _node(info, t.Thread),
        )

    @strawberry.mutation
    async def fork_thread(
        self,
        info: Info,
        source_thread_id: strawberry.ID,
        at: SourcePointInput,
        title: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        latest = bool(at.latest_stable)
        return await mutate(
            info,
            "forkThread",
            {
                "source": source_thread_id,
                "runId": at.run_id,
                "checkpointId": at.checkpoint_id,
                "latestStable": latest,
                "title": title,
            },
            command_id,
            models.ThreadNode,
            lambda tx, caller: lineage.fork_thread(
                tx, caller, source_thread_id, at.run_id, at.checkpoint_id, latest, title
            ),
            t.Thread.of,
        )

    @strawberry.mutation
    async def merge_back(
        self, info: Info, fork_thread_id: strawberry.ID, command_id: str | None = None
    ) -> t.ContextTransfer:
        return await mutate(
            info,
            "mergeBack",
            {"fork": fork_thread_id},
            command_id,
            models.TransferNode,
            lambda tx, caller: lineage.merge_back(tx, caller, fork_thread_id),
            t.ContextTransfer.of,
        )

    @strawberry.mutation
    async def spawn_subagent(
        self,
        info: Info,
        parent_run_id: strawberry.ID,
        task: str,
        provider: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        if provider is not None:
            info.context.providers.get(provider)
        return await mutate(
            info,
            "spawnSubagent",
            {"parentRunId": parent_run_id, "task": task, "provider": provider},
            command_id,
            models.ThreadNode,
            lambda tx, caller: lineage.spawn_subagent(tx, caller, parent_run_id, task, provider),
            t.Thread.of,
        )

    @strawberry.mutation
    async def record_native_subagent(
        self,
        info: Info,
        parent_run_id: strawberry.ID,
        provider: str,
        native_ref: str,
        title: str | None = None,
        command_id: str | None = None,
    ) -> t.Thread:
        info.context.providers.get(provider)
        return await mutate(
            info,
            "recordNativeSubagent",
            {
                "parentRunId": parent_run_id,
                "provider": provider,
                "nativeRef": native_ref,
                "title": title,
            },
            command_id,
            models.ThreadNode,
            lambda tx, caller: lineage.record_native_subagent(
                tx, caller, parent_run_id, provider, native_ref, title
            ),
            t.Thread.of,
        )

    @strawberry.mutation
    async def complete_subagent(
        self,
        info: Info,
        child_thread_id: strawberry.ID,
        result: str,
        command_id: str | None = None,
    ) -> t.ContextTransfer:
        return await mutate(
            info,
            "completeSubagent",
            {"child": child_thread_id, "result": result},
            command_id,
            models.TransferNode,
            lambda tx, caller: lineage.complete_subagent(tx, caller, child_thread_id, result),
            t.ContextTransfer.of,
        )


async def _started(
    info: Info, outcome: StartOutcome, command_id: str | None
) -> a.StartContextResolution:
    """A start's answer once its configured summaries, if any, are in."""
    return a.StartContextResolution.of(await info.context.finish_summaries(outcome, command_id))


def _node(info: Info, kind: type[V]) -> Callable[[str], Awaitable[V]]:
    """The answer of a command whose result is the id of a `kind`: that node, read fresh."""
    return lambda ident: t.required(t.by_id(info, kind, ident))


def _source_arg(source: models.SummarySource | None) -> dict[str, str]:
    """The summary source among a command's hashed arguments, only when given: a receipt
    recorded before the argument existed still matches a replay without it."""
    return {"summarySource": source.value} if source else {}
