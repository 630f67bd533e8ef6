"""What every resolver sees: the caller's workspace and scopes, the store, the loaders."""

from __future__ import annotations

from dataclasses import dataclass, field

from api.lineage_commands import LineageCommands
from api.loaders import Loaders
from api.settings import Settings
from graph.store import Store
from resolvers.providers import ProviderRegistry


@dataclass
class Context:
    store: Store
    settings: Settings
    providers: ProviderRegistry
    workspace: str = "default"
    scopes: frozenset[str] = frozenset({"read", "write", "admin"})
    loaders: Loaders = field(init=False)
    commands: LineageCommands = field(init=False)

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.store, self.workspace)
        self.commands = LineageCommands(
            self.store, self.workspace, self.providers, self.settings.staleness_policy()
        )
