"""Tokens files and audit logs, as the token tests write and read them."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from api.cli import app


def token_entry(name: str, token: str, extra: str = "", workspace: str = "w") -> str:
    """One `[[tokens]]` entry for `token`, a write token of `workspace`."""
    digest = hashlib.sha256(token.encode()).hexdigest()
    return (
        f'[[tokens]]\nname = "{name}"\nsha256 = "{digest}"\nscopes = ["write"]\n'
        f'workspace = "{workspace}"\n{extra}\n'
    )


def audit_lines(path: Path) -> list[dict[str, Any]]:
    """The audit log's lines, each a JSON object."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def console(*args: str, audit: Path) -> str:
    """A `threadline` command in-process, auditing to `audit`; its output."""
    result = CliRunner().invoke(app, list(args), env={"THREADLINE_AUDIT_LOG": str(audit)})
    assert result.exit_code == 0, result.output
    return result.output


def shown_token(output: str) -> str:
    """The token `new-token` printed once."""
    match = re.search(r"token \(shown once\): (\S+)", output)
    assert match is not None, output
    return match[1]
