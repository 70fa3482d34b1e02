"""A request that needs a token is refused for the lack of one before its body is read.

Litestar reads a handler's body, and refuses a malformed one, before the handler runs,
and each handler asked for the caller's token first thing in its body: a client that
forgot its token and sent a body with a mistake in it was told of the body (422), fixed
it, and only then learnt it needed a token (401). Guards run before the body is read,
so this one, for every HTTP route whose only security is a bearer token, checks the
token first. The handler's own check costs nothing more: a valid token is remembered
(``server/known_tokens.py``). Routes where a token is optional, or not read, and the
sockets (which sign in with their first message) are left alone.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler

from server.services import services_of

TOKEN_REQUIRED: list[dict[str, list[str]]] = [{"bearer": []}]


async def token_first(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    if not isinstance(handler, HTTPRouteHandler) or connection.scope.get("method") == "OPTIONS":
        return  # a socket signs in by message; a preflight carries no token
    if handler.resolve_security() == TOKEN_REQUIRED:  # resolved once, kept by Litestar
        await services_of(connection.app.state).authenticate(
            connection.headers.get("authorization")
        )
