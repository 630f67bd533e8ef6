"""Neo4j Browser as the managed server serves it: the Maven Central jar, made to stay on its host.

Neo4j Browser 5.24.0 (org.neo4j.client:neo4j-browser, the newest on Maven Central) reaches
other hosts on its own: its stylesheet imports Google Fonts, once connected it loads Segment's
and Canny's scripts (and Browser Sync's on consent), and Sentry sends the timings of one page
load in five. Neo4j 5.26 has no setting that stops these: `client.allow_telemetry=false` (in
neo4j.conf) only turns off what Sentry and Segment would report; the setting the Browser reads
to skip outside scripts, `browser.allow_outgoing_connections`, is no longer declared by 5.x
servers (an undeclared setting stops the server at start-up), and on Community edition the
Browser ignores it anyway.

So the server gets a copy of the jar with those few strings rewritten, derived here from the
jar Maven downloaded, never downloaded or committed itself. Maven copies the jar into the lib
folder; it moves to lib/maven/, off the classpath (`lib/*`), and the copy is written beside it
as lib/neo4j-browser-<version>-offline.jar, once, and again whenever the source jar or the
edits below change. A jar whose text no longer matches an edit (a new Browser version) is an
error, so that a version bump cannot quietly bring the requests back.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

SOURCE_GLOB = "neo4j-browser-*.jar"
OFFLINE_SUFFIX = "-offline.jar"


class BrowserJarError(RuntimeError):
    """The Browser jar is missing, or is not the one the edits were written for."""


@dataclass(frozen=True)
class Edit:
    """Replace `old`, found exactly once in the jar's JavaScript, with `new`."""

    why: str
    old: bytes
    new: bytes


EDITS = (
    Edit(
        "The CSS bundle imports Nunito Sans and Fira Code from Google Fonts; without the import "
        "the page uses the fonts it ships and the system's.",
        b"@import url(https://fonts.googleapis.com/css2?family=Fira+Code:wght@500"
        b"&family=Nunito+Sans:wght@300;400;500;600;700&display=swap);",
        b"",
    ),
    Edit(
        "Outgoing connections never allowed (on Community edition the Browser allows them "
        "whatever browser.allow_outgoing_connections says): no Segment, Canny or Browser Sync "
        "scripts once connected.",
        b"t.shouldAllowOutgoingConnections=e=>t.hasEdition(e)&&!t.isEnterprise(e)"
        b"||t.getAllowOutgoingConnections(e)",
        b"t.shouldAllowOutgoingConnections=e=>!1",
    ),
    Edit(
        "No Sentry DSN, so Sentry sends nothing: it sends sampled page-load timings whatever "
        "the telemetry settings say.",
        b'dsn:"https://1ea9f7ebd51441cc95906afb2d31d841@o110884.ingest.sentry.io/1232865"',
        b'dsn:""',
    ),
)


def install_offline(lib_dir: Path) -> Path:
    """Put the offline Browser jar, and no other Browser jar, in lib_dir; return its path."""
    source = _take_maven_jar(lib_dir)
    target = lib_dir / (source.name.removesuffix(".jar") + OFFLINE_SUFFIX)
    stamp_file = target.with_suffix(".stamp")
    stamp = f"{_sha256(source.read_bytes())} {_sha256(repr(EDITS).encode())}\n"
    if target.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return target
    # Not named *.jar while written, so that no JVM starting meanwhile loads half a jar.
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        derive(source, partial)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    stamp_file.write_text(stamp)
    for stale in lib_dir.glob("*" + OFFLINE_SUFFIX):
        if stale != target:
            stale.unlink()
            stale.with_suffix(".stamp").unlink(missing_ok=True)
    return target


def derive(source: Path, target: Path) -> None:
    """Write `source` to `target` with EDITS applied: same entries, order, dates and modes."""
    found = dict.fromkeys(EDITS, 0)
    with zipfile.ZipFile(source) as jar, zipfile.ZipFile(target, "w") as out:
        for entry in jar.infolist():
            data = jar.read(entry)
            if entry.filename.endswith(".js"):
                for edit in EDITS:
                    found[edit] += data.count(edit.old)
                    data = data.replace(edit.old, edit.new)
            out.writestr(entry, data)
    unmatched = [
        f"{edit.old.decode()!r} {count} times" for edit, count in found.items() if count != 1
    ]
    if unmatched:
        raise BrowserJarError(
            f"{source} is not the Neo4j Browser that graph/runtime/neo4j_browser.py edits "
            f"(each text once): found {'; '.join(unmatched)}. Update EDITS for this version."
        )


def _take_maven_jar(lib_dir: Path) -> Path:
    """Move the jar Maven just copied, if any, to lib_dir/maven/; return the jar kept there."""
    kept = lib_dir / "maven"
    kept.mkdir(exist_ok=True)
    fresh = [j for j in lib_dir.glob(SOURCE_GLOB) if not j.name.endswith(OFFLINE_SUFFIX)]
    if fresh:
        for old in kept.glob(SOURCE_GLOB):
            old.unlink()
        for jar in fresh:
            # Another instance sharing lib_dir may have moved it first.
            with suppress(FileNotFoundError):
                jar.replace(kept / jar.name)
    sources = sorted(kept.glob(SOURCE_GLOB))
    if len(sources) != 1:
        raise BrowserJarError(
            f"Expected one Neo4j Browser jar from Maven in {kept}, found {len(sources)}: "
            "remove the folder's .complete file to fetch again."
        )
    return sources[0]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
