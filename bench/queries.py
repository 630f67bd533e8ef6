"""The harness's named Cypher statements: `bench/cypher/<name>.cypher`, parameters only."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    """Text of `bench/cypher/<name>.cypher`, e.g. `bulk/runs` or `baseline/start_run`."""
    path = resources.files("bench").joinpath("cypher", *f"{name}.cypher".split("/"))
    if not path.is_file():
        raise KeyError(f"no bench statement {name!r}")
    return path.read_text()
