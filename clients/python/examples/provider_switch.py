"""The provider switch of docs/HANDOFFS.md with the typed Python client, against a running service:

    THREADLINE_URL=http://127.0.0.1:8000 THREADLINE_TOKEN=... \
        .venv/bin/python clients/python/examples/provider_switch.py

Codex runs first, then Claude takes over with a handoff sized for its window. Prints what
it saw as JSON; exits non-zero when the service answered otherwise.
"""

from __future__ import annotations

import asyncio
import json
import os

from threadline_client import ContextUsageInput, RunItemInput, RunItemKind
from threadline_client.connect import connect


async def main() -> dict[str, object]:
    # The service's base URL; its /graphql address, as a user may paste it, works too.
    url = os.environ.get("THREADLINE_URL", "http://127.0.0.1:8000")
    async with connect(url, os.environ.get("THREADLINE_TOKEN")) as client:
        thread = (await client.create_thread(title="Fix the login bug")).create_thread
        codex = (
            await client.start_run(thread_id=thread.id, provider="codex", input="Fix the login bug")
        ).start_run
        assert codex.provider_thread is not None
        await client.attach_native_thread(
            provider_thread_id=codex.provider_thread.id, native_ref="codex-123"
        )
        await client.complete_run(
            run_id=codex.run.id,
            native_turn_ref="turn-1",
            items=[
                RunItemInput(kind=RunItemKind.DECISION, text="Session cookies get SameSite=Lax"),
                RunItemInput(kind=RunItemKind.COMMAND, text="pytest tests/login"),
            ],
            usage=ContextUsageInput(context_tokens=41000, context_window_tokens=272000),
        )
        claude = (
            await client.start_run(thread_id=thread.id, provider="claude", input="Now add tests")
        ).start_run
        items = await client.thread_items(
            id=thread.id, kinds=[RunItemKind.DECISION], run_ordinals=[1]
        )
    assert claude.strategy.value == "FULL_HANDOFF_NEW_THREAD", claude.strategy
    assert claude.context_text and "SameSite=Lax" in claude.context_text
    assert items.thread is not None
    decisions = [edge.node.text for edge in items.thread.items.edges]
    assert decisions == ["Session cookies get SameSite=Lax"], decisions
    (handoff,) = claude.handoffs
    return {
        "threadId": thread.id,
        "strategy": claude.strategy.value,
        "decisions": decisions,
        "budgetTokens": claude.budget.budget_tokens,
        "handoffTokens": handoff.token_estimate,
        "omitted": len(handoff.omitted),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
