"""The console's text table: long text is cut, a node or map is shown whole."""

from __future__ import annotations

from api.cli.output import MAX_CELL, OutputFormat, render
from graph.console.readonly import Table

TITLE = "Checkout: stop double charges on payment retries, " * 3


def test_a_node_is_shown_whole_one_property_a_line() -> None:
    node = {"labels": ["Thread"], "id": "thr_" + "a" * 32, "title": TITLE, "workspace": "w"}
    text = render(Table(["t", "runs"], [[node, 12]]), OutputFormat.table)
    assert text.splitlines() == [
        "-- row 1 --",
        "t:",
        "  labels: Thread",
        f"  id: {node['id']}",
        f"  title: {TITLE.strip()}",
        "  workspace: w",
        "runs: 12",
        "(1 row)",
    ]


def test_a_path_shows_each_of_its_nodes() -> None:
    path = [{"labels": ["Thread"], "id": "a"}, {"labels": ["Thread"], "id": "b"}]
    text = render(Table(["p"], [[path]]), OutputFormat.table)
    assert "  [1]:" in text.splitlines() and "    id: b" in text.splitlines()


def test_long_text_in_a_table_of_values_is_still_cut() -> None:
    text = render(Table(["title"], [[TITLE]]), OutputFormat.table)
    row = text.splitlines()[2]
    assert len(row) == MAX_CELL and row.endswith("…")
