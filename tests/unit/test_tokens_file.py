"""`new-token --append` builds a working tokens file; a missing or bad one stops `serve`
and `mcp` in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.auth import TokenBook
from api.cli import app

runner = CliRunner()


def new_token(*args: str) -> str:
    result = runner.invoke(app, ["new-token", *args])
    assert result.exit_code == 0, result.output
    match = re.search(r"token \(shown once\): (\S+)", result.output)
    assert match is not None, result.output
    return match[1]


def test_appended_tokens_authenticate_in_their_workspaces(tmp_path: Path) -> None:
    tokens_file = tmp_path / "tokens.toml"
    first = new_token("ci-bot", "--workspace", "team-a", "--append", str(tokens_file))
    second = new_token(
        'odd "name"', "--workspace", "team-b", "--scope", "read", "--append", str(tokens_file)
    )

    book = TokenBook.from_toml(tokens_file.read_text())
    assert book.authenticate(f"Bearer {first}").workspace == "team-a"
    reader = book.authenticate(f"Bearer {second}")
    assert (reader.name, reader.workspace, reader.scope.name) == ('odd "name"', "team-b", "read")
    assert tokens_file.stat().st_mode & 0o077 == 0, "the tokens file is readable by others"


def test_appending_never_breaks_the_file(tmp_path: Path) -> None:
    tokens_file = tmp_path / "tokens.toml"
    new_token("ok", "--append", str(tokens_file))
    before = tokens_file.read_text()
    result = runner.invoke(app, ["new-token", "x", "--scope", "root", "--append", str(tokens_file)])
    assert result.exit_code == 2
    assert "root" in result.stderr
    assert tokens_file.read_text() == before


@pytest.mark.parametrize(
    ("args", "said"),
    [(["x", "--scope", "superuser"], "is not a scope"), (["  "], "a token needs a name")],
    ids=["unknown scope", "blank name"],
)
def test_an_entry_the_service_would_refuse_is_never_printed(args: list[str], said: str) -> None:
    result = runner.invoke(app, ["new-token", *args], env={"COLUMNS": "400"})
    assert result.exit_code == 2
    assert said in result.stderr
    assert "shown once" not in result.output


@pytest.mark.parametrize("command", ["serve", "mcp"])
@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_a_server_without_its_tokens_file_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, command: str
) -> None:
    # What Docker leaves when it bind-mounts a file that does not exist: a directory.
    tokens_file = tmp_path / "tokens.toml"
    if kind == "directory":
        tokens_file.mkdir()
    monkeypatch.setenv("THREADLINE_TOKENS_FILE", str(tokens_file))
    result = runner.invoke(app, [command])
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert str(tokens_file) in line
    assert f"--append {tokens_file}" in line
    if kind == "directory":  # the advice works once the folder is gone
        assert "remove it" in line
        tokens_file.rmdir()
    new_token("ci-bot", "--workspace", "team-a", "--append", str(tokens_file))
    assert tokens_file.is_file()


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_server_refuses_a_bad_entry_in_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    tokens_file = tmp_path / "tokens.toml"
    new_token("ci-bot", "--workspace", "team-a", "--append", str(tokens_file))
    bad = tokens_file.read_text().replace('"team-a"', '"team a"').replace("ci-bot", "ci bot")
    tokens_file.write_text(bad)
    monkeypatch.setenv("THREADLINE_TOKENS_FILE", str(tokens_file))
    result = runner.invoke(app, [command])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"Invalid tokens file {tokens_file}: entry 1 ('ci bot'): workspace: 'team a' is not a "
        "workspace name: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
    ]
