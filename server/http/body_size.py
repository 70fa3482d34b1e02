"""A body over the size limit is a 413 on every route, before anything reads it.

Litestar checks ``request_max_body_size`` only as a handler reads its body, so a route
that takes none (``POST …/cancel``, ``POST /v1/me/tokens``) took a body of any size
and ignored it, while the README promises a 413 for larger bodies. The declared
``Content-Length`` is enough here: a route that takes no body never reads one, and a
route that does still stops at the limit as it reads.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})  # as openapi_plugins.BODY_METHODS


class RefuseLargeBody(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if scope.get("method") not in METHODS:  # a GET's body is nobody's business
            await next_app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                raise HTTPException(
                    status_code=413,
                    detail=f"the request body is over {self.max_bytes} bytes",
                    headers={"Connection": "close"},  # its body is left unread
                )
        await next_app(scope, receive, send)
