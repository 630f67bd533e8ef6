"""Where a parallel test run's Neo4j servers live, and which `neo4j stop --test` stops."""

from __future__ import annotations

from pathlib import Path

from api import settings
from graph.runtime.local_neo4j import LocalNeo4j, Ports


def test_each_worker_after_the_first_has_a_folder_and_ports_of_its_own(tmp_path: Path) -> None:
    first = settings.test_neo4j(tmp_path, 9001, 9002)
    second = settings.test_neo4j(tmp_path, 9001, 9002, worker=1)
    assert first.home == (tmp_path / "neo4j" / "test").resolve()
    assert second.home == (tmp_path / "neo4j" / "test-2").resolve()
    assert first.lib_dir == second.lib_dir, "the jars are fetched once"
    assert first.ports() == Ports(9001, 9002)
    assert second.ports() == Ports(7698, 7485), "chosen ports are the first worker's"
    assert second.throwaway and not second.auth_enabled


def test_stop_finds_every_workers_server(tmp_path: Path) -> None:
    for name in ("test", "test-2", "test-3", "test-notes", "default"):
        (tmp_path / "neo4j" / name).mkdir(parents=True)
    found = [server.home.name for server in settings.test_neo4j_servers(tmp_path)]
    assert found == ["test", "test-2", "test-3"]


def test_only_the_test_servers_keep_their_plans_as_the_graph_changes(tmp_path: Path) -> None:
    """A benchmark's throwaway server fills a graph after its service planned every
    statement on the empty one: it must plan them again for the filled graph."""
    test_server = settings.test_neo4j(tmp_path, 9001, 9002)
    bench_like = LocalNeo4j(tmp_path / "neo4j" / "bench", auth_enabled=False, throwaway=True)
    for server in (test_server, bench_like):
        server._write_config(Ports(9001, 9002))
    kept = "dbms.cypher.min_replan_interval"
    assert kept in (test_server.home / "conf" / "neo4j.conf").read_text()
    assert kept not in (bench_like.home / "conf" / "neo4j.conf").read_text()
