"""Rows and models: what a node's properties hold in Neo4j and what the code reads.

Neo4j properties hold no maps, so nested values (item attributes, handoff sections, diff
stats, event payloads) are stored as JSON strings and decoded here, and Neo4j's temporal
values become Python's; a model's fields become a node's properties the other way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from neo4j.time import DateTime
from pydantic import BaseModel

from graph import history
from graph.history import Timeline, Versioned
from graph.models import (
    CheckpointNode,
    EventNode,
    HandoffNode,
    ProviderLimitNode,
    ProviderThreadNode,
    RunItem,
    RunNode,
    ThreadNode,
    TransferNode,
)
from graph.thread_state import ThreadState
from graph.tx import Row

N = TypeVar("N")
M = TypeVar("M", bound=BaseModel)
JSON_FIELDS = {
    "digest": "digestJson",
    "attributes": "attributesJson",
    "sections": "sectionsJson",
    "diffSummary": "diffSummaryJson",
    "payload": "payloadJson",
    "sourcePoint": "sourcePointJson",
    "basePoint": "basePointJson",
    "contextUsage": "contextUsageJson",
    "budget": "budgetJson",
    "omitted": "omittedJson",
    "entries": "entriesJson",
    "quality": "qualityJson",
}


# ---- decoding ---------------------------------------------------------------


STORED_JSON = {stored: field for field, stored in JSON_FIELDS.items()}
# What `native` leaves as it is: the driver's plain values, most of a row.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """Neo4j temporal values to Python ones, JSON-string fields back to values.

    Every row a command reads passes here (a state read is some 90 values deep), so the
    common kinds are told apart by their exact type first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict:
        decoded: dict[str, Any] = {}
        parsed: dict[str, Any] = {}
        for key, item in value.items():
            field = STORED_JSON.get(key)
            if field is not None:
                parsed[field] = json.loads(item) if item is not None else None
            else:
                decoded[key] = item if type(item) in _PLAIN else native(item)
        if parsed:
            decoded.update(parsed)
        return decoded
    if kind is list:
        return [item if type(item) in _PLAIN else native(item) for item in value]
    if isinstance(value, DateTime):
        return value.to_native()
    if isinstance(value, list):
        return [native(item) for item in value]
    if isinstance(value, dict):
        return native(dict(value))
    return value


def reader(model: type[M]) -> Callable[[Row], M]:
    """How a node of `model` reads back from its row: stored JSON decoded, then validated."""

    def read(row: Row) -> M:
        return model.model_validate(native(row))

    return read


thread_from = reader(ThreadNode)
run_from = reader(RunNode)
item_from = reader(RunItem)
checkpoint_from = reader(CheckpointNode)
provider_thread_from = reader(ProviderThreadNode)
handoff_from = reader(HandoffNode)
transfer_from = reader(TransferNode)
limit_from = reader(ProviderLimitNode)
event_from = reader(EventNode)


def state_from(row: Row) -> ThreadState:
    decoded = native(row)
    return ThreadState.model_validate(
        {
            **decoded,
            "deltaChains": dict(decoded["deltaChains"]),
            "latestCompleted": next(iter(decoded["latestCompleted"]), None),
            "latestStable": next(iter(decoded["latestStable"]), None),
        }
    )


@dataclass(frozen=True)
class DivergenceInputs:
    """What resolvers/lineage/divergence.py reads of a child thread (thread/divergence)."""

    child: ThreadState
    source: ThreadNode
    point: RunNode | None
    returns: list[TransferNode]


def divergence_from(row: Row) -> DivergenceInputs:
    return DivergenceInputs(
        child=state_from(row["child"]),
        source=thread_from(row["source"]),
        point=run_from(row["point"]) if row["point"] is not None else None,
        returns=[transfer_from(x) for x in row["returns"]],
    )


def versioned(row: Row, decode: Callable[[Row], N]) -> Versioned[N]:
    """A node read as `n {.*}` and its history."""
    return Versioned(decode(row), history.of_row(row))


def timeline_from(row: Row) -> Timeline:
    """A thread/timeline value: the thread's nodes with their histories."""
    return Timeline(
        thread=versioned(row["thread"], thread_from),
        runs=tuple(versioned(r, run_from) for r in row["runs"]),
        providerThreads=tuple(versioned(p, provider_thread_from) for p in row["providerThreads"]),
        handoffs=tuple(versioned(h, handoff_from) for h in row["handoffs"]),
        transfersIn=tuple(versioned(x, transfer_from) for x in row["transfersIn"]),
        transfersOut=tuple(versioned(x, transfer_from) for x in row["transfersOut"]),
        relatedIds=tuple(row["relatedIds"]),
    )


# ---- encoding ---------------------------------------------------------------


def props(model: Any, *, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """A model as Neo4j properties: nested values JSON-encoded, nulls dropped."""
    data = model.model_dump(mode="python", exclude=set(exclude))
    return encode(data)


def encode(data: dict[str, Any]) -> dict[str, Any]:
    encoded: dict[str, Any] = {}
    for key, value in data.items():
        if value is None:
            continue
        if key in JSON_FIELDS:
            encoded[JSON_FIELDS[key]] = json.dumps(_plain(value), sort_keys=True, default=_iso)
        else:
            encoded[key] = _plain(value)
    return encoded


def param_row(encoded: dict[str, Any], **more: Any) -> dict[str, Any]:
    """Properties as `plan/apply` takes them: aware datetimes apart, as ISO text under
    `times`, which the statement turns back into DATETIME values. The driver's own
    conversion costs about 40 µs of Python per datetime (docs/MODEL.md, "Writing times")."""
    times = {
        key: value.isoformat()
        for key, value in encoded.items()
        if isinstance(value, datetime) and value.tzinfo is not None
    }
    props = {key: value for key, value in encoded.items() if key not in times}
    return {"props": props, "times": times, **more}


def _iso(value: Any) -> str:
    """A time inside a JSON property, as ISO text (read back by the model that holds it)."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _plain(value: Any) -> Any:
    """Values the driver and json accept: enums by value, models as dicts. Every property
    a plan writes passes here: the common kinds are told apart by their exact type first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return [item if type(item) in _PLAIN else _plain(item) for item in value]
    if kind is dict:
        return {key: item if type(item) in _PLAIN else _plain(item) for key, item in value.items()}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="python"))
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
