"""What every resolver sees: the caller's workspace and scopes, the services, the loaders."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import strawberry

from api.auth import Principal, Refusal, Scope, unauthenticated
from api.commands import configured_summaries, receipts
from api.commands.caller import Caller
from api.commands.receipts import Written
from api.commands.steps import InSteps
from api.graphql.loaders import Loaders
from api.services import Services
from api.settings import Settings
from graph.plan import CommandId
from graph.store import Store
from graph.tx import Tx
from resolvers.past.as_of import Instant
from resolvers.providers import ProviderRegistry

T = TypeVar("T")


@dataclass
class SocketState:
    """A websocket connection's own facts, beside its context."""

    bearer_in_header: bool
    authorization: str | None = None  # the credential it connected with, checked again
    slot: str | None = None  # the token name whose connection slot this socket holds
    refusal: tuple[int, str] | None = None  # close code and reason at connection_init


@dataclass
class Context:
    services: Services
    principal: Principal | None = None
    auth_error: Refusal | None = None
    # Set by Strawberry from a websocket's connection_init payload.
    connection_params: dict[str, object] | None = None
    socket: SocketState | None = None  # websocket connections only
    path: str = "/graphql"  # the endpoint, for the audit log
    # Made on first use, for the workspace of the principal at that time.
    _loaders: Loaders | None = field(init=False, default=None)
    _caller: Caller | None = field(init=False, default=None)
    _past: dict[Instant, Loaders] = field(init=False, default_factory=dict)

    @property
    def loaders(self) -> Loaders:
        if self._loaders is None:
            self._loaders = Loaders(self.store, self.workspace)
        return self._loaders

    @property
    def caller(self) -> Caller:
        if self._caller is None:
            self._caller = Caller(
                self.workspace,
                self.providers,
                self.settings.staleness_policy(),
                self.settings.summary_policy(),
                context=self.settings.context_policy(),
            )
        return self._caller

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
        except Refusal as error:
            self.principal, self.auth_error = None, error
        self._bind_workspace()

    async def command(
        self,
        mutation: str,
        args: dict[str, Any],
        command_id: str | None,
        result_type: type[T],
        work: Callable[[Tx, Caller], Awaitable[Written[T]]],
    ) -> T:
        """Run a command and write its plan in one write transaction, at most once per
        commandId (INVALID_INPUT for one that breaks the rule, before anything is done)."""
        key = self.command_key(command_id)
        caller = self.caller
        return await receipts.run_once(
            self.store,
            self.workspace,
            key,
            mutation,
            args,
            result_type,
            lambda tx: work(tx, caller),
        )

    def command_key(self, command_id: str | None) -> CommandId | None:
        """A command's receipt id, checked (`receipts.command_key`): an id is a name the
        client makes, so the bound on names is its bound."""
        return receipts.command_key(command_id, self.settings.max_name_chars)

    async def command_in_steps(
        self,
        mutation: str,
        args: dict[str, Any],
        command_id: str | None,
        result_type: type[T],
        steps: InSteps[T],
    ) -> T:
        """`command` for a command that goes on after its transaction (api/commands/steps.py):
        its `after` step runs on the result, a replayed one too."""
        result = await self.command(mutation, args, command_id, result_type, steps.transaction)
        return await steps.after(self.caller, result, self.command_key(command_id))

    @property
    def summary_step(self) -> configured_summaries.SummaryStep:
        """What follows a start's transaction: its configured summaries."""
        return configured_summaries.SummaryStep(
            self.store, self.services.summarizer, self.settings.db_timeout_s
        )

    async def examine(self, work: Callable[[Tx, Caller], Awaitable[T]]) -> T:
        """A dry run over a thread's state. The state statement can take the thread's lock,
        which makes it a write statement: this is a write transaction that writes nothing,
        so it is safe to retry."""
        caller = self.caller
        return await self.store.write(lambda tx: work(tx, caller), idempotent=True)

    def loaders_at(self, instant: Instant | None) -> Loaders:
        """The request's loaders for now (None) or for a past instant."""
        if instant is None:
            return self.loaders
        found = self._past.get(instant)
        if found is None:
            found = self._past[instant] = Loaders(self.store, self.workspace, instant)
        return found

    def require_token(self) -> None:
        """Raise UNAUTHENTICATED unless the caller holds a valid token (or the service is
        open)."""
        if self.auth_error is not None or self.principal is None:
            raise self.auth_error or unauthenticated()

    def still_valid(self) -> None:
        """On a websocket: raise (and audit) UNAUTHENTICATED once the token it connected
        with has been revoked or has expired."""
        if self.socket is None:
            return
        try:
            self.services.tokens.authenticate(self.socket.authorization)
        except Refusal as refusal:
            self.services.audit.refusal(refusal, self.path, "threadEvents")
            raise

    def authorize(self, needed: Scope) -> None:
        """Raise UNAUTHENTICATED or FORBIDDEN unless the caller may do this."""
        self.require_token()
        assert self.principal is not None
        self.principal.require(needed)

    def _bind_workspace(self) -> None:
        self._loaders, self._caller, self._past = None, None, {}


Info = strawberry.Info[Context, None]
