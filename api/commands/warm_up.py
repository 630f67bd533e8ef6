"""The commands a client sends first, rehearsed at warm-up in a transaction that is rolled
back, so that their statements are planned with the parameter shapes they really have;
and the warm-up family, the same rehearsal committed once in a hidden workspace.

Neo4j keys a cached plan by the statement and the shape of its parameters (null or a
value, the size of a list by bucket): the store's warm-up plans every statement with null
parameters, which a real command does not send, so without this the first `startRun`
after a Neo4j start planned its statements again (0.4 s each on a warm server, seconds on
a cold one). Nothing of the rehearsal is ever stored: the transaction is rolled back.

Neo4j also plans a cached statement again, once at least 10 s have passed since its
planning, when the graph's counts have changed much since: from an empty graph, the first
thread a user writes is such a change, and each of the first startRun, attachNativeThread
and completeRun after it was planned again (1.5-4 s each, measured on a fresh managed
Neo4j). With the warm-up family (`family`, THREADLINE_WARM_UP_FAMILY) written before any
statement is planned, the counts the plans are made on are not zero, and a user's first
threads change them too little to plan anything again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from api.commands import runs
from api.commands.caller import Caller, new_id, utcnow
from api.commands.receipts import Written
from graph import repo
from graph.models import HistoryMode, RunItem, RunItemKind, UsageReport
from graph.plan import CommandId, Receipt
from graph.tx import Tx
from resolvers.start.decision import StartRequest
from resolvers.start.writes import StartOutcome

# Neo4j also buckets a string parameter by its length (1, 2-10, 11-100, ...): the name is
# as long as a usual workspace name (`default`), so its plans are the ones they use. It is
# no workspace name a token may hold (api/auth.py `workspace_name`): nobody sees it.
WORKSPACE = "~warm-up"
T = TypeVar("T")
# Neo4j compiles a plan's expressions once it has run a few times ("hot"), which costs as
# much as planning it: the rehearsal runs that often.
HOT_AFTER = 3


@dataclass(frozen=True)
class Variant:
    """How a client sends the commands: with a commandId or not (the write statement then
    has a receipt section or none), and a completeRun with items and usage or neither (their
    sections or none). Each is its own statement to Neo4j, planned on its first use."""

    receipted: bool
    items: bool


# Those a client sends: typed clients and the demo (commandIds, items), and a person's
# first mutations in GraphiQL or curl (neither), and the two in between.
VARIANTS = [Variant(receipted, items) for receipted in (True, False) for items in (True, False)]


def rehearsal(caller: Caller) -> Callable[[Tx], Awaitable[None]]:
    """Create a thread, then start, attach and complete a run on one provider, on a second
    one (a switch, with its handoff), back (a resume) and on it again (a continue); in
    each of the `VARIANTS`, all of it `HOT_AFTER` times."""

    async def rehearse(tx: Tx) -> None:
        kinds = [provider.kind for provider in caller.providers.all()][:2]
        for variant in VARIANTS:
            for _ in range(HOT_AFTER):
                created = runs.create_thread(tx, caller, "warm-up", None)
                thread = await _applied(tx, caller, "createThread", created, variant)
                for kind in [*kinds, kinds[0], kinds[0]]:
                    await _run_cycle(tx, caller, thread.id, kind, variant)

    return rehearse


async def _run_cycle(
    tx: Tx, caller: Caller, thread_id: str, provider: str, variant: Variant
) -> None:
    request = StartRequest(provider=provider, input="warm-up")
    start = runs.start(tx, caller, thread_id, request)
    started: StartOutcome = await _applied(tx, caller, "startRun", start, variant)
    pt_id, run_id = started.provider_thread.id, started.run.id
    attached = runs.attach_native_thread(tx, caller, pt_id, "warm-up", HistoryMode.UNKNOWN)
    await _applied(tx, caller, "attachNativeThread", attached, variant)
    items = [RunItem(kind=RunItemKind.ASSISTANT_MESSAGE, text="ok")] if variant.items else []
    usage = UsageReport(contextTokens=1000, contextWindowTokens=200_000) if variant.items else None
    completed = runs.complete_run(tx, caller, run_id, "warm-up", items, None, [], usage)
    await _applied(tx, caller, "completeRun", completed, variant)


async def _applied(
    tx: Tx, caller: Caller, mutation: str, command: Awaitable[Written[T]], variant: Variant
) -> T:
    """A command's plan written as `receipts.run_once` writes it: with a receipt when
    the variant has a commandId."""
    written = await command
    receipt = (
        Receipt(
            commandId=CommandId(new_id("warm")),
            mutation=mutation,
            argsHash="",
            result="{}",
            createdAt=utcnow(),
        )
        if variant.receipted
        else None
    )
    await repo.apply(tx, caller.workspace, written.plan, receipt)
    return written.result


def family(caller: Caller) -> Callable[[Tx], Awaitable[bool]]:
    """The rehearsal committed in the hidden workspace `WORKSPACE` (the caller's), unless
    it is there already: a few threads with their runs, handoffs and events. True when it
    wrote them (the plans made meanwhile, on an empty graph, are then dropped)."""
    rehearse = rehearsal(caller)

    async def write(tx: Tx) -> bool:
        (found,) = await tx.rows("warm_up/family", workspace=caller.workspace)
        if found["threads"]:
            return False
        await rehearse(tx)
        return True

    return write
