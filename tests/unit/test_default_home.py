"""Where the managed Neo4j lives when THREADLINE_HOME is unset: the checkout's own
`.threadline`, whatever the working folder (an agent runs `threadline mcp` from its own
project and must reach the same Neo4j as `threadline serve`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.settings import Settings

CHECKOUT = Path(__file__).resolve().parents[2]


def test_an_unset_home_is_the_checkouts_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("THREADLINE_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Settings().home == CHECKOUT / ".threadline"
    monkeypatch.setenv("THREADLINE_HOME", "elsewhere")
    assert Settings().home == Path("elsewhere")
