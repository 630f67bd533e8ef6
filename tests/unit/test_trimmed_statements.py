"""A statement of sections runs only the sections whose list a command fills."""

from __future__ import annotations

import pytest

from graph import queries


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
