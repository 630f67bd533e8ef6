"""Commands that write a file (backup, neo4j dump, export --output, new-token --append)
refuse a folder, or a file in a folder that does not exist, before they do anything: a
usage error that names it, nothing made on the way and no partial file left."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from api.cli import app

COMMANDS = {
    "backup": ["backup", "--workspace", "default"],
    "neo4j dump": ["neo4j", "dump"],
    "export": ["export", "thr_1", "--output"],
    "new-token": ["new-token", "someone", "--append"],
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_folder_is_refused(command: list[str], tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    refused = invoke([*command, str(folder)], tmp_path)
    assert refused.exit_code == 2
    assert f"{folder} is a folder: name a file" in refused.output
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_missing_folder_is_refused_not_made(command: list[str], tmp_path: Path) -> None:
    target = tmp_path / "missing" / "deeper" / "file"
    refused = invoke([*command, str(target)], tmp_path)
    assert refused.exit_code == 2
    assert f"{target.parent} does not exist: make it first" in refused.output
    assert list(tmp_path.iterdir()) == []


def invoke(args: list[str], home: Path) -> Result:
    # A home of its own that stays empty: nothing is started or written before the check.
    # Wide enough a terminal that the message is not wrapped.
    env = {"THREADLINE_HOME": str(home / "home"), "COLUMNS": "400"}
    return CliRunner().invoke(app, args, env=env)
