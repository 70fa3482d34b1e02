"""OPTIONS answers with every method its path answers.

Litestar 2 makes a path's automatic OPTIONS handler when the first route for that
path is built, and the handler reads that route's methods. A controller registers
its handlers one at a time, so at ``/v1/matches`` (POST, then GET) the rebuilt route
kept the first OPTIONS handler and ``Allow`` stayed ``OPTIONS, POST``
(litestar-org/litestar#4169, fixed in Litestar 3 only). The final routes do know
every method, so this hook answers OPTIONS from them; the 405 path already did.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar, Request, Response
from litestar.enums import HttpMethod, MediaType
from litestar.routes import HTTPRoute
from litestar.status_codes import HTTP_204_NO_CONTENT

# Litestar's name for the OPTIONS handler it makes; a handler we write is left alone.
_GENERATED = "options_handler"


class AllowEveryMethod:
    """A ``before_request`` hook; ``learn`` it the app once its routes are built."""

    def __init__(self) -> None:
        self._allow: dict[str, str] = {}  # path template -> "GET, OPTIONS, POST"

    def learn(self, app: Litestar) -> None:
        for route in app.routes:
            if isinstance(route, HTTPRoute):
                self._allow[route.path_format] = ", ".join(sorted(route.methods))

    async def __call__(self, request: Request[Any, Any, Any]) -> Response[None] | None:
        if request.method != HttpMethod.OPTIONS or request.route_handler.handler_name != _GENERATED:
            return None
        allow = self._allow.get(request.scope.get("path_template", ""))
        if allow is None:
            return None
        return Response(
            content=None,
            status_code=HTTP_204_NO_CONTENT,
            headers={"Allow": allow},
            media_type=MediaType.TEXT,
        )
