"""What every console command needs first: the settings, or one line saying what is wrong."""

from __future__ import annotations

import typer
from pydantic import ValidationError

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
