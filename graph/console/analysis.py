"""The ready-made analysis queries of `cypher/analysis/` and their documented headers.

Each file opens with a comment block an analyst reads first:

    // description: one line saying what the query answers
    // param workspace: string — the workspace to read
    // param limit: int = 50 — at most this many rows
    //
    // free text: the rules the query follows

`param NAME: TYPE [= DEFAULT] — meaning` declares every `$NAME` the query uses; TYPE is
one of string, int, float, bool. A parameter without a default is required.

Every query reads one workspace (`$workspace`) and starts from an index: an id, or the
workspace with a `USING INDEX` hint, so its plan does not drift as statistics change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

from graph import queries

FOLDER = "analysis"
WORKSPACE = "workspace"
_DESCRIPTION = re.compile(r"^//\s*description:\s*(?P<text>.+?)\s*$")
_PARAM = re.compile(
    r"^//\s*param\s+(?P<name>\w+):\s*(?P<type>\w+)"
    r"(?:\s*=\s*(?P<default>\S+))?\s+—\s+(?P<meaning>.+?)\s*$"
)
_USED = re.compile(r"\$(\w+)")
TYPES = ("string", "int", "float", "bool")


class AnalysisError(ValueError):
    """An unknown query, a malformed header, or a parameter that does not fit."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    meaning: str
    default: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None

    def parse(self, text: str) -> Any:
        """The typed value of `text` (from the command line or the header's default)."""
        try:
            if self.type == "int":
                return int(text)
            if self.type == "float":
                return float(text)
            if self.type == "bool":
                return _boolean(text)
        except ValueError as error:
            raise AnalysisError(f"{self.name} must be {self.type}, not {text!r}") from error
        return text

    def signature(self) -> str:
        default = f" = {self.default}" if self.default is not None else ""
        return f"{self.name}: {self.type}{default}"


@dataclass(frozen=True)
class AnalysisQuery:
    name: str
    description: str
    params: tuple[Param, ...]
    text: str

    def parameters(self, given: dict[str, str], workspace: str) -> dict[str, Any]:
        """Every declared parameter, typed: given ones, defaults, and the workspace."""
        if WORKSPACE in given:
            raise AnalysisError("The workspace is set with --workspace, not as a parameter.")
        declared = {p.name for p in self.params}
        unknown = sorted(set(given) - declared)
        if unknown:
            raise AnalysisError(
                f"{self.name} takes no parameter {', '.join(unknown)}; "
                f"it takes {', '.join(p.signature() for p in self.params)}"
            )
        values: dict[str, Any] = {}
        for param in self.params:
            raw = workspace if param.name == WORKSPACE else given.get(param.name, param.default)
            if raw is None:
                raise AnalysisError(f"{self.name} needs --param {param.name}=<{param.type}>")
            values[param.name] = param.parse(raw)
        return values

    def used_names(self) -> set[str]:
        """The `$names` the query text uses, outside its comments."""
        code = "\n".join(
            line for line in self.text.splitlines() if not line.lstrip().startswith("//")
        )
        return set(_USED.findall(code))


def names() -> list[str]:
    folder = resources.files("cypher").joinpath(FOLDER)
    return sorted(
        entry.name.removesuffix(".cypher")
        for entry in folder.iterdir()
        if entry.name.endswith(".cypher")
    )


def catalogue() -> list[AnalysisQuery]:
    return [get(name) for name in names()]


def get(name: str) -> AnalysisQuery:
    if name not in names():
        raise AnalysisError(f"No analysis query {name!r}; `threadline cypher list` shows them.")
    text = queries.load(f"{FOLDER}/{name}")
    return parse(name, text)


def parse(name: str, text: str) -> AnalysisQuery:
    """Read the header comment block; every query must say what it does and takes."""
    description = None
    params: list[Param] = []
    for line in _header(text):
        if found := _DESCRIPTION.match(line):
            description = found["text"]
        elif line.lstrip("/ ").startswith("param"):
            found = _PARAM.match(line)
            if found is None or found["type"] not in TYPES:
                raise AnalysisError(f"{name}: malformed parameter line {line!r}")
            params.append(Param(found["name"], found["type"], found["meaning"], found["default"]))
    if description is None:
        raise AnalysisError(f"{name}: the header has no `// description:` line")
    return AnalysisQuery(name, description, tuple(params), text)


def _header(text: str) -> list[str]:
    lines: list[str] = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line)
    return lines


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1"):
        return True
    if lowered in ("false", "no", "0"):
        return False
    raise ValueError(text)
