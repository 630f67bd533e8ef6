"""What each status-bearing node was, and since when: its history (docs/MODEL.md "History").

A node keeps `historyJson`, a list of JSON strings, one entry per change of the fields
below: `{"at": <ISO time>, <field>: <new value>, ...}`. The entry for its creation holds
every tracked field that has a value. Entries are written by the write plan that makes
the change (`graph.repo.apply`, `cypher/plan/apply.cypher`), in the same statement, and
only when a tracked value really changes, so a history stays as short as the node's
status changes are few. Fields that change on every run (a provider thread's native
runs and last use, a thread's latest ordinal and rolled-back runs) are not kept here:
they follow from the runs' histories (`resolvers/past/as_of.py`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, Generic, Literal, TypeVar

from graph.models import (
    HandoffNode,
    ProviderThreadNode,
    RunNode,
    ThreadNode,
    TransferNode,
)

N = TypeVar("N")
NodeKind = Literal["thread", "providerThread", "run", "handoff", "transfer"]
STORED = "historyJson"

TRACKED: dict[NodeKind, tuple[str, ...]] = {
    "thread": ("cleanContextRequested",),
    "run": ("status", "providerThreadId", "rolledBackTo"),
    "providerThread": (
        "status",
        "nativeRef",
        "historyMode",
        "model",
        "staleSignals",
        "failureReason",
    ),
    # A prepared handoff gets its target run and provider thread when a start injects it.
    "handoff": ("status", "supersededById", "targetRunId", "toProviderThreadId"),
    "transfer": (
        "status",
        "resolutionStrategy",
        "resolvedProviderThreadId",
        "handoffId",
        "consumedAt",
        "consumedByRunId",
    ),
}


@dataclass(frozen=True)
class Version:
    """One entry: the tracked fields a change set (raw JSON values), and when."""

    at: datetime
    values: Mapping[str, Any]


@dataclass(frozen=True)
class Versioned(Generic[N]):
    """A node as it is now, and its history (empty: written before histories were kept)."""

    node: N
    history: tuple[Version, ...] = ()


@dataclass(frozen=True)
class Timeline:
    """Everything a thread's state is made of, each node with its history: enough to
    rebuild the state at any past instant (`resolvers/past/as_of.py`)."""

    thread: Versioned[ThreadNode]
    runs: tuple[Versioned[RunNode], ...]
    providerThreads: tuple[Versioned[ProviderThreadNode], ...]
    # Delivered to its provider threads, or prepared for its next starts.
    handoffs: tuple[Versioned[HandoffNode], ...]
    transfersIn: tuple[Versioned[TransferNode], ...]
    transfersOut: tuple[Versioned[TransferNode], ...]
    relatedIds: tuple[str, ...] = ()  # its ancestors and the sources of its incoming transfers


def tracked(kind: NodeKind, values: Mapping[str, Any]) -> dict[str, Any]:
    """The tracked fields among `values` that have a value."""
    return {k: values[k] for k in TRACKED[kind] if values.get(k) is not None}


def entry(at: datetime, values: Mapping[str, Any]) -> str:
    """One history entry, as stored."""
    return json.dumps({"at": at.isoformat(), **_plain(values)}, sort_keys=True)


def parse(stored: Iterable[str] | None) -> tuple[Version, ...]:
    """A stored history, oldest first (the order changes were committed)."""
    versions = []
    for text in stored or ():
        raw = json.loads(text, strict=False)  # a legacy entry may hold control characters
        at = datetime.fromisoformat(raw.pop("at"))
        versions.append(Version(at=at, values=raw))
    return tuple(versions)


def of_row(row: Mapping[str, Any]) -> tuple[Version, ...]:
    """The history of a node read as `n {.*}`."""
    stored: Sequence[str] | None = row.get(STORED)
    return parse(stored)


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    def plain(value: Any) -> Any:
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, datetime):
            return value.isoformat()
        if isinstance(value, list | tuple):
            return [plain(item) for item in value]
        return value

    return {key: plain(value) for key, value in values.items()}
