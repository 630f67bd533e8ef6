"""The header convention of cypher/analysis/: what `threadline cypher list` and `run` read."""

from __future__ import annotations

import pytest

from graph.console import analysis

QUERY = """// description: Threads per day.
// param workspace: string — the workspace to read
// param days: int = 7 — how far back
// param exact: bool = false — count to the second
// param since: string — an ISO date
//
// Free text after the header is not parsed.
MATCH (t:Thread {workspace: $workspace}) WHERE $days > 0 AND $exact OR $since <> ''
RETURN count(t)
"""


def test_header_gives_description_and_typed_parameters() -> None:
    query = analysis.parse("per_day", QUERY)
    assert query.description == "Threads per day."
    assert [p.signature() for p in query.params] == [
        "workspace: string",
        "days: int = 7",
        "exact: bool = false",
        "since: string",
    ]
    assert query.used_names() == {"workspace", "days", "exact", "since"}
    assert query.parameters({"since": "2025-01-01", "exact": "yes"}, "team") == {
        "workspace": "team",
        "days": 7,
        "exact": True,
        "since": "2025-01-01",
    }


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "needs --param since"),
        ({"since": "x", "days": "seven"}, "days must be int"),
        ({"since": "x", "exact": "maybe"}, "exact must be bool"),
        ({"since": "x", "limit": "3"}, "takes no parameter limit"),
        ({"since": "x", "workspace": "other"}, "--workspace"),
    ],
)
def test_parameters_that_do_not_fit_are_refused(given: dict[str, str], message: str) -> None:
    with pytest.raises(analysis.AnalysisError, match=message):
        analysis.parse("per_day", QUERY).parameters(given, "team")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("// param x: int — no description\nRETURN $x", "no `// description:`"),
        ("// description: d\n// param x: number — odd type\nRETURN $x", "malformed"),
        ("// description: d\n// param x int — no colon\nRETURN $x", "malformed"),
    ],
)
def test_malformed_headers_are_refused(text: str, message: str) -> None:
    with pytest.raises(analysis.AnalysisError, match=message):
        analysis.parse("bad", text)


def test_every_shipped_query_parses() -> None:
    assert [q.name for q in analysis.catalogue()] == analysis.names()
    with pytest.raises(analysis.AnalysisError, match="cypher list"):
        analysis.get("no_such_query")
