"""A statement of sections runs only the sections whose list a command fills."""

from __future__ import annotations

import pytest

from graph import queries
from graph.codec import JSON_FIELDS
from resolvers.handoffs.fields import TextFields


def test_every_section_gives_back_the_whole_statement() -> None:
    lists = queries.section_lists("plan/apply")
    assert lists[0] == "threads" and lists[-1] == "receipts"
    assert queries.trimmed("plan/apply", lists) == queries.load("plan/apply")


def test_only_the_named_sections_remain_in_their_order() -> None:
    text = queries.trimmed("plan/apply", ["receipts", "runs"])
    unwound = [line.split("$")[1].split()[0] for line in text.splitlines() if "UNWIND $" in line]
    assert unwound == ["runs", "receipts"]
    assert text.startswith("// Writes a whole write plan")
    assert text.rstrip().endswith("RETURN true AS applied")


def test_no_section_leaves_the_return() -> None:
    assert queries.trimmed("plan/apply", []).strip().splitlines()[-1] == "RETURN true AS applied"


def test_only_a_statement_of_sections_is_trimmed() -> None:
    with pytest.raises(queries.UnknownQueryError):
        queries.trimmed("thread/state", [])


def test_the_warm_up_never_plans_a_statement_of_sections_whole() -> None:
    served = queries.served_statements()
    assert queries.load("plan/apply") not in served
    assert queries.load("thread/state") in served


def test_the_state_read_carries_no_handoff_text() -> None:
    """Every command reads the live handoffs without what their text decides (a handoff's
    entries hold its whole text): else each start decodes them all, and a long thread's
    starts slow down with its length."""
    small = {"tokenEstimate", "qualityScore", "qualityFidelity"}  # numbers Cypher reads
    text_fields = [name for name in TextFields.model_fields if name not in small]
    statement = queries.load("thread/state").splitlines()
    projections = [line for line in statement if "h {.*" in line and "summaryText: null" in line]
    assert len(projections) == 2  # the run in progress's handoffs keep theirs: it injects them
    for projection in projections:
        for field in text_fields:
            assert f"{JSON_FIELDS.get(field, field)}: null" in projection, (field, projection)
