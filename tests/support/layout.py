"""Geometry of a drawn graph, for the browser tests: boxes that overlap and polylines that
cross them, on the rendered (screen) coordinates the lineage page reports."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

# Anti-aliasing and rounding: a label may touch its neighbour by less than a pixel.
TOLERANCE = 1.0


@dataclass(frozen=True)
class Box:
    x1: float
    y1: float
    x2: float
    y2: float

    @classmethod
    def of(cls, bb: dict[str, Any]) -> Box:
        return cls(bb["x1"], bb["y1"], bb["x2"], bb["y2"])

    def inset(self, by: float) -> Box:
        return Box(self.x1 + by, self.y1 + by, self.x2 - by, self.y2 - by)

    def empty(self) -> bool:
        return self.x2 <= self.x1 or self.y2 <= self.y1

    def meets(self, other: Box) -> bool:
        a, b = self.inset(TOLERANCE / 2), other.inset(TOLERANCE / 2)
        return a.x1 < b.x2 and b.x1 < a.x2 and a.y1 < b.y2 and b.y1 < a.y2


Point = tuple[float, float]


def crosses(start: Point, end: Point, box: Box) -> bool:
    """Whether the segment start→end enters `box` (shrunk by the tolerance): Liang-Barsky."""
    inner = box.inset(TOLERANCE)
    if inner.empty():
        return False
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    low, high = 0.0, 1.0
    for p, q in (
        (-dx, x0 - inner.x1),
        (dx, inner.x2 - x0),
        (-dy, y0 - inner.y1),
        (dy, inner.y2 - y0),
    ):
        if p == 0:
            if q < 0:
                return False
            continue
        r = q / p
        if p < 0:
            low = max(low, r)
        else:
            high = min(high, r)
        if low > high:
            return False
    return True


def polyline_crosses(points: list[Point], box: Box) -> bool:
    return any(crosses(a, b, box) for a, b in pairwise(points))


def overlaps(boxes: dict[str, Box]) -> list[tuple[str, str]]:
    """Every pair of boxes that overlap."""
    items = sorted(boxes.items())
    return [
        (a, b)
        for i, (a, box) in enumerate(items)
        for b, other in items[i + 1 :]
        if box.meets(other)
    ]
