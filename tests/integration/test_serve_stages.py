"""`threadline serve` says each start-up stage in one line as it begins, and "ready at"
only once /readyz answers 200. A first serve that starts a Neo4j of its own, and a later
one that finds it running, are checked in tests/integration/test_fault.py, on the serve
whose Neo4j that test kills: one cold Neo4j start serves both."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from api.settings import Settings
from api.settings import test_neo4j as managed_test_server  # not collected as a test
from graph.runtime.local_neo4j import LocalNeo4j
from graph.runtime.ports import free_ports
from tests.support.managed import cli_env
from tests.support.stages import said_in_order, serving

pytestmark = pytest.mark.process  # starts `threadline serve`


def test_serve_on_a_configured_neo4j_says_its_stages_and_ready_only_when_ready(
    neo4j_uri: str,
) -> None:
    (port,) = free_ports(1)
    with serving(port, cli_env(neo4j_uri)) as lines:
        said_in_order(lines, port, ())
        # uvicorn's own "startup complete" comes before the warm-up ends: not shown.
        assert not any("Application startup" in line for line in lines.seen), lines.seen
        assert not any("starting Neo4j" in line for line in lines.seen), lines.seen


def fake_maven(folder: Path, jars: Path) -> Path:
    """An `mvn` that 'downloads' by linking the suite's jars into -DoutputDirectory."""
    folder.mkdir()
    mvn = folder / "mvn"
    mvn.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do case "$arg" in -DoutputDirectory=*) out="${arg#*=}";; esac; done\n'
        f"for jar in {jars}/*.jar {jars}/maven/*.jar; do\n"
        '  case "$jar" in *-offline.jar) ;; *) ln -sf "$jar" "$out/";; esac\n'
        "done\n"
    )
    mvn.chmod(0o755)
    return folder


def test_fetching_is_said_once_with_its_size_and_only_when_it_downloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = managed_test_server(Settings().home)
    suite.fetch_jars()
    tools = fake_maven(tmp_path / "tools", suite.lib_dir)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # an empty Maven cache
    fresh = LocalNeo4j(home=tmp_path / "neo4j" / "default")
    said: list[str] = []
    fresh.fetch_jars(said.append)
    assert said == [
        "fetching Neo4j 5.26.30 from Maven Central (about 150 MB, once; cached in ~/.m2)"
    ]
    fresh.fetch_jars(said.append)
    assert len(said) == 1
