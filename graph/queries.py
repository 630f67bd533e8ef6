"""Named Cypher statements, loaded from the `cypher` package by name."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise


class UnknownQueryError(KeyError):
    pass


@cache
def load(name: str) -> str:
    """Text of `cypher/<name>.cypher`; `name` may contain a folder, e.g. `schema/...`."""
    path = resources.files("cypher").joinpath(*f"{name}.cypher".split("/"))
    if not path.is_file():
        raise UnknownQueryError(name)
    return path.read_text()


@dataclass(frozen=True)
class Migration:
    """One file of `cypher/schema/`: `NNN_name.cypher` is schema version NNN."""

    version: int
    name: str
    statements: tuple[str, ...]


MIGRATION_NAME = re.compile(r"^(\d{3})_(\w+)\.cypher$")


@cache
def migrations() -> tuple[Migration, ...]:
    """Every file of `cypher/schema/`, oldest first, with its statements."""
    folder = resources.files("cypher").joinpath("schema")
    found: list[Migration] = []
    for entry in folder.iterdir():
        named = MIGRATION_NAME.match(entry.name)
        if named is None:
            continue
        code = "\n".join(
            line for line in entry.read_text().splitlines() if not line.lstrip().startswith("//")
        )
        statements = tuple(s.strip() for s in code.split(";") if s.strip())
        found.append(Migration(int(named.group(1)), named.group(2), statements))
    return tuple(sorted(found, key=lambda migration: migration.version))


def schema_version() -> int:
    """The schema version this code writes: that of its newest migration."""
    return migrations()[-1].version


def schema_statements() -> list[str]:
    """Every statement of `cypher/schema/*.cypher`, in file-name order."""
    return [statement for migration in migrations() for statement in migration.statements]


# Folders of statements the service itself never runs on a request's path.
NOT_SERVED = frozenset(
    {"analysis", "backup", "export", "maintenance", "migration", "restore", "schema", "testing"}
)


def is_served(name: str) -> bool:
    """Whether the named statement is one the service runs for requests."""
    return name.split("/", 1)[0] not in NOT_SERVED


# Statements of sections, run only trimmed to the sections a command fills.
SECTIONED = frozenset({"plan/apply"})


def served_statements() -> list[str]:
    """The text of every statement the service runs for requests, as it runs them (a
    bounded statement at the default and the largest hop bound). A statement of sections
    is left out: it only ever runs trimmed (`trimmed`), and planning it whole cost a cold
    server 5-9 s of CPU for a plan no command uses."""
    root = resources.files("cypher")
    texts: list[str] = []
    for folder in sorted(root.iterdir(), key=lambda entry: entry.name):
        if not folder.is_dir() or not is_served(folder.name) or folder.name.startswith("_"):
            continue
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
            if entry.name.endswith(".cypher"):
                name = f"{folder.name}/{entry.name.removesuffix('.cypher')}"
                if name in SECTIONED:
                    continue
                text = load(name)
                if HOPS_SLOT in text:
                    texts.extend(with_hops(name, hops) for hops in (DEFAULT_HOPS, MAX_HOPS))
                else:
                    texts.append(text)
    return texts


DEFAULT_HOPS = 10
MAX_HOPS = 100
HOPS_SLOT = "{{hops}}"


def clamp_hops(hops: int) -> int:
    return max(0, min(MAX_HOPS, int(hops)))


def with_hops(name: str, hops: int) -> str:
    """A query whose variable-length bound is `hops`, clamped to 0..MAX_HOPS.

    Cypher cannot take a hop bound as a parameter; this is the one place where
    query text is completed, and only with an int.
    """
    return load(name).replace(HOPS_SLOT, str(clamp_hops(hops)))


# A section: a top-level `CALL () {` whose first UNWIND names the list it writes.
SECTION_START = re.compile(r"^CALL \(\) \{$", re.MULTILINE)
SECTION_LIST = re.compile(r"UNWIND \$(\w+) AS")


@cache
def _sections(name: str) -> tuple[str, tuple[tuple[str, str], ...], str]:
    """`name` as its head (before the first section), its sections, each with the list
    parameter it unwinds, and its tail."""
    text = load(name)
    starts = [match.start() for match in SECTION_START.finditer(text)]
    if not starts:
        raise UnknownQueryError(f"{name} has no sections")
    tail_at = text.rindex("\n}\n") + 3  # after the last section's closing line
    sections = []
    for begin, end in pairwise([*starts, tail_at]):
        found = SECTION_LIST.search(text, begin, end)
        if found is None:
            raise UnknownQueryError(f"a section of {name} unwinds no list parameter")
        sections.append((found.group(1), text[begin:end]))
    return text[: starts[0]], tuple(sections), text[tail_at:]


@cache
def _trimmed(name: str, present: frozenset[str]) -> str:
    head, sections, tail = _sections(name)
    return head + "".join(text for key, text in sections if key in present) + tail


def trimmed(name: str, present: Iterable[str]) -> str:
    """`name` with only the sections whose list parameter is in `present`.

    A statement of sections (`plan/apply`) writes every kind of node in one statement,
    but Neo4j sets up every section on each run, empty list or not; a command writes a
    few kinds, and running only those costs Neo4j a fraction of the CPU (docs/SCALING.md).
    This is the one place where query text is trimmed, and only by whole sections.
    """
    if name not in SECTIONED:
        raise UnknownQueryError(f"{name} is not a statement of sections")
    return _trimmed(name, frozenset(present))


def section_lists(name: str) -> list[str]:
    """The list parameters of `name`'s sections, in order."""
    return [key for key, _ in _sections(name)[1]]
