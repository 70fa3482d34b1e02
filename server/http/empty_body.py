"""A request with no body to a route that reads one is a 400 that says so.

Litestar reports a missing body as a schema failure of the handler's ``data``
argument, which reached clients as a 422 whose detail was ``'data'``. Empty text is
not JSON, so it is answered as malformed JSON, before any handler runs.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.exceptions import ClientException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send


class RefuseEmptyBody(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if "data" not in scope["route_handler"].parsed_fn_signature.parameters:
            await next_app(scope, receive, send)
            return
        first = await receive()
        if first["type"] == "http.request" and not first["body"] and not first["more_body"]:
            raise ClientException("the request body is empty; send JSON")
        await next_app(scope, replaying(first, receive), send)


def replaying(first: ReceiveMessage, receive: Receive) -> Receive:
    """``receive`` with ``first`` (a message already taken from it) given back first."""
    given = False

    async def receive_again() -> ReceiveMessage:
        nonlocal given
        if given:
            return await receive()
        given = True
        return first

    return receive_again
