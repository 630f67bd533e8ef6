"""Ranges behave exactly as the sets of ordinals they stand for."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from graph.ranges import Ranges

ordinal_sets = st.sets(st.integers(min_value=1, max_value=60), max_size=40)


def merged(ranges: Ranges) -> bool:
    spans = ranges.spans
    return all(a[0] <= a[1] for a in spans) and all(a[1] + 1 < b[0] for a, b in pairwise(spans))


@given(ordinal_sets, ordinal_sets, st.integers(min_value=0, max_value=61))
def test_ranges_are_sets(a: set[int], b: set[int], cut: int) -> None:
    left, right = Ranges.of(a), Ranges.of(b)
    for result, expected in (
        (left | right, a | b),
        (left & right, a & b),
        (left - right, a - b),
        (left.through(cut), {x for x in a if x <= cut}),
        (left.after(cut), {x for x in a if x > cut}),
        (left.with_ordinal(cut + 1), a | {cut + 1}),
    ):
        assert list(result) == sorted(expected)
        assert merged(result)
        assert len(result) == len(expected)
    assert Ranges.unflatten(left.flatten()) == left
    assert (cut in left) == (cut in a)
    assert left.last == (max(a) if a else None) and left.first == (min(a) if a else None)


def test_empty_and_single_spans() -> None:
    assert not Ranges() and list(Ranges.span(3, 2)) == []
    assert Ranges.span(2, 4).flatten() == [2, 4]
    assert Ranges.unflatten(None) == Ranges()
