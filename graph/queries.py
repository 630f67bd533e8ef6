"""Named Cypher statements, loaded from the `cypher` package by name."""

from __future__ import annotations

from functools import cache
from importlib import resources


class UnknownQueryError(KeyError):
    pass


@cache
def load(name: str) -> str:
    """Text of `cypher/<name>.cypher`; `name` may contain a folder, e.g. `schema/...`."""
    path = resources.files("cypher").joinpath(*f"{name}.cypher".split("/"))
    if not path.is_file():
        raise UnknownQueryError(name)
    return path.read_text()


def schema_statements() -> list[str]:
    """Every statement of `cypher/schema/*.cypher`, in file-name order."""
    folder = resources.files("cypher").joinpath("schema")
    files = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".cypher")),
        key=lambda entry: entry.name,
    )
    statements: list[str] = []
    for entry in files:
        code = "\n".join(
            line for line in entry.read_text().splitlines() if not line.lstrip().startswith("//")
        )
        statements.extend(s.strip() for s in code.split(";") if s.strip())
    return statements


# Folders of statements the service itself never runs on a request's path.
NOT_SERVED = frozenset({"analysis", "export", "schema", "testing"})


def served_statements() -> list[str]:
    """The text of every statement the service runs for requests, as it runs them (a
    bounded statement at the default and the largest hop bound)."""
    root = resources.files("cypher")
    texts: list[str] = []
    for folder in sorted(root.iterdir(), key=lambda entry: entry.name):
        if not folder.is_dir() or folder.name in NOT_SERVED or folder.name.startswith("_"):
            continue
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
            if entry.name.endswith(".cypher"):
                name = f"{folder.name}/{entry.name.removesuffix('.cypher')}"
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
