"""The rate-limit check of the routes that create things or make moves.

It is the route's ``before_request`` hook, which runs before the handler reads the
body, so a refused request costs one counter upsert and changes nothing. (It was a
guard; Litestar copies the route handler for every guard call, 2% of the server's
samples on the action path.) A request with a bearer token is counted for its player
and its address; one without (``createPlayer``) for its address alone. A bad token
is a 401 here, as the handler would answer.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.types import BeforeRequestHookHandler, Scope

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
        await services.limits.spend(bucket, player.id if player else None, client_address(request))

    return count
