"""A session file's bytes as text: a byte-order mark is no part of the session, and bytes
that are not UTF-8 are refused with a code, by the CLI too (no traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.cli import app
from graph.errors import ThreadlineError
from graph.models import SessionFormat
from resolvers.imports.detect import decoded, detect, without_bom

GEMINI = '{"sessionId": "s1", "messages": []}'


def test_a_byte_order_mark_is_dropped() -> None:
    assert decoded(b"\xef\xbb\xbf" + GEMINI.encode()) == GEMINI
    assert without_bom("\ufeff" + GEMINI) == GEMINI == without_bom(GEMINI)
    assert detect(decoded(b"\xef\xbb\xbf" + GEMINI.encode())) is SessionFormat.GEMINI_CLI_JSON


def test_bytes_that_are_not_utf8_are_invalid_input_naming_where() -> None:
    with pytest.raises(ThreadlineError) as refused:
        decoded(b"ab\xe9t\xe9\n")
    assert refused.value.code.value == "INVALID_INPUT"
    assert "not UTF-8" in refused.value.message and "byte 2" in refused.value.message


def test_the_cli_refuses_a_file_that_is_not_utf8_in_one_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin1.jsonl"
    latin.write_bytes(b"\xe9t\xe9\n")
    env = {"THREADLINE_HOME": str(tmp_path / "home"), "COLUMNS": "400"}
    result = CliRunner().invoke(app, ["import", str(latin)], env=env)
    assert result.exit_code == 2, result.output
    assert "not UTF-8" in result.output and "Traceback" not in result.output
