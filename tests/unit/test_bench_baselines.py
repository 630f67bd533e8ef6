"""The baseline rules of the fidelity benchmark on hand-made conversations, where what
each rule keeps follows from reading the rule, and their invariants on generated ones."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bench.baselines.conversation import Kept, Message
from bench.baselines.naive import last_that_fit
from bench.baselines.t3code import select_history


def said(*turns: tuple[str, int]) -> list[Message]:
    """A conversation from (role, tokens) pairs: "u" a request, "a" anything else."""
    return [Message(user=role == "u", tokens=tokens) for role, tokens in turns]


# ---- T3 Code's selectHistory ---------------------------------------------------------


def test_t3code_keeps_everything_that_fits() -> None:
    talk = said(("u", 10), ("a", 30), ("u", 10), ("a", 30))
    assert select_history(talk, budget=80) == Kept(kept=(0, 1, 2, 3), omitted=())


def test_t3code_skips_a_message_too_large_and_tries_the_older_ones() -> None:
    # Anchors first: request 4, answer 5, request 0 (30 of 40). Then newest first:
    # 3 (50) does not fit the 10 left, 2 (10) does, 1 finds nothing left.
    talk = said(("u", 10), ("a", 10), ("u", 10), ("a", 50), ("u", 10), ("a", 10))
    assert select_history(talk, budget=40) == Kept(kept=(0, 2, 4, 5), omitted=(1, 3))


def test_t3code_holds_room_for_the_first_request_before_the_middle() -> None:
    # The first request (20) is an anchor: it is kept before the middle messages, which
    # then share the 5 tokens left, newest first.
    talk = said(("u", 20), ("a", 5), ("u", 5), ("a", 5), ("u", 5), ("a", 5))
    assert select_history(talk, budget=35) == Kept(kept=(0, 3, 4, 5), omitted=(1, 2))


def test_t3code_omits_an_oversized_latest_answer_whole() -> None:
    talk = said(("u", 5), ("a", 5), ("a", 100))
    assert select_history(talk, budget=20) == Kept(kept=(0, 1), omitted=(2,))


def test_t3code_keeps_the_first_request_over_newer_answers() -> None:
    # The anchors (3, then 4, then 0) take 9 of 10: the answers between do not fit, where
    # "newest first" alone would have kept 2 and dropped the first request.
    talk = said(("u", 3), ("a", 4), ("a", 4), ("u", 3), ("a", 3))
    assert select_history(talk, budget=10) == Kept(kept=(0, 3, 4), omitted=(1, 2))


def test_t3code_sets_the_reserve_aside_first() -> None:
    talk = said(("u", 5), ("a", 5))
    assert select_history(talk, budget=30, reserve=25) == Kept(kept=(0,), omitted=(1,))
    assert select_history(talk, budget=30, reserve=31) == Kept(kept=(), omitted=(0, 1))


def test_t3code_without_requests_goes_newest_first() -> None:
    talk = said(("a", 4), ("a", 8), ("a", 4))
    assert select_history(talk, budget=9) == Kept(kept=(0, 2), omitted=(1,))


# ---- the naive "last messages that fit" ----------------------------------------------


def test_naive_stops_at_the_first_message_that_does_not_fit() -> None:
    talk = said(("u", 1), ("a", 100), ("u", 5), ("a", 5))
    assert last_that_fit(talk, budget=20) == Kept(kept=(2, 3), omitted=(0, 1))


def test_naive_keeps_everything_that_fits_and_a_message_that_fits_exactly() -> None:
    talk = said(("u", 10), ("a", 10))
    assert last_that_fit(talk, budget=20) == Kept(kept=(0, 1), omitted=())
    assert last_that_fit(talk, budget=19) == Kept(kept=(1,), omitted=(0,))


def test_naive_keeps_nothing_when_the_newest_is_too_large() -> None:
    talk = said(("u", 1), ("a", 1), ("a", 50))
    assert last_that_fit(talk, budget=40) == Kept(kept=(), omitted=(0, 1, 2))


def test_naive_sets_the_reserve_aside_first() -> None:
    talk = said(("u", 5), ("a", 5))
    assert last_that_fit(talk, budget=12, reserve=4) == Kept(kept=(1,), omitted=(0,))


# ---- what both rules keep, on any conversation ---------------------------------------

conversations = st.lists(
    st.builds(Message, user=st.booleans(), tokens=st.integers(min_value=0, max_value=400)),
    max_size=40,
)
budgets = st.integers(min_value=0, max_value=4_000)
reserves = st.integers(min_value=0, max_value=200)


def spent(talk: list[Message], kept: Kept) -> int:
    return sum(talk[index].tokens for index in kept.kept)


@given(conversations, budgets, reserves)
def test_t3code_fits_and_leaves_out_only_what_would_not_fit(
    talk: list[Message], budget: int, reserve: int
) -> None:
    kept = select_history(talk, budget, reserve)
    assert sorted(kept.kept + kept.omitted) == list(range(len(talk)))
    left = budget - reserve - spent(talk, kept)
    assert left >= 0 or not kept.kept
    assert all(talk[index].tokens > left for index in kept.omitted)


@given(conversations, budgets, reserves)
def test_naive_keeps_a_tail_that_fits(talk: list[Message], budget: int, reserve: int) -> None:
    kept = last_that_fit(talk, budget, reserve)
    assert kept.kept == tuple(range(len(talk) - len(kept.kept), len(talk)))
    assert spent(talk, kept) <= max(budget - reserve, 0) or not kept.kept
    if kept.omitted:
        newest_left_out = kept.omitted[-1]
        assert talk[newest_left_out].tokens > budget - reserve - spent(talk, kept)
