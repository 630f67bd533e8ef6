"""GraphQL types made from the graph's models: a type states its fields once, and each plain
field is read from the model's attribute of the same name."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Generic, Self, TypeVar, cast

import strawberry
from pydantic import BaseModel
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


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def exposing(
    model: type[BaseModel],
    names: Sequence[str],
    *,
    ids: Collection[str] = ("id",),
    descriptions: Mapping[str, str] | None = None,
) -> Callable[[type[T]], type[T]]:
    """Under `@strawberry.type`: the class gets the plain fields `names` of `model`, typed
    as the model types them (its `ids` as GraphQL IDs), before the fields it states itself.
    A type then names what it exposes of its model, not each field's type again."""
    described = descriptions or {}

    def expose(cls: type[T]) -> type[T]:
        own = inspect.get_annotations(cls)
        taken: dict[str, Any] = {}
        for name in names:
            python_name = _snake(name)
            field = model.model_fields[name]
            taken[python_name] = strawberry.ID if name in ids else field.annotation
            if name in described:
                setattr(cls, python_name, strawberry.field(description=described[name]))
        cls.__annotations__ = {**taken, **own}
        return cls

    return expose


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
