"""Sets of run ordinals as sorted, merged, inclusive ranges.

A thread's history, what a provider thread ran and what its handoffs cover are
contiguous stretches of ordinals, so decisions work on a handful of ranges whatever
the length of the thread. Stored in Neo4j flattened: [from1, to1, from2, to2, ...].
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

Span = tuple[int, int]


@dataclass(frozen=True)
class Ranges:
    spans: tuple[Span, ...] = ()

    @classmethod
    def of(cls, ordinals: Iterable[int]) -> Ranges:
        spans: list[Span] = []
        for ordinal in sorted(set(ordinals)):
            if spans and spans[-1][1] == ordinal - 1:
                spans[-1] = (spans[-1][0], ordinal)
            else:
                spans.append((ordinal, ordinal))
        return cls(tuple(spans))

    @classmethod
    def span(cls, low: int, high: int) -> Ranges:
        return cls(((low, high),)) if low <= high else cls()

    @classmethod
    def unflatten(cls, flat: Sequence[int] | None) -> Ranges:
        pairs = list(flat or [])
        return cls._merged((pairs[i], pairs[i + 1]) for i in range(0, len(pairs) - 1, 2))

    def flatten(self) -> list[int]:
        return [bound for span in self.spans for bound in span]

    def __iter__(self) -> Iterator[int]:
        for low, high in self.spans:
            yield from range(low, high + 1)

    def __len__(self) -> int:
        return sum(high - low + 1 for low, high in self.spans)

    def __bool__(self) -> bool:
        return bool(self.spans)

    def __contains__(self, ordinal: object) -> bool:
        return isinstance(ordinal, int) and any(lo <= ordinal <= hi for lo, hi in self.spans)

    @property
    def first(self) -> int | None:
        return self.spans[0][0] if self.spans else None

    @property
    def last(self) -> int | None:
        return self.spans[-1][1] if self.spans else None

    def __or__(self, other: Ranges) -> Ranges:
        return Ranges._merged([*self.spans, *other.spans])

    def __and__(self, other: Ranges) -> Ranges:
        spans: list[Span] = []
        for low, high in self.spans:
            for other_low, other_high in other.spans:
                if max(low, other_low) <= min(high, other_high):
                    spans.append((max(low, other_low), min(high, other_high)))
        return Ranges._merged(spans)

    def __sub__(self, other: Ranges) -> Ranges:
        spans = list(self.spans)
        for cut_low, cut_high in other.spans:
            kept: list[Span] = []
            for low, high in spans:
                if cut_high < low or cut_low > high:
                    kept.append((low, high))
                    continue
                if low < cut_low:
                    kept.append((low, cut_low - 1))
                if cut_high < high:
                    kept.append((cut_high + 1, high))
            spans = kept
        return Ranges(tuple(spans))

    def with_ordinal(self, ordinal: int) -> Ranges:
        return self | Ranges.span(ordinal, ordinal)

    def through(self, ordinal: int) -> Ranges:
        """The ordinals up to and including `ordinal`."""
        return self & Ranges.span(1, ordinal)

    def after(self, ordinal: int) -> Ranges:
        """The ordinals strictly greater than `ordinal`."""
        return self - Ranges.span(1, ordinal)

    @staticmethod
    def _merged(spans: Iterable[Span]) -> Ranges:
        merged: list[Span] = []
        for low, high in sorted(span for span in spans if span[0] <= span[1]):
            if merged and low <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], high))
            else:
                merged.append((low, high))
        return Ranges(tuple(merged))
