"""A request body must arrive within ``GINRUMMY_BODY_TIMEOUT_S``, and a client that
leaves mid-body is one short log line.

Without a deadline a connection that announces a body and never sends it holds its
handler (and a slot of the server) for ever: two hundred of them stayed open. The
deadline runs from the request's first read of its body to its last chunk; then
``receive`` is the server's own again (a streaming answer waits on it for the
client's disconnect). Too slow a body is answered 408 with ``Connection: close``, so
the server closes the connection.

A client that disconnects before its body is complete reached the handler as
Litestar's "client disconnected prematurely", a 500 logged as an ERROR with a
traceback; it is now a single info line, and the answer goes nowhere.
"""

from __future__ import annotations

import asyncio
import logging

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from server.problems import ServerError

log = logging.getLogger("ginrummy.server")


class BodyTooSlow(HTTPException):
    status_code = 408


class ClientLeftMidBody(ServerError):
    """The client closed the connection before its body was complete; nobody hears the answer."""

    rule = "client_disconnected"
    status = 400


class BodyDeadline(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        method, path = scope.get("method", "?"), scope.get("path", "?")
        deadline = asyncio.get_running_loop().time() + self.timeout_s
        complete = False

        async def receive_in_time() -> ReceiveMessage:
            nonlocal complete
            if complete:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline if self.timeout_s > 0 else None):
                    message = await receive()
            except TimeoutError:
                complete = True
                log.info("dropped %s %s: its body took over %g s", method, path, self.timeout_s)
                raise BodyTooSlow(
                    f"the request body did not arrive within {self.timeout_s:g} s",
                    headers={"Connection": "close"},
                ) from None
            if message["type"] == "http.disconnect":
                complete = True
                log.info("client left %s %s before sending its whole body", method, path)
                raise ClientLeftMidBody("the client disconnected before the body was complete")
            if not message.get("more_body", False):
                complete = True
            return message

        await next_app(scope, receive_in_time, send)
