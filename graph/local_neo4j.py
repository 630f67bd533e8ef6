"""A managed Neo4j Community server for machines without Docker.

The server jars come from Maven Central (cached in ~/.m2), the configuration is
written from a template, and the JVM runs the server's own entry point in the
background. Everything lives under one instance folder, which is git-ignored.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import ServiceUnavailable, SessionExpired

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


class LocalNeo4jError(RuntimeError):
    """The managed server could not be fetched, started or reached."""


@dataclass(frozen=True)
class LocalNeo4j:
    """One managed server instance: its folder, ports and auth mode."""

    home: Path
    bolt_port: int = 7687
    http_port: int = 7474
    auth_enabled: bool = True
    heap: str = "512m"
    pagecache: str = "256m"
    throwaway: bool = False
    version: str = NEO4J_VERSION

    def __post_init__(self) -> None:
        # Maven and the JVM resolve relative paths from other folders.
        object.__setattr__(self, "home", self.home.resolve())

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @property
    def lib_dir(self) -> Path:
        # Jars are shared by every instance under the same parent folder.
        return self.home.parent / f"lib-{self.version}"

    @property
    def pid_file(self) -> Path:
        return self.home / "neo4j.pid"

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

    # ---- lifecycle -----------------------------------------------------

    def start(self) -> None:
        """Start the server unless it already runs; return once it answers queries."""
        if self.is_running():
            self.wait_until_ready()
            return
        self._fetch_jars()
        self._write_config()
        if self.auth_enabled:
            self._ensure_password()
        self._launch()
        self.wait_until_ready()

    def stop(self, timeout_s: float = 60.0) -> bool:
        """SIGTERM the server and wait for a clean shutdown; True if one was running."""
        pid = self.running_pid()
        if pid is None:
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(POLL_INTERVAL_S)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return True

    def running_pid(self) -> int | None:
        if not self.pid_file.exists():
            return None
        try:
            pid = int(self.pid_file.read_text().strip())
        except ValueError:
            return None
        return pid if _alive(pid) else None

    def is_running(self) -> bool:
        return self.running_pid() is not None

    def answers(self) -> bool:
        """True when Bolt accepts a session and `RETURN 1` succeeds."""
        auth = self.credentials()
        try:
            with GraphDatabase.driver(self.uri, auth=auth, connection_timeout=2.0) as driver:
                driver.verify_connectivity()
                records, _, _ = driver.execute_query("RETURN 1 AS one")
                return bool(records and records[0]["one"] == 1)
        except (ServiceUnavailable, SessionExpired, OSError):
            return False

    def wait_until_ready(self, timeout_s: float = READY_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.answers():
                return
            if not self.is_running():
                raise LocalNeo4jError(f"Neo4j exited during start-up.\n{self.log_tail()}")
            time.sleep(POLL_INTERVAL_S)
        raise LocalNeo4jError(f"Neo4j did not answer within {timeout_s:.0f}s.\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        for log in (self.home / "logs" / "neo4j.log", self.console_log):
            if log.exists():
                tail = log.read_text(errors="replace").splitlines()[-lines:]
                return f"--- last lines of {log} ---\n" + "\n".join(tail)
        return "(no Neo4j log written yet)"

    # ---- steps ---------------------------------------------------------

    def _fetch_jars(self) -> None:
        marker = self.lib_dir / ".complete"
        # The stamp names the pom too, so a changed pom (e.g. a new jar) fetches again.
        stamp = f"{self.version} {hashlib.sha256(_resource('pom.xml').encode()).hexdigest()}"
        if marker.exists() and marker.read_text() == stamp:
            return
        if shutil.which("mvn") is None:
            raise LocalNeo4jError("Maven (mvn) is needed once to fetch Neo4j from Maven Central.")
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

    def _write_config(self) -> None:
        for sub in ("conf", "data", "logs", "run"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        config = _resource("neo4j.conf").format(
            bolt_port=self.bolt_port,
            http_port=self.http_port,
            auth_enabled=str(self.auth_enabled).lower(),
            pagecache=self.pagecache,
            heap=self.heap,
            tx_log_retention="keep_none" if self.throwaway else "2 days",
            data_dir=self.home / "data",
            logs_dir=self.home / "logs",
            run_dir=self.home / "run",
        )
        (self.home / "conf" / "neo4j.conf").write_text(config)

    def _ensure_password(self) -> None:
        if self.password_file.exists():
            return
        password = secrets.token_urlsafe(18)
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
        with self.console_log.open("ab") as log:
            process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=self._env(),
                start_new_session=True,
            )
        self.pid_file.write_text(str(process.pid))

    def _java(self, heap: bool = False) -> list[str]:
        java = shutil.which("java")
        if java is None:
            raise LocalNeo4jError("Java 17 or newer is needed to run Neo4j 5.26.")
        memory = [f"-Xms{self.heap}", f"-Xmx{self.heap}"] if heap else []
        classpath = f"{self.home / 'conf'}/*:{self.lib_dir}/*"
        return [java, *memory, *JVM_FLAGS, "-cp", classpath]

    def _env(self) -> dict[str, str]:
        return {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}


def _resource(name: str) -> str:
    return resources.files("graph").joinpath("runtime", name).read_text()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still answers kill(0); treat it as gone.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"
