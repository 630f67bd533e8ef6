"""A workspace name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter
or digit: every command that takes one refuses another before it does anything, and a
tokens file naming another is refused whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.auth import TokenBook, workspace_name
from api.cli import app

NAMED = ["default", "team-a", "Acme.prod_2", "7", "x" * 64]
NOT_NAMED = ["", " ", "team a", "-a", ".hidden", "a/b", "a$b", "x" * 65, "é"]


@pytest.mark.parametrize("name", NAMED)
def test_a_workspace_name_is_kept(name: str) -> None:
    assert workspace_name(name) == name


@pytest.mark.parametrize("name", NOT_NAMED)
def test_anything_else_is_refused_saying_what_a_name_is(name: str) -> None:
    with pytest.raises(ValueError, match="is not a workspace name: 1 to 64 letters"):
        workspace_name(name)


def commands(files: Path) -> dict[str, list[str]]:
    session, snapshot = files / "session.jsonl", files / "snapshot.jsonl"
    session.write_text("")
    snapshot.write_text("")
    return {
        "backup": ["backup", str(files / "out.jsonl"), "--workspace"],
        "restore": ["restore", str(snapshot), "--as-workspace"],
        "cypher": ["cypher", "run", "pending_transfers", "-w"],
        "import": ["import", str(session), "--format", "codex", "--workspace"],
        "demo": ["demo", "--workspace"],
        "export": ["export", "thr_1", "--workspace"],
        "new-token": ["new-token", "someone", "--workspace"],
    }


@pytest.mark.parametrize(
    "command", ["backup", "restore", "cypher", "import", "demo", "export", "new-token"]
)
def test_every_command_refuses_another_name_first(command: str, tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    args = [*commands(files)[command], "team a"]
    home = tmp_path / "home"
    # Wide enough a terminal that the message is not wrapped.
    refused = CliRunner().invoke(app, args, env={"THREADLINE_HOME": str(home), "COLUMNS": "400"})
    assert refused.exit_code == 2, refused.output
    assert "'team a' is not a workspace name" in refused.output
    assert not home.exists()
    assert sorted(p.name for p in files.iterdir()) == ["session.jsonl", "snapshot.jsonl"]


def test_a_tokens_file_naming_another_is_refused() -> None:
    entry = (
        '[[tokens]]\nname = "a"\nsha256 = "' + "0" * 64 + '"\nscopes = ["read"]\n'
        'workspace = "team a"\n'
    )
    with pytest.raises(ValueError, match="'team a' is not a workspace name"):
        TokenBook.from_toml(entry)
