"""A thread id a client chooses, and a native ref, must be ones someone can name."""

from __future__ import annotations

import pytest

from graph.errors import ErrorCode, ThreadlineError
from resolvers import runs as run_plans


@pytest.mark.parametrize(
    "unnameable", ["", " ", "\t", " mine", "mine ", "mine\n", "a/b\n c", "a\x00b", "a\tb"]
)
def test_an_empty_whitespace_edged_or_control_character_id_is_invalid(unnameable: str) -> None:
    with pytest.raises(ThreadlineError) as refused:
        run_plans.chosen_thread_id(unnameable)
    assert refused.value.code is ErrorCode.INVALID_INPUT
    assert run_plans.UNNAMEABLE in refused.value.message


def test_a_native_ref_follows_the_same_rule() -> None:
    with pytest.raises(ThreadlineError) as refused:
        run_plans.named_ref("sess\n1")
    assert refused.value.code is ErrorCode.INVALID_INPUT
    run_plans.named_ref("sess-1")


@pytest.mark.parametrize("nameable", ["mine", "a b", "a/b?c#d e", "线程-1"])
def test_any_other_id_is_kept_as_given(nameable: str) -> None:
    assert run_plans.chosen_thread_id(nameable) == nameable
