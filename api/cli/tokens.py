"""`threadline new-token`: a bearer token, shown once, and its entry for the tokens file."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Annotated

import typer


def new_token(
    name: str = typer.Argument(..., help="Who the token is for."),
    workspace: str = typer.Option("default", help="The workspace it sees."),
    scope: str = typer.Option("write", help="read, write or admin."),
    append: Annotated[
        Path | None, typer.Option(help="Append the entry to this tokens file (created if missing).")
    ] = None,
) -> None:
    """Make a bearer token: prints it once, and its entry for the tokens file."""
    token = secrets.token_urlsafe(32)
    # JSON strings are valid TOML basic strings, so any name or workspace is quoted right.
    entry = (
        f"[[tokens]]\nname = {json.dumps(name)}\n"
        f'sha256 = "{hashlib.sha256(token.encode()).hexdigest()}"\n'
        f"scopes = [{json.dumps(scope)}]\nworkspace = {json.dumps(workspace)}\n"
    )
    if append is not None:
        _append_token(append, entry)
        typer.echo(f"token (shown once): {token}\n\nentry {name!r} appended to {append}")
        return
    typer.echo(f"token (shown once): {token}\n")
    typer.echo(entry, nl=False)


def _append_token(path: Path, entry: str) -> None:
    """Append `entry`, keeping the file a valid tokens file; exit with one line if it cannot."""
    from api.auth import TokenBook

    try:
        existing = path.read_text() if path.exists() else ""
        TokenBook.from_toml(existing + "\n" + entry)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a") as tokens:
            tokens.write(("\n" if existing.strip() else "") + entry)
    except (OSError, ValueError) as error:
        typer.echo(f"Cannot append to {path}: {error}", err=True)
        raise typer.Exit(2) from error
