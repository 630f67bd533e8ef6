"""`threadline import FILE`: a provider's session file made a thread (its format told from
the content, or named by --format), sent in pieces of whole runs so that a long session fits
the service's request limit."""

from __future__ import annotations

import asyncio
import secrets
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from api.cli import checked
from api.cli.target import TOKEN_OPTION, url_option
from graph.errors import ThreadlineError
from graph.models import SessionFormat

if TYPE_CHECKING:
    from threadline_client import ThreadlineClient
    from threadline_client.import_session import ImportSessionImportSession


class FileFormat(StrEnum):
    claude_code = "claude-code"
    codex = "codex"
    gemini = "gemini"

    @property
    def session_format(self) -> SessionFormat:
        return {
            FileFormat.claude_code: SessionFormat.CLAUDE_CODE_JSONL,
            FileFormat.codex: SessionFormat.CODEX_ROLLOUT_JSONL,
            FileFormat.gemini: SessionFormat.GEMINI_CLI_JSON,
        }[self]


def import_file(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The session file.")],
    fmt: Annotated[
        FileFormat | None,
        typer.Option(
            "--format", "-f", help="claude-code, codex or gemini (default: told from the file)."
        ),
    ] = None,
    thread_id: str | None = typer.Option(None, help="The id of the thread a first import makes."),
    title: str | None = typer.Option(None, help="Its title (default: the first request)."),
    workspace: str = typer.Option(
        "default",
        help="The workspace of an in-process import (over a service the token decides).",
        callback=checked.workspace,
    ),
    url: str | None = url_option("Import into"),
    token: str | None = TOKEN_OPTION,
    piece_chars: int = typer.Option(
        1_000_000, min=10_000, help="Characters of the file sent per request, at most."
    ),
) -> None:
    """Import a Claude Code session (~/.claude/projects/...), a Codex rollout
    (~/.codex/sessions/...) or a Gemini CLI session (~/.gemini/tmp/.../chats/...); importing
    it again adds only its new runs."""

    from api.cli.demo_client import DemoError, in_process, remote
    from api.cli.target import quiet_driver_notifications, service_to_use
    from graph.runtime.local_neo4j import LocalNeo4jError
    from resolvers.imports.detect import decoded, detect
    from resolvers.imports.pieces import pieces
    from resolvers.imports.writes import parse

    settings = checked.settings()
    quiet_driver_notifications()
    try:
        content = decoded(file.read_bytes())
        session_format = fmt.session_format if fmt is not None else detect(content)
        parsed = parse(session_format, content)
        # A JSON document is sent whole; a file of JSON lines in pieces of whole runs.
        whole = session_format is SessionFormat.GEMINI_CLI_JSON
        cut = [content] if whole else pieces(content, parsed, piece_chars)
    except ThreadlineError as error:
        typer.echo(f"{file}: {error.message}", err=True)
        raise typer.Exit(2) from error

    url = service_to_use(settings, url, workspace, "importing into")

    async def send() -> list[ImportSessionImportSession]:
        connected = remote(url, token) if url else in_process(settings, workspace)
        async with connected as client:
            return await send_pieces(client, session_format, cut, thread_id, title)

    try:
        answers = asyncio.run(send())
    except (DemoError, LocalNeo4jError, ThreadlineError, OSError) as error:
        # Neo4j's own error is one line; a managed Neo4j that would not start, its line
        # and then the tail of its log.
        reason = " ".join(error.message.split()) if isinstance(error, ThreadlineError) else error
        typer.echo(f"The import failed: {reason}", err=True)
        raise typer.Exit(1) from error
    imported = sum(a.imported_runs for a in answers)
    skipped = sum(a.skipped_runs for a in answers)
    thread = answers[-1].thread.id
    typer.echo(
        f"thread {thread}: {imported} run{'s' if imported != 1 else ''} imported, "
        f"{skipped} already there"
    )


async def send_pieces(
    client: ThreadlineClient,
    session_format: SessionFormat,
    cut: list[str],
    thread_id: str | None,
    title: str | None,
) -> list[ImportSessionImportSession]:
    """Each piece in turn, with a commandId of this import's own: a piece retried after
    UNAVAILABLE (a Neo4j just started, or away for a moment) is never imported twice."""
    import threadline_client

    from api.cli.demo_client import retried

    run_key = secrets.token_hex(8)

    async def one(number: int, piece: str) -> ImportSessionImportSession:
        found = await client.import_session(
            format=threadline_client.SessionFormat(session_format.value),
            content=piece,
            thread_id=thread_id,
            title=title,
            command_id=f"import-{run_key}-{number}",
        )
        return found.import_session

    return [await retried(partial(one, n, p)) for n, p in enumerate(cut, start=1)]
