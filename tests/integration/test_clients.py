"""The typed clients' examples drive the README's provider switch against a running
service, as an app would: TypeScript (fetch and graphql-ws) and Python (httpx, pydantic)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.graphql import GraphQLClient

pytestmark = pytest.mark.process  # runs node against a `threadline serve`

TYPESCRIPT = Path(__file__).resolve().parents[2] / "clients" / "typescript"


def example(command: list[str], url: str, cwd: Path | None = None) -> dict[str, object]:
    """Runs a client's example against `url`; what it printed last, as JSON."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, "THREADLINE_URL": url},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return said


async def test_the_typescript_example_switches_provider(live_api: str, live: GraphQLClient) -> None:
    command = ["node", "--import", "tsx", "examples/provider-switch.ts"]
    said: Any = await asyncio.to_thread(example, command, live_api, TYPESCRIPT)
    assert said["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert said["events"].count("run.started") == 2 and "run.completed" in said["events"]
    thread = await live(
        "query($id: ID!) { thread(id: $id) { runs { provider status } } }", id=said["threadId"]
    )
    assert thread["thread"]["runs"] == [
        {"provider": "codex", "status": "COMPLETED"},
        {"provider": "claude", "status": "STARTING"},
    ]


PYTHON_EXAMPLE = Path(__file__).resolve().parents[2] / "clients/python/examples/provider_switch.py"


async def test_the_python_example_switches_provider(live_api: str, live: GraphQLClient) -> None:
    said: Any = await asyncio.to_thread(example, [sys.executable, str(PYTHON_EXAMPLE)], live_api)
    assert said["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    # The handoff fits the budget the client reads, and a short thread loses nothing.
    assert 0 < said["handoffTokens"] <= said["budgetTokens"], said
    assert said["omitted"] == 0, said
    thread = await live(
        "query($id: ID!) { thread(id: $id) { runs { provider } } }", id=said["threadId"]
    )
    assert [r["provider"] for r in thread["thread"]["runs"]] == ["codex", "claude"]
