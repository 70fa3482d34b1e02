"""A body over the size limit is a 413 on every route that takes a body method.

Litestar checks ``request_max_body_size`` only as a handler reads its body, so a route
that takes none (``POST …/cancel``, ``POST /v1/me/tokens``) took a body of any size
and ignored it, while the README promises a 413 for larger bodies. A declared
``Content-Length`` over the limit is refused at once. A body sent without one (chunked)
to a route that takes no body is read here, and refused once it passes the limit; a
route that reads its body stops at the limit itself as it reads (``SizeCheckedRequest``:
with the same problem, where Litestar's own said "Request Entity Too Large"). This runs
inside ``BodyDeadline``, so a slow body is cut off by its time limit here too.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from server.http.empty_body import replaying
from server.json_depth import DepthCheckedRequest

METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})  # as openapi_plugins.BODY_METHODS


class RefuseLargeBody(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if scope.get("method") not in METHODS:  # a GET's body is nobody's business
            await next_app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if length.isdigit() and int(length) > self.max_bytes:
                raise too_large(self.max_bytes)
            await next_app(scope, receive, send)
            return
        if "data" in scope["route_handler"].parsed_fn_signature.parameters:
            await next_app(scope, receive, send)  # it reads, and Litestar stops at the limit
            return
        await next_app(scope, await self._drained(receive), send)

    async def _drained(self, receive: Receive) -> Receive:
        """Read a body the route will not (refusing it past the limit); the route then
        sees an empty one, and anything after it (a disconnect) as it comes."""
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                raise too_large(self.max_bytes)
            if not message.get("more_body", False):
                break
        return replaying({"type": "http.request", "body": b"", "more_body": False}, receive)


def too_large(max_bytes: int) -> HTTPException:
    """The 413 of a body over ``max_bytes``, however it was found to be."""
    return HTTPException(
        status_code=413,
        detail=f"the request body is over {max_bytes} bytes",
        headers={"Connection": "close"},  # its body is left unread
    )


class SizeCheckedRequest(DepthCheckedRequest):
    """The request handlers get: a body sent without a Content-Length (chunked) that
    Litestar finds over the limit as it reads is refused as ``RefuseLargeBody`` refuses
    one, not in Litestar's words."""

    async def body(self) -> bytes:
        try:
            return await super().body()
        except RequestEntityTooLarge:
            limit = self.route_handler.resolve_request_max_body_size()
            if limit is None:  # not this server's limit (none is set per route): Litestar's
                raise
            raise too_large(limit) from None
