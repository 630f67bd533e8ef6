"""graphql-transport-ws with our rules: coded refusals and bounded connections.

Strawberry runs the protocol; these subclasses only change how a connection is
refused (a close code that tells the client why), answer the subscription and rate
limits with a coded error, check the connection's token again on each `subscribe` (it
may have been revoked or have expired since), and give the connection's slot back when
it closes.
"""

from __future__ import annotations

from typing import Any, cast

from strawberry.asgi import ASGIWebSocketAdapter
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    Message,
    SubscribeMessage,
)

from api.graphql.context import Context
from api.graphql.errors import with_code
from graph.errors import ErrorCode

# The websocket's context, kept on its ASGI state so the close frame can tell why a
# connection was refused (Strawberry itself closes every refusal with 4403 Forbidden).
CONTEXT = "threadline_context"


class ThreadlineSocket(ASGIWebSocketAdapter):
    async def close(self, code: int, reason: str) -> None:
        context = getattr(self.ws.state, CONTEXT, None)
        refusal = context.socket.refusal if context and context.socket else None
        if code == 4403 and refusal is not None:
            code, reason = refusal
        await super().close(code, reason)


class ThreadlineTransportWS(BaseGraphQLTransportWSHandler[Context, None]):
    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        limit = self.max_subscriptions_per_connection
        if (
            self.connection_acknowledged
            and limit is not None
            and message.get("id") not in self.operations
            and len(self.operations) >= limit
        ):
            await self._refuse(
                message,
                f"At most {limit} subscriptions per connection; "
                "complete one or open another connection.",
                {"code": ErrorCode.INVALID_INPUT.value},
            )
            return
        context, socket = self.context, self.context.socket
        if self.connection_acknowledged and socket is not None:
            # A refused token is refused by the operation's guard, which audits it.
            context.authenticate(socket.authorization)
            limited = context.principal and await context.services.rate_limits.take(
                context.principal
            )
            if context.principal and limited:
                context.services.audit.rate_limited(context.principal, limited.message, "/graphql")
                await self._refuse(message, limited.message, dict(limited.extensions))
                return
        await super().handle_subscribe(message)

    async def _refuse(
        self, message: SubscribeMessage, text: str, extensions: dict[str, object]
    ) -> None:
        await self.send_message(
            {
                "id": message["id"],
                "type": "error",
                "payload": [{"message": text, "extensions": extensions}],
            }
        )

    async def send_message(self, message: Message) -> None:
        """Every error leaves with a code, here as over HTTP."""
        raw: dict[str, Any] = dict(message)
        payload = raw.get("payload")
        if raw["type"] == "error" and isinstance(payload, list):
            raw["payload"] = [with_code(error) for error in payload]
        elif raw["type"] == "next" and isinstance(payload, dict) and payload.get("errors"):
            raw["payload"] = {**payload, "errors": [with_code(e) for e in payload["errors"]]}
        await super().send_message(cast(Message, raw))

    async def shutdown(self) -> None:
        await super().shutdown()
        socket = self.context.socket
        if socket is not None and socket.slot is not None:
            self.context.services.sockets.give_back(socket.slot)
            socket.slot = None
