"""GraphQL types made from the graph's models: a type states its fields once, and each plain
field is read from the model's attribute of the same name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Self, TypeVar, cast

import strawberry
from strawberry.types.base import get_object_definition

from resolvers.past.as_of import Instant

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M")


def described(
    description: str, *, mutation: bool = False, subscription: bool = False
) -> Callable[[F], F]:
    """`@strawberry.field(description=...)` (or mutation, or subscription) with its type
    kept: Strawberry's overload for that form is typed as returning Any."""
    decorate = (
        strawberry.mutation
        if mutation
        else strawberry.subscription
        if subscription
        else strawberry.field
    )
    return cast(Callable[[F], F], decorate(description=description))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_PLAIN_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}


def _plain_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """(field, attribute) of each of `cls`'s GraphQL fields without a resolver (read once)."""
    found = _PLAIN_FIELDS.get(cls)
    if found is None:
        definition = get_object_definition(cls, strict=True)
        found = _PLAIN_FIELDS[cls] = tuple(
            (f.python_name, _camel(f.python_name))
            for f in definition.fields
            if f.base_resolver is None
        )
    return found


def from_model(cls: type[T], source: object, **extra: object) -> T:
    """`cls` with each plain field read from `source`'s attribute of the same name (camelCase
    in the graph's models, as stored and as GraphQL names it; snake_case elsewhere): a type
    states its fields once, and only relations and computed fields have resolvers.
    `extra`: the fields it does not read so (private ones, those converted or renamed)."""
    values = {
        name: getattr(source, attribute if hasattr(source, attribute) else name)
        for name, attribute in _plain_fields(cls)
        if name not in extra
    }
    return cls(**values, **extra)


class NodeView(Generic[M]):
    """A GraphQL type over one graph node (its private `node`), as it is now or was at its
    private `as_of`."""

    @classmethod
    def of(cls, node: M, as_of: Instant | None = None) -> Self:
        return from_model(cls, node, node=node, as_of=as_of)
