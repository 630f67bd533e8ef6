"""`threadline serve` says each start-up stage in one line as it begins, and "ready at"
only once /readyz answers 200."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from api.settings import Settings
from api.settings import test_neo4j as managed_test_server  # not collected as a test
from graph.runtime.local_neo4j import LocalNeo4j
from graph.runtime.ports import free_ports
from tests.support.managed import cli_env
from tests.support.stages import Lines, serving

pytestmark = pytest.mark.process  # starts `threadline serve` and a Neo4j of its own

STAGES = ("migrating the schema", "warming up", "ready at")


def said_in_order(lines: Lines, port: int, first: tuple[str, ...]) -> list[str]:
    """Waits for each stage line in turn; /readyz is asked the moment "ready at" appears."""
    said = [lines.until(lambda line, s=stage: line.startswith(s)) for stage in first + STAGES]
    assert said[-1] == f"ready at http://127.0.0.1:{port}/graphql"
    assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5).status_code == 200
    return said


def test_serve_on_a_configured_neo4j_says_its_stages_and_ready_only_when_ready(
    neo4j_uri: str,
) -> None:
    (port,) = free_ports(1)
    with serving(port, cli_env(neo4j_uri)) as lines:
        said_in_order(lines, port, ())
        # uvicorn's own "startup complete" comes before the warm-up ends: not shown.
        assert not any("Application startup" in line for line in lines.seen), lines.seen
        assert not any("starting Neo4j" in line for line in lines.seen), lines.seen


def test_a_first_and_a_later_serve_each_say_a_short_true_sequence(home: Path) -> None:
    bolt, http, port = free_ports(3)
    env = {
        "THREADLINE_HOME": str(home),
        "THREADLINE_NEO4J_BOLT_PORT": str(bolt),
        "THREADLINE_NEO4J_HTTP_PORT": str(http),
        # A fresh Neo4j on a busy machine may take more than 5 s to plan one statement.
        "THREADLINE_DB_TIMEOUT_S": "30",
    }
    try:
        with serving(port, env) as lines:
            first = said_in_order(lines, port, ("starting Neo4j",))
        # The jars are there already (the suite's): nothing is fetched, nothing said of it.
        assert first[0] == f"starting Neo4j 5.26.30 at bolt://127.0.0.1:{bolt}"
        assert len(lines.seen) == len(first), lines.seen
        with serving(port, env) as lines:
            later = said_in_order(lines, port, ("Neo4j",))
        assert later[0] == f"Neo4j 5.26.30 already runs at bolt://127.0.0.1:{bolt}"
        assert len(lines.seen) == len(later), lines.seen
    finally:
        Settings(home=home).local_neo4j().stop()


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
