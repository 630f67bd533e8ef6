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
