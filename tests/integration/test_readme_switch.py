"""The README's provider switch runs as written: each block one operation, ids filled in
from the answers before it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"```graphql\n(.*?)```", re.DOTALL)


def switch_blocks() -> list[str]:
    text = README.read_text()
    section = text[text.index("A provider switch, end to end") : text.index("## Analyse")]
    return BLOCK.findall(section)


async def test_the_readme_provider_switch_runs_as_written(gql: GraphQLClient) -> None:
    blocks = switch_blocks()
    assert len(blocks) == 5
    ids = {"thr_...": await new_thread(gql)}
    answers = []
    for block in blocks:
        for placeholder, ident in ids.items():
            block = block.replace(f'"{placeholder}"', f'"{ident}"')
        answer = await gql(block)
        answers.append(answer)
        if "startRun" in answer and "pth_..." not in ids:
            ids["pth_..."] = answer["startRun"]["providerThread"]["id"]
            ids["run_..."] = answer["startRun"]["run"]["id"]
    completed = answers[2]["completeRun"]
    assert completed["providerThread"]["contextUsage"]["contextTokens"] == 41000
    switch = answers[3]["startRun"]
    assert switch["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert switch["budget"]["windowSource"] == "PROVIDER"
    assert switch["handoffs"][0]["quality"]["score"] == 1.0
    assert answers[4]["thread"]["items"]["pageInfo"]["hasNextPage"] is False
