"""What every resolver sees: the caller's workspace and scopes, the store, the loaders."""

from __future__ import annotations

from dataclasses import dataclass, field

from api.auth import OPEN, Principal, Scope
from api.lineage_commands import LineageCommands
from api.loaders import Loaders
from api.settings import Settings
from graph.errors import ThreadlineError
from graph.store import Store
from resolvers.providers import ProviderRegistry


@dataclass
class Context:
    store: Store
    settings: Settings
    providers: ProviderRegistry
    principal: Principal | None = OPEN
    auth_error: ThreadlineError | None = None
    loaders: Loaders = field(init=False)
    commands: LineageCommands = field(init=False)

    def __post_init__(self) -> None:
        # An unauthenticated caller gets no workspace: nothing can be read or written.
        workspace = self.principal.workspace if self.principal else ""
        self.loaders = Loaders(self.store, workspace)
        self.commands = LineageCommands(
            self.store, workspace, self.providers, self.settings.staleness_policy()
        )

    @property
    def workspace(self) -> str:
        return self.principal.workspace if self.principal else ""

    def authorize(self, needed: Scope) -> None:
        """Raise UNAUTHENTICATED or FORBIDDEN unless the caller may do this."""
        if self.auth_error is not None or self.principal is None:
            raise self.auth_error or ThreadlineError.unauthenticated()
        self.principal.require(needed)
