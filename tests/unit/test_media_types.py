"""GraphQL over HTTP's media types: which one `Accept` chooses, and the status under it."""

from __future__ import annotations

import pytest
from graphql import GraphQLError
from strawberry.types import ExecutionResult

from api.http.media import GRAPHQL_RESPONSE, JSON, executed, keeps_data, negotiated, status_of


@pytest.mark.parametrize(
    ("accept", "media"),
    [
        (None, JSON),
        ("", JSON),
        ("*/*", JSON),
        ("application/json", JSON),
        (GRAPHQL_RESPONSE, GRAPHQL_RESPONSE),
        (f"{GRAPHQL_RESPONSE}, application/json;q=0.9", GRAPHQL_RESPONSE),
        (f"application/json, {GRAPHQL_RESPONSE}", JSON),  # a tie keeps application/json
        ("text/html", JSON),
        ("a;;b=", JSON),
    ],
)
def test_accept_chooses_the_media_type(accept: str | None, media: str) -> None:
    assert negotiated(accept) == media


def test_an_error_with_a_path_or_data_means_execution_began() -> None:
    parse = ExecutionResult(data=None, errors=[GraphQLError("Syntax Error")])
    field = ExecutionResult(data=None, errors=[GraphQLError("gone", path=["startRun"])])
    assert not executed(parse)
    assert executed(field)
    assert executed(ExecutionResult(data={"a": 1}, errors=None))
    assert keeps_data(JSON, parse) and not keeps_data(GRAPHQL_RESPONSE, parse)


def test_the_status_of_an_answer_without_data_follows_its_first_code() -> None:
    def refused(code: str) -> dict[str, object]:
        return {"errors": [{"message": "no", "extensions": {"code": code}}]}

    assert status_of(GRAPHQL_RESPONSE, refused("INVALID_INPUT")) == 400
    assert status_of(GRAPHQL_RESPONSE, refused("FORBIDDEN")) == 403
    assert status_of(GRAPHQL_RESPONSE, refused("RATE_LIMITED")) == 429
    assert status_of(GRAPHQL_RESPONSE, {"data": None, "errors": []}) == 200
    assert status_of(JSON, refused("INVALID_INPUT")) == 200
