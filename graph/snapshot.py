"""The snapshot format of `threadline backup` and `threadline restore` (docs/MODEL.md,
"Snapshots"): JSON Lines, a header, one line per node, one per relationship, a trailer.

Property values keep their Neo4j type: JSON strings, integers, floats, booleans and lists
stand for themselves, and every other type is an object tagged `$t` (Neo4j properties
hold no maps, so an object is always a tag): temporal values as ISO text (nanoseconds and
offset or zone kept), durations by their four fields, points, bytes, non-finite floats.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta, timezone
from pathlib import Path
from typing import Any

import pytz  # type: ignore[import-untyped]  # the driver's own zones (it depends on it)
from neo4j.spatial import Point
from neo4j.time import Date, DateTime, Duration, Time

FORMAT = "threadline-snapshot"
FORMAT_VERSION = 1
WORKSPACE = "workspace"
# What a canonical export writes in place of the workspace name.
ANY_WORKSPACE = "*"


class SnapshotError(ValueError):
    """A file that is not a snapshot this code can restore; the message is one line."""


@dataclass(frozen=True)
class Header:
    workspace: str
    schema_version: int
    created_at: str
    format_version: int = FORMAT_VERSION

    def line(self) -> str:
        return dumps(
            {
                "format": FORMAT,
                "formatVersion": self.format_version,
                "schemaVersion": self.schema_version,
                "workspace": self.workspace,
                "createdAt": self.created_at,
            }
        )


@dataclass(frozen=True)
class Counts:
    nodes: int = 0
    relationships: int = 0


def dumps(record: dict[str, Any]) -> str:
    # NaN and infinities are tagged by `encode`: plain JSON everywhere else.
    return json.dumps(record, ensure_ascii=False, allow_nan=False, sort_keys=True)


def export_key(ref: dict[str, Any]) -> str:
    """A node's key in a snapshot, the same in every backup of the same data: its label
    and id; a receipt by its commandId; a run item by its run and position; anything else
    (no such node is written today) by its element id, unique within one snapshot."""
    label = ref["labels"][0] if ref["labels"] else "Node"
    if ref.get("id") is not None:
        return f"{label}:{ref['id']}"
    if label == "CommandReceipt" and ref.get("commandId") is not None:
        return f"{label}:{ref['commandId']}"
    if label == "RunItem" and ref.get("owner") is not None and ref.get("seq") is not None:
        return f"{label}:{ref['owner']}:{ref['seq']}"
    return f"{label}:element:{ref['element']}"


def node_line(ref: dict[str, Any], props: dict[str, Any]) -> str:
    return dumps({"node": export_key(ref), "labels": ref["labels"], "props": encode_map(props)})


def relationship_line(
    start: dict[str, Any], kind: str, end: dict[str, Any], props: dict[str, Any]
) -> str:
    return dumps(
        {
            "rel": kind,
            "from": export_key(start),
            "to": export_key(end),
            "props": encode_map(props),
        }
    )


def trailer_line(counts: Counts) -> str:
    return dumps({"end": True, "nodes": counts.nodes, "relationships": counts.relationships})


EMBEDDED_WORKSPACE = re.compile(r'"workspace"\s*:')


def renamed(value: Any, old: str, new: str) -> Any:
    """A property value with the workspace name `old` that a JSON text in it embeds (a
    receipt's stored answer holds the nodes it wrote, `workspace` included) replaced by
    `new`. Anything else is returned as it is."""
    if isinstance(value, list):
        return [renamed(item, old, new) for item in value]
    if not isinstance(value, str) or not EMBEDDED_WORKSPACE.search(value):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    if not isinstance(parsed, dict | list):
        return value
    # Compact, as pydantic writes the JSON the service stores.
    return json.dumps(_renamed(parsed, old, new), ensure_ascii=False, separators=(",", ":"))


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, dict):
        return {
            key: new if key == WORKSPACE and item == old else _renamed(item, old, new)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return value


def encode_map(props: dict[str, Any]) -> dict[str, Any]:
    return {key: encode(value) for key, value in props.items()}


@dataclass(frozen=True)
class OffsetDateTime:
    """A datetime with an offset (no named zone), as `DateTime.iso_format` writes it."""

    text: str


EPOCH = date(1970, 1, 1)


def offset_datetime(epoch_seconds: int, nanosecond: int, offset_seconds: int) -> OffsetDateTime:
    """The datetime Neo4j answers by its parts (backup/bundles), without the driver's
    conversion of each value (tens of microseconds: docs/MODEL.md, "Reading times"); its
    text is `neo4j.time.DateTime.iso_format()`'s, nanoseconds and offset in full."""
    days, seconds = divmod(epoch_seconds + offset_seconds, 86400)
    day = EPOCH + timedelta(days=days)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    sign = "-" if offset_seconds < 0 else "+"
    offset_hours, offset_minutes = divmod(abs(offset_seconds // 60), 60)
    return OffsetDateTime(
        f"{day.year:04d}-{day.month:02d}-{day.day:02d}T{hours:02d}:{minutes:02d}:"
        f"{seconds:02d}.{nanosecond:09d}{sign}{offset_hours:02d}:{offset_minutes:02d}"
    )


def from_pairs(pairs: list[list[Any]]) -> dict[str, Any]:
    """Properties as backup/bundles answers them: `[key, value]`, or for a datetime with an
    offset in years 1-9999 `[key, epochSeconds, nanosecond, offsetSeconds]`."""
    return {
        pair[0]: pair[1] if len(pair) == 2 else offset_datetime(pair[1], pair[2], pair[3])
        for pair in pairs
    }


def encode(value: Any) -> Any:
    """A property value as JSON; `decode` gives back the same Neo4j value."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, OffsetDateTime):
        return {"$t": "datetime", "v": value.text}
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$t": "float", "v": repr(value)}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, DateTime):
        return _encode_datetime(value)
    if isinstance(value, Date):
        return {"$t": "date", "v": value.iso_format()}
    if isinstance(value, Time):
        kind = "localtime" if value.tzinfo is None else "time"
        return {"$t": kind, "v": value.iso_format()}
    if isinstance(value, Duration):
        return {"$t": "duration", "v": [value.months, value.days, value.seconds, value.nanoseconds]}
    if isinstance(value, Point):
        return {"$t": "point", "srid": value.srid, "v": list(value)}
    if isinstance(value, bytes | bytearray):
        return {"$t": "bytes", "v": base64.b64encode(bytes(value)).decode("ascii")}
    raise SnapshotError(f"a property of type {type(value).__name__} cannot be written")


def _encode_datetime(value: DateTime) -> dict[str, Any]:
    if value.tzinfo is None:
        return {"$t": "localdatetime", "v": value.iso_format()}
    encoded: dict[str, Any] = {"$t": "datetime", "v": value.iso_format()}
    # The driver reads an offset of zero as the zone UTC; any other named zone is kept.
    zone = getattr(value.tzinfo, "zone", None) or getattr(value.tzinfo, "key", None)
    if isinstance(zone, str) and zone != "UTC":
        encoded["zone"] = zone
    return encoded


def decode_map(props: dict[str, Any]) -> dict[str, Any]:
    return {key: decode(value) for key, value in props.items()}


def split_times(props: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """`props` decoded (`decode_map`), but for its datetimes with an offset, which come
    apart as their ISO text for Cypher's `datetime()` to make: the same value, without the
    driver's conversion of each (tens of microseconds; docs/MODEL.md, "Writing times")."""
    decoded: dict[str, Any] = {}
    times: dict[str, str] = {}
    for key, value in props.items():
        if isinstance(value, dict) and value.get("$t") == "datetime" and "zone" not in value:
            times[key] = value["v"]
        else:
            decoded[key] = decode(value)
    return decoded, times


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    kind, text = value.get("$t"), value["v"]
    match kind:
        case "float":
            return float(text)
        case "datetime":
            return _decode_datetime(text, value.get("zone"))
        case "localdatetime":
            return DateTime.from_iso_format(text)
        case "date":
            return Date.from_iso_format(text)
        case "time" | "localtime":
            return Time.from_iso_format(text)
        case "duration":
            months, days, seconds, nanoseconds = text
            return Duration(months=months, days=days, seconds=seconds, nanoseconds=nanoseconds)
        case "point":
            return _point(value)
        case "bytes":
            return base64.b64decode(text)
    raise SnapshotError(f"unknown tagged value {value!r}")


def _decode_datetime(text: str, zone: str | None) -> DateTime:
    parsed = DateTime.from_iso_format(text)
    offset = parsed.utcoffset()
    assert offset is not None  # the text of a zoned value always has its offset
    # A fixed offset (not the driver's UTC zone), so it is written back as an offset.
    fixed = parsed.replace(tzinfo=timezone(offset))
    if zone is None:
        return fixed
    return fixed.astimezone(pytz.timezone(zone))  # the same instant, in its named zone


def _point(value: dict[str, Any]) -> Point:
    from neo4j.spatial import CartesianPoint, WGS84Point

    coordinates = value["v"]
    srid = int(value["srid"])
    kind = WGS84Point if srid in (4326, 4979) else CartesianPoint
    return kind(coordinates)


@dataclass
class Records:
    """A snapshot read back: its header, then its nodes and relationships as they come."""

    header: Header
    lines: Iterator[dict[str, Any]]
    at: Position


@dataclass
class Position:
    """The number of the line a snapshot has been read to, and that line's length."""

    line: int = 0
    size: int = 0


def read(lines: Iterable[str], code_schema: int) -> Records:
    """The header of a snapshot (checked: format, version, schema not newer than the
    code's), and an iterator over the records after it, ending at the trailer."""
    at = Position()
    stream = _records(lines, at)
    try:
        first = next(stream)
    except StopIteration:
        raise SnapshotError("the file is empty: not a Threadline snapshot") from None
    if not isinstance(first, dict) or first.get("format") != FORMAT:
        raise SnapshotError("not a Threadline snapshot (its first line names no format)")
    if first.get("formatVersion") != FORMAT_VERSION:
        raise SnapshotError(
            f"snapshot format {first.get('formatVersion')} is not one this Threadline "
            f"reads (it reads format {FORMAT_VERSION})"
        )
    header = Header(
        workspace=str(first["workspace"]),
        schema_version=int(first["schemaVersion"]),
        created_at=str(first["createdAt"]),
    )
    if header.schema_version > code_schema:
        raise SnapshotError(
            f"the snapshot is at schema version {header.schema_version}, newer than this "
            f"Threadline's schema version {code_schema}: restore it with a newer Threadline"
        )
    return Records(header, stream, at)


def check_complete(path: Path) -> None:
    """SnapshotError unless the file's last line is a trailer: a file cut off (the usual
    damage: a copy that stopped, a full disk) is refused before a restore writes anything.
    Reads the file once, in binary, to number its last line."""
    newlines, tail = 0, b""
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            newlines += chunk.count(b"\n")
            tail = (tail + chunk)[-(1 << 16) :]
    text = tail.rstrip()
    if not text:
        raise SnapshotError("the file is empty: not a Threadline snapshot")
    number = newlines - tail[len(text) :].count(b"\n") + 1  # of the last line with text
    try:
        record = json.loads(text.rsplit(b"\n", 1)[-1])
    except ValueError as error:
        what = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise SnapshotError(f"line {number} is not JSON ({what}): cut off or corrupt") from error
    if not isinstance(record, dict) or record.get("end") is not True:
        raise SnapshotError(
            f"the snapshot ends at line {number}, before its last line: it is incomplete"
        )


def _records(lines: Iterable[str], at: Position) -> Iterator[Any]:
    """Each non-blank line as JSON; one that is not (a file cut off mid-line, or another
    file's text) stops the read with its line number."""
    for number, line in enumerate(lines, start=1):
        at.line, at.size = number, len(line)
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as error:
            what = "not a Threadline snapshot" if number == 1 else "cut off or corrupt"
            raise SnapshotError(f"line {number} is not JSON ({error.msg}): {what}") from error


def canonical(lines: Iterable[str]) -> str:
    """A snapshot as sorted JSON: its nodes by key, its relationships in order, the
    workspace name replaced by `*` (also where a JSON text embeds it), no header. Two
    snapshots of the same data, in any workspace and in any order, have the same
    canonical form."""
    records = read(lines, code_schema=10**9)
    workspace = records.header.workspace
    nodes: list[str] = []
    relationships: list[str] = []
    for record in records.lines:
        if "node" not in record and "rel" not in record:
            continue
        props = {k: renamed(v, workspace, ANY_WORKSPACE) for k, v in record["props"].items()}
        if WORKSPACE in props:
            props[WORKSPACE] = ANY_WORKSPACE
        (nodes if "node" in record else relationships).append(dumps({**record, "props": props}))
    return "\n".join([*sorted(nodes), *sorted(relationships)]) + "\n"
