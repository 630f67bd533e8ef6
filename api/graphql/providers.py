"""GraphQL types of the configured providers, their models and the usage limits reported on
them."""

from __future__ import annotations

from datetime import UTC, datetime

import strawberry

from api.graphql.context import Info
from api.graphql.from_models import described, exposing, from_model
from graph import models
from resolvers.providers import ProviderCapabilities


@strawberry.type
@exposing(
    ProviderCapabilities,
    [
        "kind",
        "supports_resume",
        "supports_native_fork",
        "supports_native_fork_at_turn",
        "supports_native_fork_at_item",
        "supports_rollback",
        "accepts_handoff",
        "injection_mode",
        "max_handoff_tokens",
        "summary_source",
        "default_context_window_tokens",
    ],
    ids=(),
    descriptions={
        "supports_native_fork_at_item": "Forks natively up to one message, named by the "
        "native id a run item's key holds (a fork at an item).",
        "summary_source": "Who writes the handoffs it receives; null: the service's default.",
        "default_context_window_tokens": "The context window of a model the providers file "
        "does not list.",
    },
)
class Provider:
    capabilities: strawberry.Private[ProviderCapabilities]

    @strawberry.field
    def models(self) -> list[ProviderModel]:
        listed = self.capabilities.models
        return [ProviderModel(name=name, context_window_tokens=n) for name, n in listed.items()]

    @described("The caller's workspace's usage limit on this provider in force now, if any.")
    async def limit(self, info: Info) -> ProviderLimit | None:
        found = await info.context.loaders.limit_in_force.load(self.capabilities.kind)
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
