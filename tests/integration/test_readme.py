"""Every GraphQL example of the README runs as written, in the order a reader meets them.

The convention the README states once, in "A first query", and the reader follows:
each ```graphql block is one operation, sent as one request. A placeholder is filled
from the answers before it, as the reader would paste it:
- `"thr_..."`, `"run_..."`, `"pth_..."`, `"hnd_..."`: the id of that kind in the latest
  answer that has one (the last such id in it: in a list of runs, the last run);
- `"<name>"`: the latest value of the field `name` in the answers before (`"<startedAt>"`).
Every block must answer without errors; a few answers are checked for what the prose
around them promises.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from graphql import OperationDefinitionNode, parse

from tests.support.graphql import GraphQLClient

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"```graphql\n(.*?)```", re.DOTALL)
ID = re.compile(r'"((?:thr|run|pth|hnd)_)\.\.\."')
FIELD = re.compile(r'"<(\w+)>"')


def readme_blocks() -> list[str]:
    return BLOCK.findall(README.read_text())


def strings(value: Any, key: str = "") -> list[tuple[str, str]]:
    """(field, text) of every string in an answer, in document order."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in strings(v, k)]
    if isinstance(value, list):
        return [pair for item in value for pair in strings(item, key)]
    return [(key, value)] if isinstance(value, str) else []


class Pasted:
    """What a reader has seen so far: the latest id of each kind, the latest field values."""

    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.fields: dict[str, str] = {}

    def saw(self, answer: dict[str, Any]) -> None:
        for key, text in strings(answer):
            self.fields[key] = text
        for prefix in ("thr_", "run_", "pth_", "hnd_"):
            found = [text for _, text in strings(answer) if text.startswith(prefix)]
            if found:
                self.ids[prefix] = found[-1]

    def fill(self, block: str) -> str:
        def id_of(match: re.Match[str]) -> str:
            assert match.group(1) in self.ids, f"no {match.group(1)} id before:\n{block}"
            return f'"{self.ids[match.group(1)]}"'

        def field(match: re.Match[str]) -> str:
            assert match.group(1) in self.fields, f"no {match.group(1)} before:\n{block}"
            return f'"{self.fields[match.group(1)]}"'

        return FIELD.sub(field, ID.sub(id_of, block))


async def run_readme(gql: GraphQLClient) -> dict[str, dict[str, Any]]:
    """Each block's answer, by the block's text."""
    pasted = Pasted()
    answers: dict[str, dict[str, Any]] = {}
    for block in readme_blocks():
        operations = parse(block).definitions
        assert len(operations) == 1, f"one operation per block:\n{block}"
        assert isinstance(operations[0], OperationDefinitionNode)
        answer = await gql(pasted.fill(block))
        pasted.saw(answer)
        answers[block] = answer
    return answers


def answer_to(answers: dict[str, dict[str, Any]], text: str) -> dict[str, Any]:
    (found,) = [answer for block, answer in answers.items() if text in block]
    return found


async def test_every_graphql_block_of_the_readme_runs_as_written(gql: GraphQLClient) -> None:
    answers = await run_readme(gql)
    assert len(answers) == len(readme_blocks()) >= 20

    first = answer_to(answers, 'query { thread(id: "thr_...") { id title')
    assert first["thread"]["title"] == "hello"
    completed = answer_to(answers, "contextTokens: 203900")["completeRun"]
    assert completed["providerThread"]["contextUsage"]["contextTokens"] == 203900
    switch = answer_to(answers, '"Now add tests"')["startRun"]
    assert switch["strategy"] == "FULL_HANDOFF_NEW_THREAD"
    assert switch["budget"]["windowSource"] == "PROVIDER"
    (whole,) = switch["handoffs"]
    assert whole["quality"] == {"score": 1.0, "fidelity": 1.0}  # room for everything
    shown = {(e["runOrdinal"], e["index"], e["kind"]) for e in whole["entries"]}
    assert (1, 0, "DECISION") in shown and (1, -1, "USER_GOAL") in shown
    back = answer_to(answers, '"Ship it"')["startRun"]
    assert back["strategy"] == "DELTA_HANDOFF_EXISTING_THREAD"
    assert back["budget"]["budgetTokens"] == 100  # what the nearly full thread has left
    (delta,) = back["handoffs"]
    assert delta["omitted"] and delta["tokenEstimate"] <= 100  # what did not fit, listed
    assert "All 12 login tests pass." in delta["summaryText"]  # the latest reply is kept
    assert delta["quality"]["fidelity"] < 1.0
    items = answer_to(answers, "items(first: 20")["thread"]["items"]
    assert items["pageInfo"]["hasNextPage"] is False
    pulled = {(e["node"]["runOrdinal"], e["node"]["index"]) for e in items["edges"]}
    listed = {(o["runOrdinal"], o["index"]) for o in delta["omitted"]}
    assert listed <= pulled  # every item left out can be read back whole

    assert answer_to(answers, "reportProviderLimit")["reportProviderLimit"]["active"] is True
    ranked = answer_to(answers, "suggestProviders")["suggestProviders"]
    assert [(s["provider"], s["available"]) for s in ranked] == [
        ("codex", True),
        ("claude", False),
    ]
    text = answer_to(answers, '"Continue where it stopped"')["startRun"]["contextText"]
    assert "interrupted by a usage limit (5-hour limit reached)" in text
    assert "Tokenizer done; the grammar is next." in text
    assert (
        answer_to(answers, 'completeRun(runId: "run_...", nativeTurnRef: "turn-1") {')[
            "completeRun"
        ]["status"]
        == "COMPLETED"
    )
    cleared = answer_to(answers, "clearProviderLimit")["clearProviderLimit"]
    assert cleared == {"provider": "claude", "active": False}
    assert answer_to(answers, "providerLimits")["providerLimits"] == [
        {
            "provider": "claude",
            "reason": "5-hour limit reached",
            "resetsAt": "2099-01-01T00:00:00+00:00",
            "active": False,
        }
    ]

    then = answer_to(answers, 'thread(id: "thr_...", asOf')["thread"]
    assert [run["status"] for run in then["runs"]] == ["INTERRUPTED", "STARTING"]
    assert answer_to(answers, "explainMergeBack")["explainMergeBack"]["possible"] is False
    pending = answer_to(answers, "summarySource: LEAVING_PROVIDER")["startRun"]
    assert pending["handoffs"][0]["status"] == "PENDING"
    assert pending["summarizationRequests"][0]["provider"] == "codex"
    submitted = answer_to(answers, 'createdByProvider: "codex"')["submitHandoffSummary"]
    assert submitted["status"] == "READY"

    prepared = answer_to(answers, "prepareHandoff")["prepareHandoff"]
    assert (prepared["status"], prepared["preparedFor"]) == ("READY", "claude")
    edited = answer_to(answers, "Keep errors short.")["submitHandoffSummary"]
    assert edited["summarySource"] == "PERSON"
    injected = answer_to(answers, '"Add error recovery"')["startRun"]
    assert injected["contextText"].endswith("Keep errors short.")
    assert [h["summarySource"] for h in injected["handoffs"]] == ["PERSON"]
    at_item = answer_to(answers, "itemIndex: 1")["forkThread"]
    assert at_item["incomingTransfers"][0]["sourcePoint"]["itemIndex"] == 1
    side = answer_to(answers, "side: true")["forkThread"]
    assert side["relationshipToParent"] == "SIDE"
    edges = answer_to(answers, "includeSide: true")["lineage"]["edges"]
    assert {(e["relationship"], e["sourceItemIndex"]) for e in edges} == {
        ("FORK", 1),
        ("SIDE", None),
    }
