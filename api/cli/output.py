"""Query results on the console: an aligned text table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
from enum import StrEnum
from typing import Any

from graph.console.readonly import Table

MAX_CELL = 80  # wider text cells are cut in the text table only; JSON and CSV keep everything


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


def render(table: Table, fmt: OutputFormat) -> str:
    if fmt is OutputFormat.json:
        return json.dumps(table.records(), indent=2, ensure_ascii=False)
    if fmt is OutputFormat.csv:
        return _csv(table)
    return _text(table)


def _csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows([[_flat(value) for value in row] for row in table.rows])
    return out.getvalue().rstrip("\n")


def _text(table: Table) -> str:
    if any(_is_record(value) for row in table.rows for value in row):
        return _records(table)
    cells = [[_cut(_flat(value)) for value in row] for row in table.rows]
    widths = [
        max([len(column), *(len(row[i]) for row in cells)])
        for i, column in enumerate(table.columns)
    ]
    lines = [
        "  ".join(column.ljust(width) for column, width in zip(table.columns, widths, strict=True)),
        "  ".join("-" * width for width in widths),
        *("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells),
    ]
    count = len(table.rows)
    lines.append(f"({count} row{'' if count == 1 else 's'})")
    return "\n".join(line.rstrip() for line in lines)


def _is_record(value: Any) -> bool:
    """A node, relationship, map or path: too much for a cell, so shown whole, as records."""
    return isinstance(value, dict) or (
        isinstance(value, list) and any(isinstance(item, dict) for item in value)
    )


def _records(table: Table) -> str:
    """One block per row, one line per column, and one per property of a node or map:
    nothing is cut (a cut node would hide the properties a reader asked it for)."""
    lines: list[str] = []
    for number, row in enumerate(table.rows, start=1):
        lines.append(f"-- row {number} --")
        for column, value in zip(table.columns, row, strict=True):
            lines.extend(_record_lines(column, value))
    count = len(table.rows)
    lines.append(f"({count} row{'' if count == 1 else 's'})")
    return "\n".join(lines)


def _record_lines(name: str, value: Any, indent: str = "") -> list[str]:
    if isinstance(value, dict):
        return [
            f"{indent}{name}:",
            *(
                line
                for key, item in value.items()
                for line in _record_lines(key, item, indent + "  ")
            ),
        ]
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):
        return [
            f"{indent}{name}:",
            *(
                line
                for index, item in enumerate(value)
                for line in _record_lines(f"[{index}]", item, indent + "  ")
            ),
        ]
    return [f"{indent}{name}: {_flat(value)}".rstrip()]


def _flat(value: Any) -> str:
    """One cell: lists of scalars joined with commas, maps as JSON, null as empty."""
    if value is None:
        return ""
    if isinstance(value, list) and all(not isinstance(v, list | dict) for v in value):
        return ", ".join(_flat(v) for v in value)
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"
