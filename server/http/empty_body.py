"""A request with no body to a route that reads one is a 400 that says so; a body that
says something to a route that reads none is a 422 that says so.

Litestar reports a missing body as a schema failure of the handler's ``data``
argument, which reached clients as a 422 whose detail was ``'data'``. Empty text is
not JSON, so it is answered as malformed JSON, before any handler runs.

The other way round, Litestar never reads the body of a route that takes none, so
``{"client_seed": ...}`` sent to ``POST /v1/challenges/{id}/accept`` (whose seed is a
query parameter, as the other calls' is a body field) was answered 200 and the seat's
seed drawn by the server instead. Nothing, or an empty object, is what a generic client
sends with nothing to say, and is taken; anything else is refused, changing nothing.
"""

from __future__ import annotations

import msgspec
from litestar.enums import ScopeType
from litestar.exceptions import ClientException, HTTPException
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


class RefuseUnreadBody(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        handler = scope["route_handler"]
        if scope.get("method") in READ_ONLY or "data" in handler.parsed_fn_signature.parameters:
            await next_app(scope, receive, send)
            return
        taken: list[ReceiveMessage] = []
        body = b""
        while True:  # bounded: RefuseLargeBody and BodyDeadline run first
            message = await receive()
            taken.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if body.strip():
            said = unread_body(body)
            if said is not None:
                raise HTTPException(status_code=422, detail=said)
        await next_app(scope, replaying_all(taken, receive), send)


READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})


def unread_body(body: bytes) -> str | None:
    """Why ``body``, sent to a route that reads none, is refused (None: it says nothing)."""
    try:
        document = msgspec.json.decode(body)
    except msgspec.DecodeError:
        document = None
    if document == {}:
        return None
    if isinstance(document, dict) and "client_seed" in document:
        return (
            "this request takes no body: send client_seed in the query "
            "(?client_seed=...); a client_seed in the body would not be read, and your "
            "seat would be dealt without it"
        )
    return "this request takes no body; send none (or {})"


def replaying_all(taken: list[ReceiveMessage], receive: Receive) -> Receive:
    """``receive`` with the messages already ``taken`` from it given back first."""
    pending = list(taken)

    async def receive_again() -> ReceiveMessage:
        if pending:
            return pending.pop(0)
        return await receive()

    return receive_again


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
