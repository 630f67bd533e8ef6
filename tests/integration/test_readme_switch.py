"""The README's provider switch runs as written: each block one operation, ids filled in
from the answers before it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.support.graphql import GraphQLClient
from tests.support.steps import new_thread

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"```graphql\n(.*?)```", re.DOTALL)


def blocks_between(start: str, end: str) -> list[str]:
    text = README.read_text()
    return BLOCK.findall(text[text.index(start) : text.index(end)])


async def run_blocks(
    gql: GraphQLClient, blocks: list[str], ids: dict[str, str]
) -> list[dict[str, Any]]:
    """Each block as a user pastes it, the ids of the answers before it filled in."""
    answers = []
    for block in blocks:
        for placeholder, ident in ids.items():
            block = block.replace(f'"{placeholder}"', f'"{ident}"')
        answer = await gql(block)
        answers.append(answer)
        if "startRun" in answer and "run_..." not in ids:
            ids["run_..."] = answer["startRun"]["run"]["id"]
            if "providerThread" in answer["startRun"]:
                ids["pth_..."] = answer["startRun"]["providerThread"]["id"]
    return answers


async def test_the_readme_provider_switch_runs_as_written(gql: GraphQLClient) -> None:
    blocks = blocks_between("A provider switch, end to end", "## When an account")
    assert len(blocks) == 5
    answers = await run_blocks(gql, blocks, {"thr_...": await new_thread(gql)})
    completed = answers[2]["completeRun"]
    assert completed["providerThread"]["contextUsage"]["contextTokens"] == 41000
    switch = answers[3]["startRun"]
    assert switch["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert switch["budget"]["windowSource"] == "PROVIDER"
    assert switch["handoffs"][0]["quality"]["score"] == 1.0
    assert answers[4]["thread"]["items"]["pageInfo"]["hasNextPage"] is False


async def test_the_readme_usage_limit_walk_through_runs_as_written(gql: GraphQLClient) -> None:
    blocks = blocks_between("## When an account runs out", "## Import the sessions")
    assert len(blocks) == 7
    created = await gql(blocks.pop(0))
    answers = await run_blocks(gql, blocks, {"thr_...": created["createThread"]["id"]})
    assert answers[1]["reportProviderLimit"]["active"] is True
    ranked = answers[2]["suggestProviders"]
    assert [(s["provider"], s["available"]) for s in ranked] == [
        ("codex", True),
        ("claude", False),
    ]
    text = answers[3]["startRun"]["contextText"]
    assert "interrupted by a usage limit (5-hour limit reached)" in text
    assert "Tokenizer done; the grammar is next." in text
    assert answers[4]["clearProviderLimit"] == {"provider": "claude", "active": False}
    assert answers[5]["providerLimits"] == [
        {
            "provider": "claude",
            "reason": "5-hour limit reached",
            "resetsAt": "2099-01-01T00:00:00+00:00",
            "active": False,
        }
    ]
