"""GraphQL types of the configured providers, their models and the usage limits reported on
them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import strawberry

from api.graphql.context import Info
from api.graphql.enums import InjectionMode, SummarySource
from api.graphql.from_models import described, from_model
from graph import models


@strawberry.type
class Provider:
    kind: str
    supports_resume: bool
    supports_native_fork: bool
    supports_native_fork_at_turn: bool
    supports_native_fork_at_item: bool = strawberry.field(
        description="Forks natively up to one message, named by the native id a run item's "
        "key holds (a fork at an item)."
    )
    supports_rollback: bool
    accepts_handoff: bool
    injection_mode: InjectionMode
    max_handoff_tokens: int
    summary_source: SummarySource | None = strawberry.field(
        description="Who writes the handoffs it receives; null: the service's default."
    )
    default_context_window_tokens: int = strawberry.field(
        description="The context window of a model the providers file does not list."
    )
    capabilities: strawberry.Private[Any] = None

    @strawberry.field
    def models(self) -> list[ProviderModel]:
        listed = self.capabilities.models if self.capabilities is not None else {}
        return [ProviderModel(name=name, context_window_tokens=n) for name, n in listed.items()]

    @described("The caller's workspace's usage limit on this provider in force now, if any.")
    async def limit(self, info: Info) -> ProviderLimit | None:
        found = await info.context.loaders.limit_in_force.load(self.kind)
        return from_model(ProviderLimit, found, active=True) if found else None


@strawberry.type
class ProviderLimit:
    provider: str
    reason: str
    resets_at: datetime | None = strawberry.field(description="null: until cleared.")
    reported_at: datetime
    active: bool = strawberry.field(
        description="False once resetsAt has passed, or once it was cleared or replaced."
    )

    @classmethod
    def of(cls, limit: models.ProviderLimitNode, now: datetime | None = None) -> ProviderLimit:
        """`limit` as it stands at `now` (None: this instant)."""
        return from_model(cls, limit, active=limit.active(now or datetime.now(UTC)))


@strawberry.type
class ProviderModel:
    name: str
    context_window_tokens: int
