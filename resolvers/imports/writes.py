"""What an import writes: a thread (new, or the session's from an earlier import), one
provider thread holding the session natively, and the session's runs not imported yet."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from graph import events
from graph.errors import conflict
from graph.models import (
    DIGEST_VERSION,
    HistoryMode,
    ProviderThreadNode,
    ProviderThreadStatus,
    RunNode,
    RunStatus,
    SessionFormat,
)
from graph.plan import ProviderThreadChange, RunChange, ThreadChange
from graph.ranges import Ranges
from graph.thread_state import ThreadState
from resolvers import runs
from resolvers.draft import Draft
from resolvers.handoffs.digests import digest_of, tokens_held
from resolvers.imports import claude_code, codex, gemini_cli
from resolvers.imports.session import ImportedRun, ParsedSession

TITLE_LIMIT = 80


def parse(session_format: SessionFormat, content: str) -> ParsedSession:
    if session_format is SessionFormat.CLAUDE_CODE_JSONL:
        return claude_code.parse(content)
    if session_format is SessionFormat.GEMINI_CLI_JSON:
        return gemini_cli.parse(content)
    return codex.parse(content)


def session_key(parsed: ParsedSession) -> str:
    return f"{parsed.provider}:{parsed.sessionId}"


class Earlier(BaseModel):
    """The session as an earlier import left it: its thread (locked) and provider thread,
    and the fingerprints of the runs already imported."""

    model_config = ConfigDict(frozen=True)

    state: ThreadState
    providerThread: ProviderThreadNode
    importKeys: frozenset[str]


class Imported(BaseModel):
    model_config = ConfigDict(frozen=True)

    threadId: str
    providerThreadId: str
    importedRuns: int
    skippedRuns: int


def import_session(
    draft: Draft,
    workspace: str,
    parsed: ParsedSession,
    earlier: Earlier | None,
    thread_id: str | None,
    title: str | None,
) -> Imported:
    """The runs of `parsed` not imported before, appended in the file's order. A run is
    the same run when its fingerprint is (its request at its instant): the same file
    again, or a shorter copy, adds nothing; a longer copy adds its new runs."""
    if thread_id is not None:
        runs.chosen_thread_id(thread_id)
    if earlier is None:
        return _first(draft, workspace, parsed, thread_id, title)
    state, pt = earlier.state, earlier.providerThread
    if thread_id is not None and thread_id != state.thread.id:
        raise conflict(
            f"Session {parsed.sessionId} was imported into thread {state.thread.id!r}, "
            f"not {thread_id!r}."
        )
    if state.run_in_progress is not None:
        raise conflict(
            f"Run {state.run_in_progress.ordinal} is in progress on thread "
            f"{state.thread.id!r}: import more of the session once it has ended."
        )
    new = [run for run in parsed.runs if run.fingerprint not in earlier.importKeys]
    skipped = len(parsed.runs) - len(new)
    _append(draft, state.thread.id, state.thread.lastOrdinal, pt, parsed, new, skipped)
    return Imported(
        threadId=state.thread.id,
        providerThreadId=pt.id,
        importedRuns=len(new),
        skippedRuns=skipped,
    )


def _first(
    draft: Draft,
    workspace: str,
    parsed: ParsedSession,
    thread_id: str | None,
    title: str | None,
) -> Imported:
    named = title or _title(parsed)
    thread = runs.create_thread(draft, workspace, named, thread_id)
    last = parsed.runs[-1] if parsed.runs else None
    pt = ProviderThreadNode(
        id=draft.new_id("pth"),
        threadId=thread.id,
        provider=parsed.provider,
        nativeRef=parsed.sessionId,
        status=ProviderThreadStatus.ACTIVE,
        model=last.model if last else None,
        historyMode=HistoryMode.UNKNOWN,
        createdAt=draft.at,
        lastUsedAt=draft.at,
        sessionKey=session_key(parsed),
    )
    draft.provider_thread(pt)
    draft.event(
        thread.id, events.ProviderThreadCreated(providerThreadId=pt.id, provider=pt.provider)
    )
    draft.event(
        thread.id,
        events.ProviderThreadAttached(
            providerThreadId=pt.id, nativeRef=parsed.sessionId, historyMode=pt.historyMode
        ),
    )
    _append(draft, thread.id, 0, pt, parsed, parsed.runs, 0)
    return Imported(
        threadId=thread.id, providerThreadId=pt.id, importedRuns=len(parsed.runs), skippedRuns=0
    )


def _append(
    draft: Draft,
    thread_id: str,
    last_ordinal: int,
    pt: ProviderThreadNode,
    parsed: ParsedSession,
    runs: list[ImportedRun],
    skipped: int,
) -> None:
    """`runs` as completed runs after `last_ordinal`, native on `pt`."""
    held = pt.heldTokens
    for offset, imported in enumerate(runs, start=1):
        run = RunNode(
            id=draft.new_id("run"),
            threadId=thread_id,
            ordinal=last_ordinal + offset,
            provider=parsed.provider,
            model=imported.model,
            status=RunStatus.COMPLETED,
            input=imported.input,
            providerThreadId=pt.id,
            startedAt=imported.startedAt or draft.at,
            completedAt=imported.completedAt or imported.startedAt or draft.at,
            items=imported.items(),
            importKey=imported.fingerprint,
        )
        draft.run(run)
        digest = digest_of(run)
        held += tokens_held(run, digest)
        draft.content(run.id, run.items, None)
        draft.change(RunChange(id=run.id, digest=digest, digestVersion=DIGEST_VERSION))
    added = Ranges.span(last_ordinal + 1, last_ordinal + len(runs)) if runs else Ranges()
    if runs:
        draft.change(ThreadChange(id=thread_id, lastOrdinal=last_ordinal + len(runs)))
        draft.change(
            ProviderThreadChange(
                id=pt.id,
                nativeRanges=(pt.native | added).flatten(),
                lastUsedAt=draft.at,
                heldTokens=held,
            )
        )
    draft.event(
        thread_id,
        events.SessionImported(
            providerThreadId=pt.id,
            sessionId=parsed.sessionId,
            importedRuns=len(runs),
            skippedRuns=skipped,
            covered=[last_ordinal + 1, last_ordinal + len(runs)] if runs else None,
        ),
    )


def _title(parsed: ParsedSession) -> str:
    first = parsed.runs[0].input if parsed.runs else parsed.sessionId
    flat = " ".join(first.split())
    return flat if len(flat) <= TITLE_LIMIT else flat[: TITLE_LIMIT - 1] + "…"
