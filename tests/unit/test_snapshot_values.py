"""A datetime a backup reads by its parts is written as the driver's own value would be
(graph.snapshot.offset_datetime against neo4j.time.DateTime.iso_format)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytz  # type: ignore[import-untyped]  # the driver's own zones
from hypothesis import given
from hypothesis import strategies as st
from neo4j.time import DateTime

from graph.snapshot import encode, offset_datetime

# Years 2 to 9998, whatever the offset.
SECONDS = st.integers(min_value=-62_104_060_800, max_value=253_370_764_800)


@given(
    SECONDS,
    st.integers(min_value=0, max_value=999_999_999),
    st.integers(min_value=-18 * 60, max_value=18 * 60),
)
def test_a_datetime_by_its_parts_reads_as_the_drivers(
    epoch_seconds: int, nanosecond: int, offset_minutes: int
) -> None:
    wall = datetime(1970, 1, 1) + timedelta(seconds=epoch_seconds + offset_minutes * 60)
    fields = (wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second)
    value = DateTime(*fields, nanosecond, tzinfo=pytz.FixedOffset(offset_minutes))
    parts = offset_datetime(epoch_seconds, nanosecond, offset_minutes * 60)
    assert encode(parts) == {"$t": "datetime", "v": value.iso_format()}
