"""What every console command needs first: the settings, or one line saying what is wrong."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import ValidationError

from api.auth import TokenBook, workspace_name
from api.settings import Settings


def settings() -> Settings:
    """The settings, or one line naming the bad variable (never a traceback)."""
    try:
        return Settings()
    except ValidationError as error:
        problems = "; ".join(
            f"THREADLINE_{'_'.join(str(part) for part in e['loc']).upper()}: {e['msg']}"
            for e in error.errors()
        )
        typer.echo(f"Invalid setting: {problems}", err=True)
        raise typer.Exit(2) from error


def tokens(settings: Settings) -> TokenBook:
    """The tokens file's book (open without one), or one line on what is wrong, exit 2."""
    from api.app import load_tokens  # the app loads only for a command that serves it

    path = settings.tokens_file
    if path is not None and not path.is_file():
        # A folder is what Docker leaves when it bind-mounts a file that does not exist.
        what = (
            "is a folder, not a file: remove it, then create the file"
            if path.is_dir()
            else "does not exist: create it"
        )
        typer.echo(
            f"THREADLINE_TOKENS_FILE {path} {what} with "
            f"`threadline new-token NAME --workspace W --append {path}`.",
            err=True,
        )
        raise typer.Exit(2)
    try:
        return load_tokens(settings)
    except (OSError, ValueError) as error:
        typer.echo(str(error), err=True)
        raise typer.Exit(2) from error


def file_to_write(path: Path | None) -> Path | None:
    """A file a command is to write (a typer callback): not a folder, and in a folder that
    exists, as nothing is made on the way; else a usage error naming it, before any work."""
    if path is None:
        return None
    if path.is_dir():
        raise typer.BadParameter(f"{path} is a folder: name a file")
    if not path.resolve().parent.is_dir():
        raise typer.BadParameter(f"{path.parent} does not exist: make it first, or name another")
    return path


def workspace(name: str | None) -> str | None:
    """A `--workspace` (a typer callback): a workspace name, else a usage error."""
    if name is None:
        return None
    try:
        return workspace_name(name)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
