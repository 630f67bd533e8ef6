"""importSession: a provider's own session file joins the lineage as a thread."""

from __future__ import annotations

from api.commands.caller import Caller, locked
from api.commands.receipts import Written
from graph import repo
from graph.errors import conflict
from graph.models import SessionFormat
from graph.tx import Tx
from resolvers.imports import writes
from resolvers.imports.writes import Earlier, Imported


async def import_session(
    tx: Tx,
    caller: Caller,
    session_format: SessionFormat,
    content: str,
    thread_id: str | None,
    title: str | None,
) -> Written[Imported]:
    parsed = writes.parse(session_format, content)  # INVALID_INPUT before any read
    found = await repo.imported_session(tx, caller.workspace, writes.session_key(parsed))
    earlier = None
    if found is not None:
        state, _ = await locked(tx, caller, found["threadId"])
        pt = state.provider_thread(found["providerThreadId"])
        if pt is None:
            raise conflict(f"The thread of session {parsed.sessionId} lost its provider thread.")
        earlier = Earlier(state=state, providerThread=pt, importKeys=frozenset(found["importKeys"]))
    # A new thread under a `thread_id` already taken is CONFLICT at the write (its key).
    draft = caller.draft()
    made = writes.import_session(draft, caller.workspace, parsed, earlier, thread_id, title)
    return Written(made, draft.build())
