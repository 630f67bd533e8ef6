"""What every resolver sees: the caller's workspace and scopes, the services, the loaders."""

from __future__ import annotations

from dataclasses import dataclass, field

from api.auth import Principal, Scope
from api.lineage_commands import LineageCommands
from api.loaders import Loaders
from api.services import Services
from api.settings import Settings
from graph.errors import ThreadlineError
from graph.store import Store
from resolvers.providers import ProviderRegistry


@dataclass
class SocketState:
    """A websocket connection's own facts, beside its context."""

    bearer_in_header: bool
    slot: str | None = None  # the token name whose connection slot this socket holds
    refusal: tuple[int, str] | None = None  # close code and reason at connection_init


@dataclass
class Context:
    services: Services
    principal: Principal | None = None
    auth_error: ThreadlineError | None = None
    # Set by Strawberry from a websocket's connection_init payload.
    connection_params: dict[str, object] | None = None
    socket: SocketState | None = None  # websocket connections only
    loaders: Loaders = field(init=False)
    commands: LineageCommands = field(init=False)

    def __post_init__(self) -> None:
        self._bind_workspace()

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def settings(self) -> Settings:
        return self.services.settings

    @property
    def providers(self) -> ProviderRegistry:
        return self.services.providers

    @property
    def workspace(self) -> str:
        # An unauthenticated caller gets no workspace: nothing can be read or written.
        return self.principal.workspace if self.principal else ""

    def authenticate(self, authorization: str | None) -> None:
        """Who sends `Authorization` (a bearer token); remembers why not, for later refusal."""
        try:
            self.principal = self.services.tokens.authenticate(authorization)
            self.auth_error = None
        except ThreadlineError as error:
            self.principal, self.auth_error = None, error
        self._bind_workspace()

    def authorize(self, needed: Scope) -> None:
        """Raise UNAUTHENTICATED or FORBIDDEN unless the caller may do this."""
        if self.auth_error is not None or self.principal is None:
            raise self.auth_error or ThreadlineError.unauthenticated()
        self.principal.require(needed)

    def _bind_workspace(self) -> None:
        self.loaders = Loaders(self.store, self.workspace)
        self.commands = LineageCommands(
            self.store, self.workspace, self.providers, self.settings.staleness_policy()
        )
