"""Pages of a connection: how many rows a page holds, and its edges and `pageInfo`.

A page is read with one row more than it answers: that row says whether another follows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import strawberry

from graph.errors import invalid

Row = TypeVar("Row")


class Edge(Protocol):
    @property
    def cursor(self) -> str: ...


E = TypeVar("E", bound=Edge)


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


def page_size(limit: int, first: int | None, default: int) -> int:
    """`first` (`default` when not given), refused outside 1..`limit`."""
    first = default if first is None else first
    if not 1 <= first <= limit:
        raise invalid(f"first must be between 1 and {limit}, got {first}.")
    return first


def page(found: Sequence[Row], size: int, edge: Callable[[Row], E]) -> tuple[list[E], PageInfo]:
    """The edges of a page read with `size + 1` rows, and its `pageInfo`."""
    edges = [edge(row) for row in found[:size]]
    info = PageInfo(has_next_page=len(found) > size, end_cursor=edges[-1].cursor if edges else None)
    return edges, info
