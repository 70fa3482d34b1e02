"""The rate-limit check of the routes that create things or make moves.

It is the route's ``before_request`` hook, which runs before the handler reads the
body, so a refused request costs one counter upsert and changes nothing. (It was a
guard; Litestar copies the route handler for every guard call, 2% of the server's
samples on the action path.) A request with a bearer token is counted for its player
and its address; one without (``createPlayer``) for its address alone. A bad token
is a 401 here, as the handler would answer, and so is a missing one where the route
counts by player (each such route requires a token): counted by its address first,
it is refused before its body is read, so a client without a token that sent a body
with a mistake in it is told of the token, not of the body.

The count's ``RateLimit-Policy`` and ``RateLimit`` headers (server/limits.py) go on the
answer, whatever it is: the hook leaves them in the request's scope, and a wrapper of the
app's ASGI handler adds them as the answer starts (a 429 has them from its problem).
"""

from __future__ import annotations

from typing import Any, cast

from litestar import Litestar, Request
from litestar.openapi.spec import (
    OpenAPI,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Reference,
    Schema,
)
from litestar.types import BeforeRequestHookHandler, HTTPScope, Message, Receive, Scope, Send

from server.auth import bearer_token
from server.http.asgi_wrapper import HttpWrapper
from server.http.client_address import client_address
from server.services import services_of


def authorization_of(scope: Scope) -> str | None:
    """The Authorization header, read from the ASGI scope without building Litestar's
    Headers (that was a third of this hook's cost). ASGI names are lower case."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return value.decode("latin-1")
    return None


def rate_limited(bucket: str, by_player: bool = True) -> BeforeRequestHookHandler:
    """A hook counting the request in ``bucket``; ``by_player=False``: by address only
    (creating a player needs no token, so one sent is not even read)."""

    async def count(request: Request[Any, Any, Any]) -> None:
        services = services_of(request.app.state)
        authorization = authorization_of(request.scope) if by_player else None
        player = await services.authenticate(authorization) if authorization else None
        quota = await services.limits.spend(
            bucket, player.id if player else None, client_address(request)
        )
        if quota:
            request.scope[QUOTA_KEY] = quota  # type: ignore[literal-required]
        if by_player and player is None:
            bearer_token(None)  # the 401 the handler would give, before the body is read

    COUNTED_BY_A_LIMIT.add(count)
    return count


COUNTED_BY_A_LIMIT: set[object] = set()  # the hooks ``rate_limited`` made
QUOTA_KEY = "ginrummy.rate_limit_quota"


def add_quota_headers(app: Litestar) -> None:
    app.asgi_handler = _QuotaHeaders(app.asgi_handler)


class _QuotaHeaders(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:

        async def send_with_quota(message: Message) -> None:
            quota = cast("dict[str, str] | None", scope.get(QUOTA_KEY))
            if message["type"] == "http.response.start" and quota:
                headers = list(message.get("headers", ()))
                named = {name.lower() for name, _ in headers}
                headers += [
                    (name.lower().encode(), value.encode())
                    for name, value in quota.items()
                    if name.lower().encode() not in named
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.next_app(scope, receive, send_with_quota)


QUOTA_HEADERS = {
    "RateLimit-Policy": OpenAPIHeader(
        description="The limits that counted this request (draft-ietf-httpapi-ratelimit-headers): "
        '`"actions-player";q=120;w=60` is 120 requests in a window of 60 s, per player '
        "(`-address`: per client address). Absent where no limit is set.",
        schema=Schema(type=OpenAPIType.STRING),
    ),
    "RateLimit": OpenAPIHeader(
        description='What is left of each limit: `"actions-player";r=119;t=42` is 119 '
        "requests left, the window ending in 42 s. Pace yourself on it rather than wait "
        "for a 429.",
        schema=Schema(type=OpenAPIType.STRING),
    ),
}


def declare_quota_headers(app: Litestar, document: OpenAPI) -> None:
    """Declare the two headers on every answer of the operations a limit counts, as the
    hook sends them: every answer after the count (a success, a 429, and any refusal the
    handler makes: 400, 403, 404, 409, 413, 422), none before it (a 401 from the token
    check, a 503 when the count itself could not be made)."""
    counted = {
        handler.operation_id
        for route in app.routes
        for handler in getattr(route, "route_handlers", ())
        if handler.before_request in COUNTED_BY_A_LIMIT
    }
    if document.components.headers is None:
        document.components.headers = {}
    document.components.headers.update(QUOTA_HEADERS)
    refs: dict[str, OpenAPIHeader | Reference] = {
        name: Reference(ref=f"#/components/headers/{name}") for name in QUOTA_HEADERS
    }
    for item in (document.paths or {}).values():
        for method in ("get", "put", "post", "delete", "patch"):
            operation = getattr(item, method, None)
            if operation is None or operation.operation_id not in counted:
                continue
            for status, response in (operation.responses or {}).items():
                if isinstance(response, OpenAPIResponse) and status not in ("401", "503"):
                    response.headers = {**(response.headers or {}), **refs}
