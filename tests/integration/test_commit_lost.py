"""A commit whose answer is lost: the outcome is reported unknown, or resolved by commandId.

A proxy between the store and Neo4j forwards a transaction's COMMIT and then cuts the
connection before Neo4j's answer comes back, as a crash right after the commit would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import urlparse

import pytest

from graph.errors import ErrorCode, ThreadlineError
from graph.store import Store
from graph.tx import Tx
from tests.support.commit_cutter import CommitCutter
from tests.support.direct import create_thread
from tests.support.graphql import connect_test_store


@pytest.fixture
async def cutter(neo4j_uri: str) -> AsyncIterator[CommitCutter]:
    parsed = urlparse(neo4j_uri)
    async with CommitCutter(parsed.hostname or "127.0.0.1", parsed.port or 7687) as proxy:
        yield proxy


@pytest.fixture
async def proxied(cutter: CommitCutter, clean_store: Store) -> AsyncIterator[Store]:
    """A store whose Bolt traffic goes through `cutter` (on a clean database)."""
    store = connect_test_store(f"bolt://127.0.0.1:{cutter.port}", timeout_s=5.0)
    try:
        yield store
    finally:
        await store.close()


async def exists(store: Store, thread_id: str) -> bool:
    async def work(tx: Tx) -> bool:
        return bool(await tx.rows("thread/by_ids", ids=[thread_id], workspace="default"))

    return await store.read(work)


async def test_a_lost_commit_answer_is_unknown_without_a_command_id(
    cutter: CommitCutter, proxied: Store, clean_store: Store
) -> None:
    cutter.armed = True
    with pytest.raises(ThreadlineError) as raised:
        await create_thread(proxied, "default", "lost", "lost-answer")
    assert cutter.cuts == 1
    assert raised.value.code is ErrorCode.UNAVAILABLE
    assert raised.value.extensions["outcome"] == "UNKNOWN"
    assert await exists(clean_store, "lost-answer"), "the commit did reach Neo4j"


async def test_a_lost_commit_answer_is_resolved_with_a_command_id(
    cutter: CommitCutter, proxied: Store
) -> None:
    cutter.armed = True
    created = await create_thread(proxied, "default", "lost", "resolved", "cmd-lost")
    assert cutter.cuts == 1
    assert created.id == "resolved"
    again = await create_thread(proxied, "default", "lost", "resolved", "cmd-lost")
    assert again == created, "the receipt answers the committed result"
