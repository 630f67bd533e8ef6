"""A managed Neo4j Community server for machines without Docker.

The server jars come from Maven Central (cached in ~/.m2), the configuration is
written from a template, and the JVM runs the server's own entry point in the
background. Everything lives under one instance folder, which is git-ignored:
the pid, the ports in use, the generated password and how the server last ended.

The runtime never talks to a server it did not start: ports are bind-tested
before a launch (a taken one is replaced by a free one, or is an error when the
user chose it), and a port is only spoken to while its listening socket belongs
to the process we launched.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired

from graph.runtime import neo4j_browser, ports, process

NEO4J_VERSION = "5.26.30"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_ENTRY_POINT = "org.neo4j.server.startup.Neo4jAdminCommand"
# The JVM flags Neo4j's shipped neo4j.conf asks for on Java 17.
JVM_FLAGS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
]
READY_TIMEOUT_S = 120.0
POLL_INTERVAL_S = 0.5
PORT_LABELS = ("Bolt", "HTTP")
# What Maven downloads on a first fetch (the server's jars and Neo4j Browser's), measured
# with an empty ~/.m2: said before the download, so a silent minute has a reason.
DOWNLOAD_MB = 150

log = logging.getLogger("threadline.neo4j")
Notify = Callable[[str], None]


class LocalNeo4jError(RuntimeError):
    """The managed server could not be fetched, started or reached."""


class Ports(NamedTuple):
    bolt: int
    http: int


DEFAULT_PORTS = Ports(bolt=7687, http=7474)


def initial_password() -> str:
    """A new managed server's password: hex, because neo4j-admin reads an argument that
    starts with `-` as an option, and one URL-safe token in 64 does."""
    return secrets.token_hex(18)


@dataclass(frozen=True)
class LocalNeo4j:
    """One managed server instance: its folder, ports and auth mode.

    `bolt_port`/`http_port` are the user's explicit choice: taken means stop.
    Unset, the server takes `default_ports` or the ports it used last, and
    moves to free ones (remembered in ports.json) when those are taken.
    `port_settings` name the settings that choose each port, for messages.
    """

    home: Path
    bolt_port: int | None = None
    http_port: int | None = None
    auth_enabled: bool = True
    heap: str = "512m"
    pagecache: str = "256m"
    throwaway: bool = False
    # Plans never made again as the graph's counts change: only for a server emptied
    # before every test (neo4j-kept-plans.conf), never one whose graph grows.
    kept_plans: bool = False
    # More `name=value` lines for neo4j.conf: a test's server of its own (one with a
    # smaller transaction memory limit than the default, say).
    more_settings: tuple[str, ...] = ()
    version: str = NEO4J_VERSION
    default_ports: Ports = DEFAULT_PORTS
    port_settings: tuple[str, str] = ("THREADLINE_NEO4J_BOLT_PORT", "THREADLINE_NEO4J_HTTP_PORT")

    def __post_init__(self) -> None:
        # Maven and the JVM resolve relative paths from other folders.
        object.__setattr__(self, "home", self.home.resolve())

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.ports().bolt}"

    @property
    def lib_dir(self) -> Path:
        # Jars are shared by every instance under the same parent folder.
        return self.home.parent / f"lib-{self.version}"

    @property
    def pid_file(self) -> Path:
        return self.home / "neo4j.pid"

    @property
    def ports_file(self) -> Path:
        return self.home / "ports.json"

    @property
    def exit_file(self) -> Path:
        return self.home / "exit.json"

    @property
    def password_file(self) -> Path:
        return self.home / "password"

    @property
    def console_log(self) -> Path:
        return self.home / "logs" / "console.log"

    def credentials(self) -> tuple[str, str] | None:
        """(user, password) for the driver, or None when auth is off."""
        if not self.auth_enabled:
            return None
        if not self.password_file.exists():
            return None
        return ("neo4j", self.password_file.read_text().strip())

    def ports(self) -> Ports:
        """Where the server listens while it runs, else where its next start will try first."""
        remembered = self._remembered_ports()
        if remembered is not None and self.is_running():
            return remembered
        return self._wanted_ports(remembered)

    # ---- lifecycle -----------------------------------------------------

    def start(self, notify: Notify = log.warning, progress: Notify = log.debug) -> None:
        """Start the server unless it already runs; return once it answers queries.

        `notify` receives one line when a taken port is replaced by a free one; `progress`
        one line per stage as it begins: fetching (only when the jars are fetched),
        starting, or that the server already runs.
        """
        self._launch_unless_running(notify, progress)
        try:
            self.wait_until_ready()
        except LocalNeo4jError:
            # Another clone may bind a port between our check and the JVM's bind.
            if not self._lost_a_port_race():
                raise
            notify("Another program took a port while Neo4j started: starting it on other ports.")
            self._launch_unless_running(notify, progress)
            self.wait_until_ready()

    def stop(self, timeout_s: float = 60.0) -> bool:
        """SIGTERM the server and wait for a clean shutdown; True if one was running."""
        pid = self.running_pid()
        if pid is None:
            return False
        # It may die on its own meanwhile: that is a stop too.
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline and process.alive(pid):
                time.sleep(POLL_INTERVAL_S)
            if process.alive(pid):
                os.kill(pid, signal.SIGKILL)
        # Wait for our reaper, so a stop is not later mistaken for a crash.
        process.settle(pid)
        self.pid_file.unlink(missing_ok=True)
        self.exit_file.unlink(missing_ok=True)
        return True

    def running_pid(self) -> int | None:
        """The pid of this instance's server while it runs (never a stranger's reused pid)."""
        pid = self._recorded_pid()
        if pid is None or not process.alive(pid) or not self._is_our_server(pid):
            return None
        return pid

    def is_running(self) -> bool:
        return self.running_pid() is not None

    def exit_status(self) -> str | None:
        """How the last launched server ended, e.g. 'exited (signal SIGKILL)'.

        None while it runs and when it was never started (or was stopped).
        """
        pid = self._recorded_pid()
        if pid is None or self.is_running():
            return None
        process.settle(pid)
        returncode = self._recorded_exit(pid)
        if returncode is None:
            # Only the process that launched a server can learn how it ended.
            return "exited (status unknown: the process that started it is gone)"
        return f"exited ({process.describe_exit(returncode)})"

    def answers(self) -> bool:
        """True when our own server holds its Bolt port and `RETURN 1` succeeds there."""
        pid = self.running_pid()
        if pid is None or ports.held_by(pid, self.ports().bolt) is False:
            return False
        try:
            with GraphDatabase.driver(
                self.uri, auth=self.credentials(), connection_timeout=2.0
            ) as driver:
                driver.verify_connectivity()
                records, _, _ = driver.execute_query("RETURN 1 AS one")
                return bool(records and records[0]["one"] == 1)
        except AuthError as error:
            raise LocalNeo4jError(
                f"Neo4j at {self.uri} refuses the password in {self.password_file}: {error.message}"
            ) from error
        except (ServiceUnavailable, SessionExpired, OSError):
            return False

    def wait_until_ready(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not self.is_running():
                ended = self.exit_status() or "stopped"
                raise LocalNeo4jError(f"Neo4j {ended} during start-up.\n{self.log_tail()}")
            if self.answers():
                return
            time.sleep(POLL_INTERVAL_S)
        raise LocalNeo4jError(f"Neo4j did not answer within {timeout_s:.0f}s.\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        # The newest log speaks of this start: a JVM that dies early writes only the console.
        logs = [log for log in (self.home / "logs" / "neo4j.log", self.console_log) if log.exists()]
        if not logs:
            return "(no Neo4j log written yet)"
        newest = max(logs, key=lambda log_file: log_file.stat().st_mtime)
        tail = newest.read_text(errors="replace").splitlines()[-lines:]
        return f"--- last lines of {newest} ---\n" + "\n".join(tail)

    # ---- ports ---------------------------------------------------------

    def _lost_a_port_race(self) -> bool:
        """Our server is gone and a port it was to take, one we may move, is now taken."""
        if self.is_running():
            return False
        explicit = (self.bolt_port, self.http_port)
        chosen = self.ports()
        return any(explicit[i] is None and not ports.is_free(chosen[i]) for i in range(len(chosen)))

    def _remembered_ports(self) -> Ports | None:
        try:
            saved = json.loads(self.ports_file.read_text())
            return Ports(int(saved["bolt"]), int(saved["http"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _wanted_ports(self, remembered: Ports | None) -> Ports:
        base = remembered or self.default_ports
        return Ports(self.bolt_port or base.bolt, self.http_port or base.http)

    def _choose_ports(self, notify: Notify) -> Ports:
        """The wanted ports, with every taken one not chosen by the user replaced by a free one."""
        wanted = self._wanted_ports(self._remembered_ports())
        if wanted.bolt == wanted.http:
            raise LocalNeo4jError(
                f"Bolt and HTTP cannot share port {wanted.bolt}: "
                f"set {self.port_settings[0]} or {self.port_settings[1]} to another one."
            )
        taken = [i for i, port in enumerate(wanted) if not ports.is_free(port)]
        explicit = (self.bolt_port, self.http_port)
        for i in taken:
            if explicit[i] is not None:
                setting = self.port_settings[i]
                raise LocalNeo4jError(
                    f"Port {wanted[i]} ({PORT_LABELS[i]}), which {setting} names, is taken by "
                    f"another program: free it, set {setting} to another port, or unset it "
                    "and a free one is chosen."
                )
        spare = iter(ports.free_ports(len(taken), avoid=frozenset(wanted)))
        chosen = Ports(*(next(spare) if i in taken else port for i, port in enumerate(wanted)))
        for i in taken:
            notify(
                f"Port {wanted[i]} ({PORT_LABELS[i]}) is taken by another program: the managed "
                f"Neo4j uses {chosen[i]} instead (remembered in {self.ports_file}; "
                f"{self.port_settings[i]} chooses one)."
            )
        self.ports_file.write_text(json.dumps(chosen._asdict()) + "\n")
        return chosen

    def admin(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        """`neo4j-admin ARGUMENTS` on this instance's home and configuration (written
        first when the server never started here), with the server's jars."""
        self.home.mkdir(parents=True, exist_ok=True)  # a backup loaded on a new machine
        with self._start_lock():
            self.fetch_jars()
            if not (self.home / "conf" / "neo4j.conf").exists():
                self._write_config(self._wanted_ports(self._remembered_ports()))
            return subprocess.run(
                [*self._java(), ADMIN_ENTRY_POINT, *arguments],
                capture_output=True,
                text=True,
                check=False,
                env=self._env(),
            )

    # ---- steps ---------------------------------------------------------

    def _launch_unless_running(self, notify: Notify, progress: Notify) -> None:
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            with self._start_lock():
                if self.is_running():
                    progress(f"Neo4j {self.version} already runs at {self.uri}")
                    return
                self.fetch_jars(progress)
                chosen = self._choose_ports(notify)
                progress(f"starting Neo4j {self.version} at bolt://127.0.0.1:{chosen.bolt}")
                self._write_config(chosen)
                if self.auth_enabled:
                    self._ensure_password()
                self._launch()
        except OSError as error:
            raise LocalNeo4jError(f"Starting Neo4j in {self.home} failed: {error}") from error

    @contextmanager
    def _start_lock(self) -> Iterator[None]:
        # Two starts at once would launch two servers on one data folder.
        with _flock(self.home / ".start.lock"):
            yield

    def fetch_jars(self, progress: Notify = log.debug) -> None:
        """Download the server jars once into the shared lib folder (Maven, ~/.m2 cache).

        Neo4j Browser's jar is then swapped for a copy that requests nothing from other hosts
        (derived once, see graph/runtime/neo4j_browser.py). `progress` hears one line when
        the jars are fetched, saying whether they come from Maven Central or Maven's cache.
        """
        # Instances side by side (the test workers' servers) share the jar folder: one
        # fetches while the others wait, then find the jars there.
        self.lib_dir.parent.mkdir(parents=True, exist_ok=True)
        with _flock(self.lib_dir.parent / f".{self.lib_dir.name}.lock"):
            self._fetch_maven_jars(progress)
            try:
                neo4j_browser.install_offline(self.lib_dir)
            except neo4j_browser.BrowserJarError as error:
                raise LocalNeo4jError(str(error)) from error

    def _fetch_maven_jars(self, progress: Notify) -> None:
        marker = self.lib_dir / ".complete"
        # The stamp names the pom too, so a changed pom (e.g. a new jar) fetches again.
        stamp = f"{self.version} {hashlib.sha256(_resource('pom.xml').encode()).hexdigest()}"
        if marker.exists() and marker.read_text() == stamp:
            return
        if shutil.which("mvn") is None:
            raise LocalNeo4jError(
                "Maven (mvn) is needed once to fetch Neo4j from Maven Central: install it "
                "or set THREADLINE_NEO4J_URI to a Neo4j you run yourself."
            )
        progress(self._fetch_line())
        self.lib_dir.mkdir(parents=True, exist_ok=True)
        pom = self.lib_dir / "pom.xml"
        pom.write_text(_resource("pom.xml"))
        command = [
            "mvn",
            "-q",
            "-B",
            "-f",
            str(pom),
            f"-Dneo4j.version={self.version}",
            "dependency:copy-dependencies",
            "-DincludeScope=runtime",
            f"-DoutputDirectory={self.lib_dir}",
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise LocalNeo4jError(f"Fetching Neo4j {self.version} failed:\n{result.stdout[-4000:]}")
        marker.write_text(stamp)

    def _fetch_line(self) -> str:
        # Maven's default local repository: a jar already there is copied, not downloaded.
        repository = Path.home() / ".m2" / "repository"
        cached = repository / "org" / "neo4j" / "neo4j" / self.version
        if (cached / f"neo4j-{self.version}.jar").exists():
            return f"copying Neo4j {self.version} from Maven's cache ({repository})"
        return (
            f"fetching Neo4j {self.version} from Maven Central (about {DOWNLOAD_MB} MB, once; "
            "cached in ~/.m2)"
        )

    def _write_config(self, chosen: Ports) -> None:
        for sub in ("conf", "data", "logs", "run"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        config = _resource("neo4j.conf").format(
            bolt_port=chosen.bolt,
            http_port=chosen.http,
            auth_enabled=str(self.auth_enabled).lower(),
            pagecache=self.pagecache,
            heap=self.heap,
            tx_log_retention="keep_none" if self.throwaway else "2 days",
            # A throwaway server has no use for 256 MB of log files written ahead.
            tx_log_preallocate=str(not self.throwaway).lower(),
            data_dir=self.home / "data",
            logs_dir=self.home / "logs",
            run_dir=self.home / "run",
        )
        if self.throwaway:
            config += "\n" + _resource("neo4j-throwaway.conf")
        if self.kept_plans:
            config += "\n" + _resource("neo4j-kept-plans.conf")
        config += "".join(f"\n{line}" for line in self.more_settings)
        (self.home / "conf" / "neo4j.conf").write_text(config)

    def _ensure_password(self) -> None:
        if self.password_file.exists():
            return
        password = initial_password()
        result = subprocess.run(
            [*self._java(), ADMIN_ENTRY_POINT, "dbms", "set-initial-password", password],
            capture_output=True,
            text=True,
            check=False,
            env=self._env(),
        )
        if result.returncode != 0:
            raise LocalNeo4jError(f"Setting the initial password failed:\n{result.stderr[-4000:]}")
        self.password_file.write_text(password + "\n")
        self.password_file.chmod(0o600)

    def _launch(self) -> None:
        command = [
            *self._java(heap=True),
            ENTRY_POINT,
            f"--home-dir={self.home}",
            f"--config-dir={self.home / 'conf'}",
            "--console-mode",
        ]
        previous = self._recorded_pid()
        if previous is not None:
            process.settle(previous)
        self.exit_file.unlink(missing_ok=True)
        with self.console_log.open("ab") as console:
            child = subprocess.Popen(
                command,
                stdout=console,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self._env(),
                start_new_session=True,
            )
        self.pid_file.write_text(str(child.pid))
        process.watch(child, self._record_exit)

    def _record_exit(self, pid: int, returncode: int) -> None:
        # Runs in the reaper thread: a folder removed meanwhile must not end in a traceback.
        record = self.exit_file.with_suffix(".tmp")
        try:
            record.write_text(json.dumps({"pid": pid, "returncode": returncode}) + "\n")
            record.replace(self.exit_file)
        except OSError as error:
            log.warning("Neo4j (pid %s) %s; not recorded: %s", pid, returncode, error)

    def _recorded_exit(self, pid: int) -> int | None:
        try:
            saved = json.loads(self.exit_file.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(saved, dict) or saved.get("pid") != pid:
            return None
        returncode = saved.get("returncode")
        return returncode if isinstance(returncode, int) else None

    def _recorded_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def _is_our_server(self, pid: int) -> bool:
        arguments = process.command_line(pid)
        # Without /proc, trust the pid file, as before.
        return arguments is None or f"--home-dir={self.home}" in arguments

    def _java(self, heap: bool = False) -> list[str]:
        java = shutil.which("java")
        if java is None:
            raise LocalNeo4jError(
                "Java 17 or newer is needed to run Neo4j 5.26: install it "
                "or set THREADLINE_NEO4J_URI to a Neo4j you run yourself."
            )
        memory = [f"-Xms{self.heap}", f"-Xmx{self.heap}"] if heap else []
        classpath = f"{self.home / 'conf'}/*:{self.lib_dir}/*"
        return [java, *memory, *JVM_FLAGS, "-cp", classpath]

    def _env(self) -> dict[str, str]:
        return {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}


@contextmanager
def _flock(path: Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _resource(name: str) -> str:
    return resources.files("graph.runtime").joinpath(name).read_text()
