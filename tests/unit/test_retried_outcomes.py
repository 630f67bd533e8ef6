"""A write tried several times answers the weightiest outcome among its tries: "nothing
was written" only when no try sent its commit (graph.errors.weightier), in the service's
retries and in the console's (api.cli.demo_client.retried)."""

from __future__ import annotations

import pytest
from threadline_client.exceptions import GraphQLClientGraphQLMultiError

from api.cli.demo_client import retried
from graph.errors import ErrorCode, ThreadlineError, conflict, outcome_weight, weightier

NOTHING = ThreadlineError(ErrorCode.UNAVAILABLE, "nothing was written")
UNKNOWN = ThreadlineError(ErrorCode.UNAVAILABLE, "may have been made", outcome="UNKNOWN")
COMMITTED = ThreadlineError(ErrorCode.UNAVAILABLE, "made", outcome="COMMITTED")


def test_outcomes_weigh_what_may_have_been_written() -> None:
    weights = [outcome_weight(error.extensions) for error in (NOTHING, UNKNOWN, COMMITTED)]
    assert weights == sorted(weights) and len(set(weights)) == 3
    assert outcome_weight(conflict("raced").extensions) == 0


def test_an_unknown_try_outweighs_later_unanswered_ones() -> None:
    assert weightier(UNKNOWN, NOTHING) is UNKNOWN
    assert weightier(None, NOTHING) is NOTHING
    assert weightier(NOTHING, UNKNOWN) is UNKNOWN
    assert weightier(UNKNOWN, COMMITTED) is COMMITTED


def test_a_last_answer_of_its_own_stands() -> None:
    """A retry that found the first try's effect (a CONFLICT a receipt replays) is not
    replaced: the receipt's look-up starts from it."""
    raced = conflict("raced")
    assert weightier(UNKNOWN, raced) is raced


def _answered(*extensions: dict[str, object]) -> GraphQLClientGraphQLMultiError:
    return GraphQLClientGraphQLMultiError.from_errors_dicts(
        [{"message": "m", "extensions": each} for each in extensions]
    )


async def test_the_console_reports_the_weightiest_of_its_tries() -> None:
    answers = iter(
        [
            _answered({"code": "UNAVAILABLE", "outcome": "UNKNOWN"}),
            *[_answered({"code": "UNAVAILABLE"})] * 100,
        ]
    )

    async def send() -> None:
        raise next(answers)

    with pytest.raises(GraphQLClientGraphQLMultiError) as raised:
        await retried(send, retry_s=0.5)
    assert raised.value.errors[0].extensions == {"code": "UNAVAILABLE", "outcome": "UNKNOWN"}
