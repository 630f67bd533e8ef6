"""The commands a client sends first, rehearsed at warm-up in a transaction that is rolled
back, so that their statements are planned with the parameter shapes they really have.

Neo4j keys a cached plan by the statement and the shape of its parameters (null or a
value, the size of a list by bucket): the store's warm-up plans every statement with null
parameters, which a real command does not send, so without this the first `startRun`
after a Neo4j start planned its statements again (0.4 s each on a warm server, seconds on
a cold one). Nothing of the rehearsal is ever stored: the transaction is rolled back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from api.commands import runs
from api.commands.caller import Caller, new_id, utcnow
from api.commands.receipts import Written
from graph import repo
from graph.models import HistoryMode, RunItem, RunItemKind
from graph.plan import CommandId, Receipt
from graph.store import Tx
from resolvers.start.decision import StartRequest
from resolvers.start.plan import StartOutcome

# Neo4j also buckets a string parameter by its length (1, 2-10, 11-100, ...): the name is
# as long as a usual workspace name (`default`), so its plans are the ones they use.
WORKSPACE = "warm-up"
T = TypeVar("T")
# Neo4j compiles a plan's expressions once it has run a few times ("hot"), which costs as
# much as planning it: the rehearsal runs that often.
HOT_AFTER = 3


def rehearsal(caller: Caller) -> Callable[[Tx], Awaitable[None]]:
    """Create a thread, then start, attach and complete a run on one provider, on a second
    one (a switch, with its handoff), back (a resume) and on it again (a continue), each
    with a commandId as clients send; all of it `HOT_AFTER` times."""

    async def rehearse(tx: Tx) -> None:
        kinds = [provider.kind for provider in caller.providers.all()][:2]
        for _ in range(HOT_AFTER):
            thread = await _applied(
                tx, caller, "createThread", runs.create_thread(tx, caller, "warm-up", None)
            )
            for kind in [*kinds, kinds[0], kinds[0]]:
                await _run_cycle(tx, caller, thread.id, kind)

    return rehearse


async def _run_cycle(tx: Tx, caller: Caller, thread_id: str, provider: str) -> None:
    request = StartRequest(provider=provider, input="warm-up")
    started: StartOutcome = await _applied(
        tx, caller, "startRun", runs.start_run(tx, caller, thread_id, request)
    )
    pt_id, run_id = started.provider_thread.id, started.run.id
    attached = runs.attach_native_thread(tx, caller, pt_id, "warm-up", HistoryMode.UNKNOWN)
    await _applied(tx, caller, "attachNativeThread", attached)
    item = RunItem(kind=RunItemKind.ASSISTANT_MESSAGE, text="ok")
    completed = runs.complete_run(tx, caller, run_id, "warm-up", [item], None, [])
    await _applied(tx, caller, "completeRun", completed)


async def _applied(tx: Tx, caller: Caller, mutation: str, command: Awaitable[Written[T]]) -> T:
    """A command's plan written as `receipts.run_once` writes it, with a receipt."""
    written = await command
    receipt = Receipt(
        commandId=CommandId(new_id("warm")),
        mutation=mutation,
        argsHash="",
        result="{}",
        createdAt=utcnow(),
    )
    await repo.apply(tx, caller.workspace, written.plan, receipt)
    return written.result
