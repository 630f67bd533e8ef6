"""Every mutation: its signature, and one call of `mutate` naming the command that does the
work (`api.commands`), the arguments its receipt covers, and how its answer is shaped."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Annotated, TypeVar

import strawberry

from api.commands import handoffs, imports, limits, lineage, runs
from api.graphql.answers import RollbackResult, SessionImport, StartContextResolution
from api.graphql.context import Info
from api.graphql.enums import HistoryMode, SessionFormat, SummarySource
from api.graphql.from_models import described
from api.graphql.inputs import (
    CheckpointInput,
    ContextUsageInput,
    RunItemInput,
    SourcePointInput,
)
from api.graphql.mutate import Answer, mutate, mutate_in_steps
from api.graphql.nodes import (
    ContextHandoff,
    ContextTransfer,
    ProviderThread,
    Run,
    Thread,
    by_id,
    required,
)
from api.graphql.providers import ProviderLimit
from graph import models
from resolvers.imports.detect import detect, without_bom
from resolvers.imports.writes import Imported
from resolvers.lineage.rollback import RollbackDecision
from resolvers.start.decision import StartRequest
from resolvers.start.writes import StartOutcome

V = TypeVar("V")


def _by_id(kind: type[V]) -> Answer[str, V]:
    """The answer of a command whose result is the id of a `kind`: that node, read fresh."""
    return Answer(str, lambda info, ident: required(by_id(info, kind, ident)))


THREAD: Answer[models.ThreadNode, Thread] = Answer(
    models.ThreadNode, lambda _, node: Thread.of(node)
)
THREAD_BY_ID = _by_id(Thread)
RUN: Answer[models.RunNode, Run] = Answer(models.RunNode, lambda _, node: Run.of(node))
PROVIDER_THREAD: Answer[models.ProviderThreadNode, ProviderThread] = Answer(
    models.ProviderThreadNode, lambda _, node: ProviderThread.of(node)
)
TRANSFER: Answer[models.TransferNode, ContextTransfer] = Answer(
    models.TransferNode, lambda _, node: ContextTransfer.of(node)
)
HANDOFF_BY_ID = _by_id(ContextHandoff)
LIMIT: Answer[models.ProviderLimitNode, ProviderLimit] = Answer(
    models.ProviderLimitNode, lambda _, limit: ProviderLimit.of(limit)
)
CLEARED: Answer[limits.Cleared, ProviderLimit | None] = Answer(
    limits.Cleared, lambda _, cleared: ProviderLimit.of(cleared.limit) if cleared.limit else None
)
IMPORTED: Answer[Imported, SessionImport] = Answer(Imported, SessionImport.of)
STARTED: Answer[StartOutcome, StartContextResolution] = Answer(
    StartOutcome, lambda _, outcome: StartContextResolution.of(outcome)
)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def create_thread(
        self,
        info: Info,
        title: str | None = None,
        id: strawberry.ID | None = None,
        command_id: str | None = None,
    ) -> Thread:
        return await mutate(
            info, command_id, {"title": title, "id": id}, THREAD, runs.create_thread, title, id
        )

    @described("The one entry point for every run: how it starts, its context.", mutation=True)
    async def start_run(
        self,
        info: Info,
        thread_id: strawberry.ID,
        provider: str,
        input: str,
        model: str | None = None,
        runtime_mode: str | None = None,
        command_id: str | None = None,
        summary_source: SummarySource | None = None,
        ignore_limit: bool | None = False,
    ) -> StartContextResolution:
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
        steps = runs.start_run(
            thread_id, request, source, info.context.summary_step, ignore_limit=ignore
        )
        return await mutate_in_steps(info, command_id, args, STARTED, steps)

    @strawberry.mutation
    async def attach_native_thread(
        self,
        info: Info,
        provider_thread_id: strawberry.ID,
        native_ref: str,
        history_mode: HistoryMode | None = models.HistoryMode.UNKNOWN,
        command_id: str | None = None,
    ) -> ProviderThread:
        mode = models.HistoryMode(history_mode or models.HistoryMode.UNKNOWN)
        args = {"id": provider_thread_id, "ref": native_ref, "mode": mode.value}
        return await mutate(
            info,
            command_id,
            args,
            PROVIDER_THREAD,
            runs.attach_native_thread,
            provider_thread_id,
            native_ref,
            mode,
        )

    @described(
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
        summary_source: SummarySource | None = None,
    ) -> StartContextResolution:
        source = models.SummarySource(summary_source) if summary_source else None
        args = {"runId": run_id, "reason": reason, **_source_arg(source)}
        steps = runs.report_start_failure(run_id, reason, source, info.context.summary_step)
        return await mutate_in_steps(info, command_id, args, STARTED, steps)

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
    ) -> Run:
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
            command_id,
            args,
            RUN,
            runs.complete_run,
            run_id,
            native_turn_ref,
            run_items,
            ref,
            diff,
            report,
        )

    @described(
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
    ) -> ProviderThread:
        report = usage.model()
        args = {"providerThreadId": provider_thread_id, "usage": report.model_dump()}
        return await mutate(
            info,
            command_id,
            args,
            PROVIDER_THREAD,
            runs.report_context_usage,
            provider_thread_id,
            report,
        )

    @strawberry.mutation
    async def fail_run(
        self, info: Info, run_id: strawberry.ID, reason: str, command_id: str | None = None
    ) -> Run:
        args = {"runId": run_id, "reason": reason}
        return await mutate(info, command_id, args, RUN, runs.fail_run, run_id, reason)

    @described(
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
    ) -> ProviderLimit:
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
            command_id,
            args,
            LIMIT,
            limits.report_provider_limit,
            provider,
            reason,
            resets_at,
            run_id,
            items,
        )

    @described(
        "Ends the provider's usage limit now: answers the limit it ended, or null.",
        mutation=True,
    )
    async def clear_provider_limit(
        self, info: Info, provider: str, command_id: str | None = None
    ) -> ProviderLimit | None:
        args = {"provider": provider}
        return await mutate(info, command_id, args, CLEARED, limits.clear_provider_limit, provider)

    @described(
        "A provider's own session file (Claude Code JSONL, Codex rollout JSONL, Gemini CLI "
        "JSON) as a thread: one completed run per request, natively covered by one provider "
        "thread. The same session again adds only its new runs. Without `format` the "
        "service tells it from the content (INVALID_INPUT naming the candidates when it "
        "cannot).",
        mutation=True,
    )
    async def import_session(
        self,
        info: Info,
        format: SessionFormat | None = None,
        *,
        content: str,
        thread_id: strawberry.ID | None = None,
        title: str | None = None,
        command_id: str | None = None,
    ) -> SessionImport:
        content = without_bom(content)
        chosen = models.SessionFormat(format) if format is not None else detect(content)
        args = {
            "format": chosen.value,
            "content": hashlib.sha256(content.encode()).hexdigest(),  # the file, by its hash
            "threadId": thread_id,
            "title": title,
        }
        return await mutate(
            info,
            command_id,
            args,
            IMPORTED,
            imports.import_session,
            chosen,
            content,
            thread_id,
            title,
        )

    @strawberry.mutation
    async def rollback_thread(
        self,
        info: Info,
        thread_id: strawberry.ID,
        to_run_ordinal: int,
        command_id: str | None = None,
    ) -> RollbackResult:
        args = {"threadId": thread_id, "to": to_run_ordinal}
        answer: Answer[RollbackDecision, RollbackResult] = Answer(
            RollbackDecision,
            lambda info, decision: RollbackResult.load(info, thread_id, decision),
        )
        return await mutate(
            info, command_id, args, answer, runs.rollback_thread, thread_id, to_run_ordinal
        )

    @strawberry.mutation
    async def regenerate_handoff(
        self, info: Info, handoff_id: strawberry.ID, command_id: str | None = None
    ) -> ContextHandoff:
        args = {"handoffId": handoff_id}
        return await mutate(
            info, command_id, args, HANDOFF_BY_ID, handoffs.regenerate_handoff, handoff_id
        )

    @described(
        "A handoff's text written by a provider, or by a person (createdByProvider omitted: "
        "summarySource PERSON). A READY handoff is superseded by a new one holding the "
        "text; a PENDING one is filled.",
        mutation=True,
    )
    async def submit_handoff_summary(
        self,
        info: Info,
        handoff_id: strawberry.ID,
        summary_text: str,
        created_by_provider: str | None = None,
        command_id: str | None = None,
    ) -> ContextHandoff:
        args = {"handoffId": handoff_id, "text": summary_text, "by": created_by_provider}
        return await mutate(
            info,
            command_id,
            args,
            HANDOFF_BY_ID,
            handoffs.submit_handoff_summary,
            handoff_id,
            summary_text,
            created_by_provider,
        )

    @described(
        "Writes now the handoff of the thread's own runs that the next startRun on this "
        "provider would inject (READY, no target run yet), for a person to read and replace "
        "with submitHandoffSummary. That start injects it as it is when its plan has not "
        "moved; else it supersedes it. CONFLICT when that start needs no such handoff or a "
        "run is in progress.",
        mutation=True,
    )
    async def prepare_handoff(
        self,
        info: Info,
        thread_id: strawberry.ID,
        provider: str,
        model: str | None = None,
        command_id: str | None = None,
    ) -> ContextHandoff:
        request = StartRequest(provider=provider, input="", model=model)
        args = {"threadId": thread_id, "provider": provider, "model": model}
        return await mutate(
            info, command_id, args, HANDOFF_BY_ID, handoffs.prepare_handoff, thread_id, request
        )

    @strawberry.mutation
    async def request_clean_context(
        self, info: Info, thread_id: strawberry.ID, command_id: str | None = None
    ) -> Thread:
        args = {"threadId": thread_id}
        return await mutate(
            info, command_id, args, THREAD_BY_ID, runs.request_clean_context, thread_id
        )

    @strawberry.mutation
    async def fork_thread(
        self,
        info: Info,
        source_thread_id: strawberry.ID,
        at: SourcePointInput,
        title: str | None = None,
        command_id: str | None = None,
        side: Annotated[
            bool | None,
            strawberry.argument(
                description="A side thread: a fork for a side question, never merged back "
                "and left out of lineage unless asked for."
            ),
        ] = False,
    ) -> Thread:
        latest, aside = bool(at.latest_stable), bool(side)
        run_id, checkpoint_id = at.run_id, at.checkpoint_id
        args = {
            "source": source_thread_id,
            "runId": run_id,
            "checkpointId": checkpoint_id,
            "latestStable": latest,
            "title": title,
            # Only when set: a receipt stored before these existed still matches.
            **({"itemIndex": at.item_index} if at.item_index is not None else {}),
            **({"side": True} if aside else {}),
        }
        return await mutate(
            info,
            command_id,
            args,
            THREAD,
            lineage.fork_thread,
            source_thread_id,
            run_id,
            checkpoint_id,
            latest,
            title,
            at.item_index,
            aside,
        )

    @strawberry.mutation
    async def merge_back(
        self, info: Info, fork_thread_id: strawberry.ID, command_id: str | None = None
    ) -> ContextTransfer:
        args = {"fork": fork_thread_id}
        return await mutate(info, command_id, args, TRANSFER, lineage.merge_back, fork_thread_id)

    @strawberry.mutation
    async def spawn_subagent(
        self,
        info: Info,
        parent_run_id: strawberry.ID,
        task: str,
        provider: str | None = None,
        command_id: str | None = None,
    ) -> Thread:
        if provider is not None:
            info.context.providers.get(provider)
        args = {"parentRunId": parent_run_id, "task": task, "provider": provider}
        return await mutate(
            info, command_id, args, THREAD, lineage.spawn_subagent, parent_run_id, task, provider
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
    ) -> Thread:
        info.context.providers.get(provider)
        args = {
            "parentRunId": parent_run_id,
            "provider": provider,
            "nativeRef": native_ref,
            "title": title,
        }
        return await mutate(
            info,
            command_id,
            args,
            THREAD,
            lineage.record_native_subagent,
            parent_run_id,
            provider,
            native_ref,
            title,
        )

    @strawberry.mutation
    async def complete_subagent(
        self,
        info: Info,
        child_thread_id: strawberry.ID,
        result: str,
        command_id: str | None = None,
    ) -> ContextTransfer:
        args = {"child": child_thread_id, "result": result}
        return await mutate(
            info, command_id, args, TRANSFER, lineage.complete_subagent, child_thread_id, result
        )


def _source_arg(source: models.SummarySource | None) -> dict[str, str]:
    """The summary source among a command's hashed arguments, only when given: a receipt
    recorded before the argument existed still matches a replay without it."""
    return {"summarySource": source.value} if source else {}
