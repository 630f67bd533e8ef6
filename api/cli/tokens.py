"""`threadline new-token` and `revoke-token`: bearer tokens and the tokens file.

The file is changed by writing a whole new one beside it and renaming it over the old
(`_replace`): a running service re-reads it and never sees half of it. Each change is a
line in the audit log.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from api import audit
from api.audit import Audit
from api.auth import Scope
from api.cli import checked
from api.cli.checked import file_to_write

EXPIRES_HELP = (
    "When it stops working: a duration from now (a whole number and m, h, d or w: 30d) "
    "or an ISO 8601 date or date-time (no offset = UTC; a date alone = 00:00 UTC that day)."
)


def _named(name: str) -> str:
    if not name.strip():
        raise typer.BadParameter("a token needs a name: who it is for")
    return name


def _a_scope(scope: str) -> str:
    """Checked here as the tokens file is when a service loads it, so a printed entry is
    one the service accepts."""
    if scope not in Scope.__members__:
        raise typer.BadParameter(f"{scope!r} is not a scope: read, write or admin")
    return scope


def new_token(
    name: str = typer.Argument(..., help="Who the token is for.", callback=_named),
    workspace: str = typer.Option(
        "default", help="The workspace it sees.", callback=checked.workspace
    ),
    scope: str = typer.Option("write", help="read, write or admin.", callback=_a_scope),
    append: Annotated[
        Path | None,
        typer.Option(
            help="Append the entry to this tokens file (created if missing).",
            callback=file_to_write,
        ),
    ] = None,
    expires: Annotated[str | None, typer.Option(help=EXPIRES_HELP)] = None,
) -> None:
    """Make a bearer token: prints it once, and its entry for the tokens file."""
    token = secrets.token_urlsafe(32)
    until = _expiry(expires)
    # JSON strings are valid TOML basic strings, so any name or workspace is quoted right.
    entry = (
        f"[[tokens]]\nname = {json.dumps(name)}\n"
        f'sha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
        f"scopes = [{json.dumps(scope)}]\nworkspace = {json.dumps(workspace)}\n"
    )
    if until is not None:
        entry += f"expires = {until.strftime('%Y-%m-%dT%H:%M:%SZ')}\n"
    reason = f"scope {scope}" + (f", expires {until.isoformat()}" if until else "")
    if append is not None:
        _append_token(append, entry)
        _audit(audit.TOKEN_CREATED, f"{reason}; appended to {append}", name, workspace, "new-token")
        typer.echo(f"token (shown once): {token}\n\nentry {name!r} appended to {append}")
        return
    _audit(audit.TOKEN_CREATED, f"{reason}; entry printed", name, workspace, "new-token")
    typer.echo(f"token (shown once): {token}\n")
    typer.echo(entry, nl=False)


def revoke_token(
    name: str = typer.Argument(..., help="The token's name in the tokens file."),
    tokens_file: Annotated[
        Path | None,
        typer.Option("--file", help="The tokens file (default THREADLINE_TOKENS_FILE)."),
    ] = None,
) -> None:
    """Remove a token's entry from the tokens file; running services refuse it within
    seconds."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    path = tokens_file or checked.settings().tokens_file
    if path is None:
        _fail("No tokens file: pass --file or set THREADLINE_TOKENS_FILE.")
    try:
        document = tomlkit.parse(path.read_text())
    except (OSError, TOMLKitError) as error:
        _fail(f"Cannot read {path}: {error}")
    entries = document.get("tokens", [])
    found = [n for n, entry in enumerate(entries) if entry.get("name") == name]
    if not found:
        _fail(f"No token named {name!r} in {path}.")
    workspace = str(entries[found[0]].get("workspace", "")) or None
    for index in reversed(found):  # every entry of that name
        del entries[index]
    _checked_replace(path, tomlkit.dumps(document))
    _audit(audit.TOKEN_REVOKED, f"removed from {path}", name, workspace, "revoke-token")
    typer.echo(f"token {name!r} removed from {path}")


def _expiry(text: str | None) -> datetime | None:
    from api.auth import expiry

    if text is None:
        return None
    now = datetime.now(UTC)
    try:
        until = expiry(text, now)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--expires") from error
    if until <= now:  # made all the same: one way to try how expiry is refused
        typer.echo(
            f"--expires {until.isoformat()} is past: the token is refused as expired.", err=True
        )
    return until


def _append_token(path: Path, entry: str) -> None:
    """Append `entry`, keeping the file a valid tokens file; exit with one line if it cannot."""
    try:
        existing = path.read_text() if path.exists() else ""
    except OSError as error:
        _fail(f"Cannot append to {path}: {error}")
    _checked_replace(path, existing + ("\n" if existing.strip() else "") + entry, "append to")


def _checked_replace(path: Path, text: str, verb: str = "change") -> None:
    """Replace the file with `text` if it is a valid tokens file; else one line, exit 2."""
    from api.auth import TokenBook

    try:
        TokenBook.from_toml(text)
        _replace(path, text)
    except (OSError, ValueError) as error:
        _fail(f"Cannot {verb} {path}: {error}")


def _replace(path: Path, text: str) -> None:
    """Write a new file beside `path` and rename it over `path` (atomic on one file
    system), keeping the old file's mode, 0600 for a new one."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _audit(event: str, reason: str, name: str, workspace: str | None, command: str) -> None:
    found = checked.settings()
    with Audit(audit.console_log(found.audit_log, found.home)).opened() as log:
        log.record(event, reason, token=name, workspace=workspace, operation=command)


def _fail(message: str) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(2)
