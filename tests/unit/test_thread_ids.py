"""A thread id a client chooses must be one it can name the thread by."""

from __future__ import annotations

import pytest

from graph.errors import ErrorCode, ThreadlineError
from resolvers import runs as run_plans


@pytest.mark.parametrize("unnameable", ["", " ", "\t", " mine", "mine ", "mine\n"])
def test_an_empty_or_whitespace_edged_id_is_invalid(unnameable: str) -> None:
    with pytest.raises(ThreadlineError) as refused:
        run_plans.chosen_thread_id(unnameable)
    assert refused.value.code is ErrorCode.INVALID_INPUT


@pytest.mark.parametrize("nameable", ["mine", "a b", "a/b?c#d e", "线程-1"])
def test_any_other_id_is_kept_as_given(nameable: str) -> None:
    assert run_plans.chosen_thread_id(nameable) == nameable
