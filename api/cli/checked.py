"""What every console command needs first: the settings, or one line saying what is wrong."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import ValidationError

from api.auth import workspace_name
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
