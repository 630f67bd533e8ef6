"""`threadline neo4j dump|load`: the whole managed database to a file and back, refused in
one line while Neo4j runs. The instance lives in its own THREADLINE_HOME (tests/conftest.py
`home`), as in test_local_neo4j.py."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from api.settings import Settings
from graph import migrations
from graph.errors import ThreadlineError
from graph.runtime.local_neo4j import LocalNeo4j
from graph.store import Store
from tests.support.managed import borrowing_jars, cli

pytestmark = pytest.mark.process  # starts a Neo4j of its own
STORE_TIMEOUT_S = 3.0


@pytest.fixture
def managed(home: Path) -> Iterator[LocalNeo4j]:
    """The instance `threadline neo4j ...` manages in `home`, stopped whatever happens."""
    instance = instance_of(home)
    yield instance
    instance.stop()


def instance_of(home: Path) -> LocalNeo4j:
    return replace(Settings(home=home).local_neo4j(), throwaway=True)


def probes(instance: LocalNeo4j, cypher: str) -> int:
    with GraphDatabase.driver(instance.uri, auth=instance.credentials()) as driver:
        records, _, _ = driver.execute_query(cypher)
        return int(records[0][0])


async def answers_again(store: Store, attempts: int) -> bool:
    """Whether `store` answers a ping within `attempts` tries (a failed one is allowed:
    the first may spend its time waiting on Neo4j for a transaction it no longer has)."""
    for _ in range(attempts):
        try:
            await store.ping()
            return True
        except ThreadlineError:
            continue
    return False


async def test_a_dump_loads_on_a_new_machine_and_over_a_database_and_neither_runs_while_neo4j_does(
    home: Path, managed: LocalNeo4j, tmp_path: Path
) -> None:
    file = tmp_path / "backup" / "threadline.dump"
    file.parent.mkdir()
    managed.start()
    assert probes(managed, "CREATE (p:Probe {n: 1}) RETURN count(p)") == 1

    for action in ("dump", "load"):
        refused = cli(home, "neo4j", action, str(file))
        assert refused.returncode == 1, refused.stderr
        assert refused.stderr.strip().splitlines() == [
            f"Neo4j is running: stop it first (`threadline neo4j stop`), then {action} again"
        ]

    managed.stop()
    dumped = cli(home, "neo4j", "dump", str(file))
    assert dumped.returncode == 0, dumped.stderr
    assert file.is_file() and "replacing" not in dumped.stdout
    again = cli(home, "neo4j", "dump", str(file))
    assert again.stdout.strip().endswith("(replacing the file that was there)"), again

    # Another machine: a home whose Neo4j never started.
    elsewhere = borrowing_jars(tmp_path / "elsewhere")
    restored = instance_of(elsewhere)
    service: Store | None = None
    try:
        loaded = cli(elsewhere, "neo4j", "load", str(file))
        assert loaded.returncode == 0, loaded.stderr
        restored.start()
        assert probes(restored, "MATCH (p:Probe) DELETE p RETURN count(p)") == 1
        # A service that wrote here holds a bookmark the dump will not have.
        service = Store.connect(restored.uri, restored.credentials(), timeout_s=STORE_TIMEOUT_S)
        await migrations.migrate(service)
        restored.stop()
        # Over a database that has changed since: the dump replaces it.
        loaded = cli(elsewhere, "neo4j", "load", str(file))
        assert loaded.returncode == 0, loaded.stderr
        # A file that is not a dump is refused, and the database stays as it was.
        not_a_dump = tmp_path / "notes.dump"
        not_a_dump.write_text("not a dump\n")
        refused = cli(elsewhere, "neo4j", "load", str(not_a_dump))
        assert refused.returncode == 1
        (line,) = refused.stderr.strip().splitlines()
        assert "Not a valid Neo4j archive" in line and str(not_a_dump) in line, line
        assert line.endswith("the database there is as it was"), line
        # So is a dump cut short, with neo4j-admin's reason rather than its progress.
        cut = tmp_path / "cut.dump"
        cut.write_bytes(file.read_bytes()[: file.stat().st_size // 2])
        refused = cli(elsewhere, "neo4j", "load", str(cut))
        assert refused.returncode == 1
        (line,) = refused.stderr.strip().splitlines()
        assert "Failed to load database" in line and line.endswith("as it was"), line
        restored.start()
        assert probes(restored, "MATCH (p:Probe) RETURN count(p)") == 1
        # The service reads the older database, instead of waiting for its lost future.
        assert await answers_again(service, attempts=2)
    finally:
        if service is not None:
            await service.close()
        restored.stop()
