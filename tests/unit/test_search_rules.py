"""Search's pure rules: a query's words, the Lucene queries, a hit's snippet."""

from __future__ import annotations

import pytest

from graph.errors import ThreadlineError
from graph.models import RunItemKind
from graph.search import FieldQueries
from resolvers.search import MOST_WORDS, candidates, candidates_again, lucene, snippet, words


def test_words_are_letters_and_digits_lowercased_once_each() -> None:
    assert words('Retry "policy" AND (retry) x:y~ NOT-z') == [
        "retry",
        "policy",
        "and",
        "x",
        "y",
        "not",
        "z",
    ]
    for nothing in ("", "  ", "()*:~^"):
        with pytest.raises(ThreadlineError) as refused:
            words(nothing)
        assert refused.value.code.value == "INVALID_INPUT"
    with pytest.raises(ThreadlineError):
        words(" ".join(f"w{n}" for n in range(MOST_WORDS + 1)))


def test_the_lucene_queries_keep_to_the_workspace_and_kinds_one_field_each() -> None:
    assert lucene("ws-a", ["retry", "policy"], None) == FieldQueries(
        titles='+workspace:"ws-a"^0 +title:(retry policy)',
        inputs='+workspace:"ws-a"^0 +input:(retry policy)',
        texts='+workspace:"ws-a"^0 +text:(retry policy)',
    )
    assert lucene("ws-a", ["retry"], [RunItemKind.DECISION]) == FieldQueries(
        texts='+workspace:"ws-a"^0 +kind:(decision)^0 +text:(retry)'
    )
    with_inputs = lucene("ws", ["retry"], [RunItemKind.USER_GOAL, RunItemKind.COMMAND])
    assert with_inputs == FieldQueries(
        inputs='+workspace:"ws"^0 +input:(retry)',
        texts='+workspace:"ws"^0 +kind:(user_goal command)^0 +text:(retry)',
    )


def test_a_snippet_holds_the_first_match_and_says_where_it_was_cut() -> None:
    assert snippet("short  text\nhere", ["text"]) == "short text here"
    long = "a " * 200 + "the retry policy is here " + "b " * 200
    cut = snippet(long, ["policy"], chars=60)
    assert "policy" in cut and cut.startswith("…") and cut.endswith("…")
    assert len(cut) <= 62
    start = snippet("policy " + "x " * 100, ["policy"], chars=40)
    assert start.startswith("policy") and start.endswith("…")
    nowhere = snippet("y " * 100, ["policy"], chars=40)
    assert nowhere.startswith("y") and nowhere.endswith("…")


def test_no_kinds_asks_the_index_nothing() -> None:
    assert lucene("ws", ["retry"], []) is None


def test_a_short_page_asks_once_more_for_ten_times_the_candidates() -> None:
    assert candidates(20) == 100
    assert candidates_again(20, 20) is None
    assert candidates_again(20, 3) == 1000
    assert candidates_again(5, 0) == 400
