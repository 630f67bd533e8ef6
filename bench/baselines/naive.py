"""The naive baseline: the last messages that fit.

Walk the conversation newest first and keep each message whole while the budget holds
it; stop at the first that does not. Everything older is left out, however small. This
is what a client does when it replays the tail of a transcript into a new provider.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.baselines.conversation import Kept, Message


def last_that_fit(messages: Sequence[Message], budget: int, reserve: int = 0) -> Kept:
    """The newest messages whose tokens add up to at most `budget - reserve` (`reserve`:
    what the text around them costs), stopping at the first that does not fit."""
    remaining = budget - reserve
    chosen: list[int] = []
    for index in reversed(range(len(messages))):
        cost = messages[index].tokens
        if cost > remaining:
            break  # the rule's point: no skipping ahead to an older, smaller message
        chosen.append(index)
        remaining -= cost
    return Kept.of(chosen, len(messages))
