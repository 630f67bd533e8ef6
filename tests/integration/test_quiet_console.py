"""Quiet at a terminal: audit lines as text when stderr is one (a pseudo-terminal here),
`new-token` printing only its answer, and `import` saying in one line that it writes
in-process, and where (`demo`'s line: tests/integration/test_demo.py)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from typer.testing import CliRunner

from api.cli import app
from graph.runtime.ports import free_ports
from tests.support.managed import cli, cli_env
from tests.support.steps import tokens_file

SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "sessions" / "claude_code.jsonl"
CHECKOUT = Path(__file__).resolve().parents[2]


class Terminal:
    """A process whose stdout and stderr are a pseudo-terminal; what it wrote, as it did."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            command, env=env, stdout=slave, stderr=slave, stdin=slave, cwd=CHECKOUT
        )
        os.close(slave)
        self.text = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the process closed its side
                return
            if not chunk:
                return
            self.text += chunk.decode(errors="replace")

    def wait_for(self, pattern: str, timeout_s: float = 180) -> re.Match[str]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text)
            if found:
                return found
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} not written in {timeout_s:.0f}s: {self.text}")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        os.close(self.master)


def test_audit_lines_at_a_terminal_are_text(neo4j_uri: str, tmp_path: Path) -> None:
    (port,) = free_ports(1)
    clean = {key: value for key, value in os.environ.items() if not key.startswith("THREADLINE_")}
    env = {
        **clean,
        **cli_env(neo4j_uri),
        "THREADLINE_PORT": str(port),
        "THREADLINE_TOKENS_FILE": str(tokens_file(tmp_path, {"t": ("w", "read")})),
        "TERM": "dumb",
    }
    terminal = Terminal([sys.executable, "-m", "api.cli", "serve"], env)
    try:
        terminal.wait_for(r"ready at http://127\.0\.0\.1:\d+/")
        refused = httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": "{ providers }"})
        assert refused.status_code == 401
        line = terminal.wait_for(r".*audit unauthenticated: .*")[0]
    finally:
        terminal.close()
    assert "[path /graphql]" in line, line
    assert '{"time"' not in terminal.text  # no JSON audit line beside it


def test_new_token_prints_only_its_answer_and_audits_to_the_homes_log(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["new-token", "alice"], env={"THREADLINE_HOME": str(tmp_path), "COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.startswith("token (shown once): ")
    assert "token_created" not in result.stdout
    (line,) = (tmp_path / "audit.log").read_text().splitlines()
    assert json.loads(line)["event"] == "token_created"


def test_import_says_in_one_line_that_it_writes_in_process_and_where(
    neo4j_uri: str, tmp_path: Path
) -> None:
    (idle,) = free_ports(1)
    env = {**cli_env(neo4j_uri), "THREADLINE_PORT": str(idle)}
    done = cli(
        tmp_path, "import", str(SESSION), "--format", "claude-code", "--thread-id", "quiet", **env
    )
    assert done.returncode == 0, done.stderr
    said = (
        f"in-process (no service answers at http://127.0.0.1:{idle}): importing into "
        f"Neo4j at {neo4j_uri} (configured: THREADLINE_NEO4J_URI), workspace 'default'"
    )
    assert done.stderr.splitlines()[:1] == [said], done.stderr
    assert done.stderr.count("in-process") == 1, done.stderr
    assert "thread quiet:" in done.stdout
