"""The provider capability registry: built-in codex and claude, plus a TOML file."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.errors import invalid
from graph.models import ContextWindowSource, HistoryMode, InjectionMode, SummarySource

# A provider from the providers file that names no window of its own.
DEFAULT_WINDOW = 128_000


class ProviderCapabilities(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    supports_resume: bool = True
    supports_native_fork: bool = False
    supports_native_fork_at_turn: bool = False
    # Forks natively up to one message, named by its native id (Claude's SDK forks a session
    # at a message uuid): a fork at an item whose key holds that id.
    supports_native_fork_at_item: bool = False
    supports_rollback: bool = False
    accepts_handoff: bool = True
    injection_mode: InjectionMode = InjectionMode.PREAMBLE
    max_handoff_tokens: int = Field(default=16000, ge=1)
    # Native rollback works only on these history modes (codex: legacy only).
    rollback_history_modes: tuple[HistoryMode, ...] = (HistoryMode.LEGACY,)
    # Who writes the handoffs this provider receives; None: the service's default.
    summary_source: SummarySource | None = None
    # The context window of a model this provider runs, when the model is not listed.
    default_context_window_tokens: int = Field(default=DEFAULT_WINDOW, ge=1)
    # Model name -> its context window (`[providers.<kind>.models]` in the providers file).
    models: dict[str, int] = Field(default_factory=dict)

    def can_roll_back(self, history: HistoryMode) -> bool:
        return self.supports_rollback and history in self.rollback_history_modes

    def window(self, model: str | None) -> tuple[int, ContextWindowSource]:
        """The context window of `model` on this provider, and where that figure came from
        (the providers file's model table, else the provider's default)."""
        if model is not None and model in self.models:
            return self.models[model], ContextWindowSource.MODEL
        return self.default_context_window_tokens, ContextWindowSource.PROVIDER


BUILT_IN: tuple[ProviderCapabilities, ...] = (
    ProviderCapabilities(
        kind="codex",
        supports_resume=True,
        supports_native_fork=True,
        supports_native_fork_at_turn=True,
        supports_rollback=True,
        accepts_handoff=True,
        injection_mode=InjectionMode.DEVELOPER,
        max_handoff_tokens=32000,
        rollback_history_modes=(HistoryMode.LEGACY,),
        default_context_window_tokens=272_000,
    ),
    ProviderCapabilities(
        kind="claude",
        supports_resume=True,
        supports_native_fork=True,
        supports_native_fork_at_turn=False,
        supports_native_fork_at_item=True,
        supports_rollback=False,
        accepts_handoff=True,
        injection_mode=InjectionMode.SYSTEM,
        max_handoff_tokens=32000,
        rollback_history_modes=(),
        default_context_window_tokens=200_000,
    ),
)


class ProviderRegistry:
    def __init__(self, providers: Iterable[ProviderCapabilities]) -> None:
        self._by_kind = {provider.kind: provider for provider in providers}

    def get(self, kind: str) -> ProviderCapabilities:
        provider = self._by_kind.get(kind)
        if provider is None:
            known = ", ".join(sorted(self._by_kind))
            raise invalid(f"Unknown provider {kind!r}; known providers: {known}.")
        return provider

    def all(self) -> list[ProviderCapabilities]:
        return [self._by_kind[kind] for kind in sorted(self._by_kind)]


def registry_from_toml(text: str | None) -> ProviderRegistry:
    """Built-ins, overridden or extended by `[providers.<kind>]` tables of `text`."""
    providers = {provider.kind: provider for provider in BUILT_IN}
    if text:
        try:
            tables = tomllib.loads(text).get("providers", {})
            for kind, table in tables.items():
                base = providers[kind].model_dump() if kind in providers else {}
                # A table overrides only the keys it sets; its models add to the known ones.
                models = {**base.get("models", {}), **table.get("models", {})}
                providers[kind] = ProviderCapabilities.model_validate(
                    {**base, **table, "kind": kind, "models": models}
                )
        except (tomllib.TOMLDecodeError, ValidationError, AttributeError) as error:
            raise ValueError(f"Invalid providers file: {error}") from error
    return ProviderRegistry(providers.values())
