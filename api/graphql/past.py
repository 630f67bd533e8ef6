"""The `asOf` argument: which instant an answer is about, and the lineage as it was."""

from __future__ import annotations

from datetime import UTC, datetime

from api.graphql.answers import Lineage
from api.graphql.context import Info
from graph import models
from resolvers.past.as_of import Instant


def instant(as_of: datetime | None) -> Instant | None:
    """The past instant `asOf` names; None for now. A time without a zone is UTC; a time
    in the future is the present."""
    if as_of is None:
        return None
    when = as_of if as_of.tzinfo is not None else as_of.replace(tzinfo=UTC)
    return Instant(when) if when < datetime.now(UTC) else None


async def lineage(info: Info, found: models.Lineage | None, at: Instant) -> Lineage:
    """The lineage as it was: only the threads that existed then, each as it was. Threads
    are never removed and a child is always younger than its parent, so what remains is
    the same tree, cut back; an asked thread that did not exist yet answers no lineage."""
    if found is None:
        return Lineage.of(None)
    then = await info.context.loaders_at(at).thread.load_many([n.thread.id for n in found.nodes])
    kept = {node.id: node for node in then if node is not None}
    if not any(n.depth == 0 and n.thread.id in kept for n in found.nodes):
        return Lineage.of(None)
    cut = models.Lineage(
        nodes=[
            models.LineageNode(thread=kept[n.thread.id], depth=n.depth)
            for n in found.nodes
            if n.thread.id in kept
        ],
        edges=[e for e in found.edges if e.from_ in kept and e.to in kept],
    )
    return Lineage.of(cut, at)
