"""A conversation as the baseline rules read it, and what a rule keeps of it.

A baseline sees the covered material of a thread as one message per item, in run order:
a run's request is a user message, every other item an assistant one. Each message costs
its tokens, counted by the caller (the benchmark counts with the product's estimator, so
every rule is held to the same measure). A rule keeps messages whole or leaves them out;
it never shortens one.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    user: bool  # a request the person typed (a run's input); else anything the agent did
    tokens: int  # what showing it whole costs, its label and separator included


@dataclass(frozen=True)
class Kept:
    """Positions in the conversation (0-based, in conversation order) a rule keeps whole
    and the ones it leaves out: together, every message once."""

    kept: tuple[int, ...]
    omitted: tuple[int, ...]

    @classmethod
    def of(cls, chosen: Collection[int], count: int) -> Kept:
        taken = set(chosen)
        return cls(
            kept=tuple(sorted(taken)),
            omitted=tuple(index for index in range(count) if index not in taken),
        )
