"""The snapshot format without a database: values keep their type, keys are stable, the
header is checked, and a canonical export ignores order and the workspace name."""

from __future__ import annotations

import json
import math
from datetime import UTC, timedelta, timezone

import pytest
import pytz  # type: ignore[import-untyped]
from neo4j.spatial import CartesianPoint, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

from graph import queries
from graph.snapshot import (
    SnapshotError,
    canonical,
    decode,
    encode,
    export_key,
    read,
    renamed,
)
from tests.support.snapshots import tiny_snapshot

VALUES = [
    "text",
    7,
    2.5,
    True,
    ["a", "b"],
    [1, 2],
    [],
    DateTime(2026, 12, 2, 1, 31, 40, 123456789, tzinfo=UTC),
    DateTime(2026, 12, 2, 1, 31, 40, 5, tzinfo=timezone(timedelta(hours=2))),
    DateTime(2026, 7, 2, 1, 31, 40, 0),
    Date(2026, 12, 2),
    Time(1, 2, 3, 4),
    Duration(months=3, days=2, seconds=5, nanoseconds=7),
    CartesianPoint((1.0, 2.0)),
    WGS84Point((2.0, 1.0, 3.0)),
    b"\x00\xff",
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_every_property_type_comes_back_as_it_was(value: object) -> None:
    through_json = json.loads(json.dumps(encode(value)))
    back = decode(through_json)
    assert back == value
    assert type(back) is type(value)


def test_non_finite_floats_and_named_zones_are_tagged() -> None:
    assert math.isnan(decode(json.loads(json.dumps(encode(float("nan"))))))
    assert decode(encode(float("-inf"))) == float("-inf")
    paris = pytz.timezone("Europe/Paris").localize(DateTime(2026, 7, 2, 1, 31, 40, 9))
    encoded = encode(paris)
    assert encoded["zone"] == "Europe/Paris"
    back = decode(encoded)
    assert back == paris
    assert back.tzinfo.zone == "Europe/Paris"
    # The driver reads an offset of zero as the zone UTC: it goes back as an offset.
    utc = decode(encode(DateTime(2026, 1, 1, 0, 0, 0, tzinfo=pytz.UTC)))
    assert utc.tzinfo == UTC


def test_keys_are_made_of_what_identifies_a_node_not_of_where_it_is_stored() -> None:
    ref = {"labels": ["Run"], "id": "run_1", "element": "4:x:1"}
    assert export_key(ref) == "Run:run_1"
    assert export_key({**ref, "element": "4:y:9"}) == "Run:run_1"
    assert export_key({"labels": ["CommandReceipt"], "commandId": "c1", "element": "e"}) == (
        "CommandReceipt:c1"
    )
    item = {"labels": ["RunItem"], "owner": "run_1", "seq": 3, "element": "e"}
    assert export_key(item) == "RunItem:run_1:3"
    assert export_key({"labels": ["Other"], "element": "e7"}) == "Other:element:e7"


def test_a_canonical_export_ignores_order_time_and_the_workspace_name() -> None:
    assert canonical(tiny_snapshot("a")) == canonical(tiny_snapshot("b", reverse=True))
    assert '"workspace": "*"' in canonical(tiny_snapshot("a"))
    changed = [line.replace('"title": "x"', '"title": "y"') for line in tiny_snapshot("a")]
    assert canonical(changed) != canonical(tiny_snapshot("a"))


def test_the_header_is_checked_before_anything_is_read() -> None:
    good = tiny_snapshot("a")
    assert read(good, queries.schema_version()).header.workspace == "a"
    with pytest.raises(SnapshotError, match="empty"):
        read([], 5)
    with pytest.raises(SnapshotError, match="not a Threadline snapshot"):
        read(['{"nodes": 1}'], 5)
    with pytest.raises(SnapshotError, match=r"line 1 is not JSON .*: not a Threadline snapshot"):
        read(["name,age"], 5)
    newer = json.dumps({**json.loads(good[0]), "schemaVersion": 99})
    with pytest.raises(SnapshotError, match="schema version 99, newer"):
        read([newer], 5)
    other_format = json.dumps({**json.loads(good[0]), "formatVersion": 2})
    with pytest.raises(SnapshotError, match="format 2"):
        read([other_format], 5)


def test_migrations_are_numbered_files_and_the_newest_is_the_code_version() -> None:
    versions = [migration.version for migration in queries.migrations()]
    assert versions == sorted(set(versions))
    assert versions[0] == 1
    assert queries.schema_version() == versions[-1]
    assert all(migration.statements for migration in queries.migrations())


def test_a_workspace_name_embedded_in_json_text_is_renamed_and_nothing_else() -> None:
    answer = '{"id":"lim_1","workspace":"a","nested":[{"workspace":"a"}],"note":"workspace a"}'
    assert json.loads(renamed(answer, "a", "b")) == {
        "id": "lim_1",
        "workspace": "b",
        "nested": [{"workspace": "b"}],
        "note": "workspace a",
    }
    assert renamed(answer, "other", "b") == answer  # another workspace's name: kept
    for untouched in ("a", 'workspace: "a"', 3, ['{"x": 1}'], "{not json"):
        assert renamed(untouched, "a", "b") == untouched
    assert renamed(['{"workspace": "a"}'], "a", "b") == ['{"workspace":"b"}']
