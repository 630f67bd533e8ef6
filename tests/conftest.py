"""One real Neo4j per test session; every test starts from an empty graph. The helpers
these fixtures use are in tests/support/."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import settings

from api.settings import Settings, test_neo4j
from graph import migrations
from graph.console import readonly
from graph.runtime.local_neo4j import LocalNeo4j
from graph.store import Store
from tests.support.graphql import GraphQLClient, connect_test_store, make_app_client, wipe
from tests.support.managed import borrowing_jars
from tests.support.seeded import Seeded, read_only_graph, seeded_demo
from tests.support.served import FLOOD_ENV, serve

TEST_URI_ENV = "THREADLINE_TEST_NEO4J_URI"
# Property tests check what holds, not how fast: on a busy 2-core box an example may take
# longer than Hypothesis's default 200 ms deadline without anything being wrong.
settings.register_profile("threadline", deadline=None)
settings.load_profile("threadline")
# Likewise a request's database budget: the users' 5 s is for a warm, dedicated server,
# and a test that meets it on a quiet box may miss it while other tests (or a second
# test worker and its Neo4j) hold both cores. Every service a test makes, in this process
# or as `threadline serve`, gets 30 s unless the test sets its own; the tests of the
# bound itself set a short one, and the fault test runs with the users' default.
os.environ.setdefault("THREADLINE_DB_TIMEOUT_S", "30")
# Every test empties the graph and counts what it holds, and the test servers keep their
# plans (docs/TESTING.md): the suite's services keep no warm-up family in a hidden
# workspace. tests/browser/test_fresh_serve.py's `serve`, on a managed Neo4j, does.
os.environ.setdefault("THREADLINE_WARM_UP_FAMILY", "false")
# The Neo4j servers tests start to test starting, stopping, dumping and killing one live
# for seconds: they compile with C1 only, as the optimizing compiler's work at start-up
# costs them more than it returns (a cold start measured 17-20 s of CPU and 18-26 s of wall
# time with it, 10-11 s and 11-14 s without). The session's own test server answers every
# test for minutes: in a run in one process it keeps the optimizing compiler, as with C1
# only that run took longer (21 min, not 17). With two workers it does not: two servers
# then compile the same code side by side on cores the workers already fill (`neo4j_server`).
# With C1 only the JVM's code cache shrinks to 48 MB, which the planner's compiled code
# outgrows: the JVM then throws compiled methods away and compiles them again, over and
# over (a session server flushed 32,000 methods in three minutes of a run). The cache is
# kept at the size it has with both compilers. The JVM reads this variable itself (and
# says so on stderr); a value of your own wins.
C1_ONLY = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"
os.environ.setdefault("JDK_JAVA_OPTIONS", C1_ONLY)
# Kinds of tests, by folder; `process` besides for those that start `threadline serve` or
# a Neo4j of their own (a fixture below, or `pytestmark` in their module). The checks of
# the benchmark harness (tests/unit/test_bench_*.py) are pure too, but they generate
# thousands of families: `bench`, run by the full suite, not by the fast loop.
FOLDER_MARKS = {"unit": "unit", "integration": "integration", "browser": "browser"}
BENCH_CHECKS = "test_bench_"
PROCESS_FIXTURES = frozenset({"live_api", "home"})


def pytest_configure(config: pytest.Config) -> None:
    # Said by the controlling process: a worker's own exit would only read as a crash.
    if os.environ.get(TEST_URI_ENV) and getattr(config.option, "numprocesses", None):
        raise pytest.UsageError(f"Every test empties the graph: with {TEST_URI_ENV}, drop -n.")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = item.path.parent.name
        if folder == "unit" and item.path.name.startswith(BENCH_CHECKS):
            item.add_marker("bench")
        elif folder in FOLDER_MARKS:
            item.add_marker(FOLDER_MARKS[folder])
        if folder == "browser" or PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("process")


def worker() -> int:
    """This pytest-xdist worker's number (gw0 is 0), 0 when the run is not parallel."""
    return int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))


def parallel() -> bool:
    """Whether this run has more than one pytest-xdist worker."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1


@pytest.fixture(scope="session")
def neo4j_server() -> Iterator[LocalNeo4j | None]:
    """The Neo4j named by THREADLINE_TEST_NEO4J_URI, else the managed test server."""
    if os.environ.get(TEST_URI_ENV):
        yield None
        return
    # Settings pick the folder and any chosen ports; taken default ports move to free ones,
    # so two clones can run their suites at once.
    settings = Settings()
    instance = test_neo4j(
        settings.home, settings.test_neo4j_bolt_port, settings.test_neo4j_http_port, worker()
    )
    was_running = instance.is_running()
    with pytest.MonkeyPatch.context() as patch:
        if os.environ.get("JDK_JAVA_OPTIONS") == C1_ONLY and not parallel():
            patch.delenv("JDK_JAVA_OPTIONS")
        instance.start()
    yield instance
    if not was_running:
        instance.stop()


@pytest.fixture(scope="session")
def neo4j_uri(neo4j_server: LocalNeo4j | None) -> str:
    return os.environ.get(TEST_URI_ENV) or (neo4j_server.uri if neo4j_server else "")


@pytest.fixture(scope="session")
async def store(neo4j_uri: str) -> AsyncIterator[Store]:
    store = connect_test_store(neo4j_uri)
    await migrations.migrate(store)
    await store.warm_up.wait()  # every statement planned once, as a ready service has them
    yield store
    await store.close()


@pytest.fixture
async def clean_store(store: Store) -> Store:
    await wipe(store)
    return store


@pytest.fixture
async def http(clean_store: Store) -> AsyncIterator[httpx.AsyncClient]:
    async with make_app_client(clean_store) as client:
        yield client


@pytest.fixture
async def gql(http: httpx.AsyncClient) -> GraphQLClient:
    return GraphQLClient(http)


@pytest.fixture(scope="module")
def live_api(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An open `threadline serve` (workspace `default`) on the test Neo4j; every test of a
    module shares it, so it takes their traffic without a rate limit's refusals."""
    yield from serve(neo4j_uri, tmp_path_factory.mktemp("live"), **FLOOD_ENV)


@pytest.fixture
async def live(live_api: str, clean_store: Store) -> AsyncIterator[GraphQLClient]:
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=live_api, timeout=60, limits=limits) as http:
        yield GraphQLClient(http)


@pytest.fixture(scope="module")
async def seeded(store: Store, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Seeded]:
    """The demo family, in `default` and in `other` (tests/support/seeded.py)."""
    async with seeded_demo(store, tmp_path_factory.mktemp("tokens")) as found:
        yield found


@pytest.fixture(scope="module")
def graph(neo4j_uri: str) -> Iterator[readonly.ReadOnlyGraph]:
    """The analysts' read-only connection to the test Neo4j."""
    with read_only_graph(neo4j_uri) as connected:
        yield connected


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A THREADLINE_HOME of its own whose jar folder is the suite's (a symlink)."""
    root = borrowing_jars(tmp_path / "home")
    yield root
    # A non-throwaway instance preallocates large transaction logs: do not keep them.
    shutil.rmtree(root, ignore_errors=True)
