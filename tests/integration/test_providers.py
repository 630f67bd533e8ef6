"""The provider registry through GraphQL: built-ins and a TOML providers file."""

from __future__ import annotations

from pathlib import Path

from api.settings import Settings
from graph.store import Store
from resolvers.handoffs import tokenizer
from tests.support.graphql import GraphQLClient, make_app_client
from tests.support.steps import new_thread, run_once, start

PROVIDERS = """{ providers {
  kind supportsNativeForkAtTurn supportsRollback injectionMode maxHandoffTokens } }"""


async def test_built_in_providers(gql: GraphQLClient) -> None:
    found = {p["kind"]: p for p in (await gql(PROVIDERS))["providers"]}
    assert found["codex"]["injectionMode"] == "DEVELOPER"
    assert found["codex"]["supportsNativeForkAtTurn"] is True
    assert found["claude"]["injectionMode"] == "SYSTEM"
    assert found["claude"]["supportsRollback"] is False


async def test_providers_file_adds_a_small_budget_provider(
    clean_store: Store, tmp_path: Path
) -> None:
    file = tmp_path / "providers.toml"
    file.write_text(
        "[providers.gemini]\nsupports_resume = true\naccepts_handoff = true\n"
        'injection_mode = "PREAMBLE"\nmax_handoff_tokens = 90\n'
    )
    async with make_app_client(clean_store, Settings(providers_file=file)) as http:
        gql = GraphQLClient(http)
        kinds = [p["kind"] for p in (await gql(PROVIDERS))["providers"]]
        assert kinds == ["claude", "codex", "gemini"]
        thread = await new_thread(gql)
        for n in range(3):
            decision = {"kind": "DECISION", "text": f"a long decision number {n} " + "z" * 200}
            await run_once(gql, thread, "codex", f"request {n}", items=[decision])
        switched = await start(gql, thread, "gemini")
        assert switched["injectionMode"] == "PREAMBLE"
        assert switched["handoffs"][0]["tokenEstimate"] <= 90
        assert tokenizer.count(switched["contextText"]) <= 90
        assert "request 0" in switched["contextText"] and "request 2" in switched["contextText"]
