"""The managed Neo4j on a busy machine: taken ports, strangers' servers, deaths, failures.

Every instance here lives in its own THREADLINE_HOME under tmp_path and borrows
the suite's jars through a symlink, so nothing is downloaded twice and the
instances of other clones and engineers are never touched. The Neo4j that `serve` starts,
killed, is reaped by serve (tests/integration/test_fault.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from neo4j import GraphDatabase

from api.settings import test_neo4j as managed_test_server  # not collected as a test
from graph.runtime.local_neo4j import LocalNeo4j, LocalNeo4jError, Ports
from graph.runtime.ports import free_ports
from tests.support.managed import borrowing_jars, cli, wait_for

pytestmark = pytest.mark.process  # starts processes of its own


@pytest.fixture
def launched() -> Iterator[Callable[[LocalNeo4j], LocalNeo4j]]:
    """Registers instances a test starts, so each is stopped whatever the outcome."""
    instances: list[LocalNeo4j] = []

    def register(instance: LocalNeo4j) -> LocalNeo4j:
        instances.append(instance)
        return instance

    yield register
    for instance in instances:
        instance.stop()


@contextmanager
def listening_socket() -> Iterator[int]:
    """Another program's server: a plain socket listening on a port of its own."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def query_one(uri: str, auth: tuple[str, str] | None, cypher: str) -> object:
    with GraphDatabase.driver(uri, auth=auth) as driver:
        records, _, _ = driver.execute_query(cypher)
        return records[0][0]


def throwaway(home: Path, name: str, **fields: Any) -> LocalNeo4j:
    return replace(managed_test_server(home), home=home / "neo4j" / name, **fields)


def test_a_taken_default_port_moves_to_a_free_one_that_is_remembered(
    home: Path, launched: Callable[[LocalNeo4j], LocalNeo4j]
) -> None:
    notices: list[str] = []
    with listening_socket() as taken:
        # The CLI's `--test` instance of this home, with a default Bolt port already in use.
        (http,) = free_ports(1, avoid=frozenset({taken}))
        instance = launched(replace(managed_test_server(home), default_ports=Ports(taken, http)))
        instance.start(notify=notices.append)

        bolt = instance.ports().bolt
        assert bolt != taken
        assert instance.uri == f"bolt://127.0.0.1:{bolt}"
        assert query_one(instance.uri, None, "RETURN 1") == 1
        assert len(notices) == 1
        assert str(taken) in notices[0]
        assert str(bolt) in notices[0]
        assert "THREADLINE_TEST_NEO4J_BOLT_PORT" in notices[0]

        # Remembered: `uri`, `status` and `stop` in another process find the moved server.
        assert cli(home, "neo4j", "uri", "--test").stdout.strip() == instance.uri
        status = cli(home, "neo4j", "status", "--test")
        assert status.returncode == 0
        assert f"running (pid {instance.running_pid()}) at {instance.uri}" in status.stdout
        assert cli(home, "neo4j", "stop", "--test").stdout.strip() == "Neo4j stopped"
    assert not instance.is_running()
    assert cli(home, "neo4j", "status", "--test").returncode == 3


def test_a_port_taken_while_neo4j_starts_makes_it_start_on_another(
    home: Path, launched: Callable[[LocalNeo4j], LocalNeo4j]
) -> None:
    """Two clones starting at once: the one whose JVM loses the bind moves, once."""
    bolt, http = free_ports(2)
    instance = launched(throwaway(home, "raced", default_ports=Ports(bolt, http)))
    notices: list[str] = []
    rival_errors: list[BaseException] = []
    with socket.socket() as rival:

        def take_bolt_once_launched() -> None:
            try:
                assert wait_for(instance.pid_file.exists, 60)
                rival.bind(("127.0.0.1", bolt))
                rival.listen()
            except BaseException as error:
                rival_errors.append(error)

        taker = threading.Thread(target=take_bolt_once_launched)
        taker.start()
        instance.start(notify=notices.append)
        taker.join()
        assert not rival_errors
        assert instance.ports().bolt != bolt
        assert query_one(instance.uri, None, "RETURN 1") == 1
        assert any("while Neo4j started" in notice for notice in notices)
        assert any(str(bolt) in notice for notice in notices)


def test_a_taken_port_the_user_chose_stops_with_one_line(home: Path) -> None:
    with listening_socket() as taken:
        (http,) = free_ports(1, avoid=frozenset({taken}))
        chosen = throwaway(home, "chosen", bolt_port=taken, http_port=http)
        with pytest.raises(LocalNeo4jError) as raised:
            chosen.start()
        assert "\n" not in str(raised.value)
        assert str(taken) in str(raised.value)
        assert "THREADLINE_TEST_NEO4J_BOLT_PORT" in str(raised.value)
        # It names the setting that chose the port, and what else there is to do.
        assert "which THREADLINE_TEST_NEO4J_BOLT_PORT names" in str(raised.value)
        assert "unset it" in str(raised.value)
        assert not chosen.pid_file.exists()

        cases = [
            (["serve"], "THREADLINE_NEO4J_BOLT_PORT"),
            (["neo4j", "start"], "THREADLINE_NEO4J_BOLT_PORT"),
            (["neo4j", "start", "--test"], "THREADLINE_TEST_NEO4J_BOLT_PORT"),
        ]
        for args, setting in cases:
            result = cli(home, *args, **{setting: str(taken)})
            assert result.returncode == 1, result
            assert "Traceback" not in result.stdout + result.stderr
            (line,) = result.stderr.strip().splitlines()
            assert str(taken) in line
            assert setting in line


@pytest.mark.parametrize("with_jars", [False, True], ids=["no-maven", "no-java"])
def test_a_missing_tool_is_one_line_from_serve(home: Path, tmp_path: Path, with_jars: bool) -> None:
    bolt, http = free_ports(2)
    bare = tmp_path / "bare"
    result = cli(
        home if with_jars else bare,
        "serve",
        PATH=str(tmp_path / "no-tools-here"),
        THREADLINE_NEO4J_BOLT_PORT=str(bolt),
        THREADLINE_NEO4J_HTTP_PORT=str(http),
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert ("Java" if with_jars else "Maven") in line


def test_an_exit_during_start_up_names_the_exit_and_shows_the_log(home: Path) -> None:
    # A heap the JVM refuses: the server process exits at once, as a broken install would.
    broken = throwaway(home, "broken", heap="1k", default_ports=Ports(*free_ports(2)))
    with pytest.raises(LocalNeo4jError) as raised:
        broken.start()
    first, *tail = str(raised.value).splitlines()
    assert first == "Neo4j exited (code 1) during start-up."
    assert str(broken.console_log) in tail[0]
    assert any("heap" in line.lower() for line in tail)


def test_a_killed_server_is_reaped_and_its_end_reported(
    home: Path, launched: Callable[[LocalNeo4j], LocalNeo4j]
) -> None:
    instance = launched(managed_test_server(home, *free_ports(2)))
    instance.start()
    pid = instance.running_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)

    assert wait_for(lambda: not Path(f"/proc/{pid}").exists(), 30), "left a zombie"
    assert instance.exit_status() == "exited (signal SIGKILL)"
    status = cli(home, "neo4j", "status", "--test")
    assert status.returncode == 4
    assert status.stdout.startswith("exited (signal SIGKILL) — start it with")

    instance.start()
    assert instance.exit_status() is None
    restarted = cli(home, "neo4j", "status", "--test")
    assert restarted.returncode == 0
    assert f"running (pid {instance.running_pid()})" in restarted.stdout
    instance.stop()
    stopped = cli(home, "neo4j", "status", "--test")
    assert stopped.returncode == 3
    assert stopped.stdout.startswith("not started")


@pytest.fixture(scope="module")
def neighbour(
    tmp_path_factory: pytest.TempPathFactory, neo4j_uri: str
) -> Iterator[tuple[Path, LocalNeo4j]]:
    """A running instance with a password, whose default Bolt port the suite's own server
    (a stranger) holds: (its home, it). One start serves the module's tests that need it."""
    home = borrowing_jars(tmp_path_factory.mktemp("neighbour") / "home")
    stranger_port = urlparse(neo4j_uri).port
    assert stranger_port is not None
    (http,) = free_ports(1, avoid=frozenset({stranger_port}))
    instance = replace(
        throwaway(home, "neighbour", default_ports=Ports(stranger_port, http)), auth_enabled=True
    )
    try:
        instance.start(notify=lambda _: None)
        yield home, instance
    finally:
        instance.stop()
        shutil.rmtree(home, ignore_errors=True)


def test_never_talks_to_a_server_it_did_not_start(
    neighbour: tuple[Path, LocalNeo4j], neo4j_uri: str, neo4j_server: LocalNeo4j | None
) -> None:
    """The suite's own server plays the stranger already listening on our default port."""
    home, instance = neighbour
    stranger_port = urlparse(neo4j_uri).port
    assert stranger_port is not None
    idle = throwaway(home, "idle", default_ports=instance.default_ports)
    if neo4j_server is not None:
        # A pid file naming the stranger's process must not make it ours.
        idle.home.mkdir(parents=True, exist_ok=True)
        idle.pid_file.write_text(str(neo4j_server.running_pid()))
    assert not idle.answers()
    assert not idle.is_running()

    assert instance.ports().bolt != stranger_port
    marker = "CREATE (m:NeighbourMarker) RETURN count(m)"
    assert query_one(instance.uri, instance.credentials(), marker) == 1
    password = os.environ.get("THREADLINE_TEST_NEO4J_PASSWORD")
    stranger_auth = ("neo4j", password) if password else None
    count = "MATCH (m:NeighbourMarker) RETURN count(m)"
    assert query_one(neo4j_uri, stranger_auth, count) == 0

    # Even our own live process is not trusted with a port its socket does not hold.
    remembered = instance.ports_file.read_text()
    http = instance.default_ports.http
    instance.ports_file.write_text(f'{{"bolt": {stranger_port}, "http": {http}}}')
    try:
        assert not instance.answers()
    finally:
        instance.ports_file.write_text(remembered)


def test_a_taken_api_port_stops_serve_with_one_line_before_anything_starts(home: Path) -> None:
    with listening_socket() as taken:
        result = cli(home, "serve", THREADLINE_PORT=str(taken))
    assert result.returncode == 1, result
    assert "Traceback" not in result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert str(taken) in line and "THREADLINE_PORT" in line
    assert "Neo4j" not in result.stdout


def test_serve_says_in_one_line_when_neo4j_refuses_the_credentials(
    neighbour: tuple[Path, LocalNeo4j],
) -> None:
    """THREADLINE_NEO4J_URI pointed at a managed Neo4j whose password was not given."""
    home, guarded = neighbour
    (port,) = free_ports(1)
    result = cli(home, "serve", THREADLINE_NEO4J_URI=guarded.uri, THREADLINE_PORT=str(port))
    assert result.returncode == 2, result
    assert "Traceback" not in result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "refused the credentials" in line and "THREADLINE_NEO4J_PASSWORD is unset" in line
