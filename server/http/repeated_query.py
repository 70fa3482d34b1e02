"""A request that gives a query parameter, or the ``Idempotency-Key`` header, twice is a
422 problem, ahead of routing.

Litestar read the last of two values and the sockets the first (``server.query_once``);
refused here, no handler reads either, on every route alike. Two ``Idempotency-Key``
headers were taken silently (Litestar read one of them): a retry that sent the keys the
other way round, or a proxy that kept only one, would have bound the move to another key
than the client meant, and a retry could act twice. The header names one request, so
more than one is refused as a repeated parameter is, and nothing is done.
"""

from __future__ import annotations

from collections.abc import Iterable

from litestar import Litestar
from litestar.types import HTTPScope, Receive, Send

from server.http.asgi_wrapper import HttpWrapper, send_problem
from server.problems import make_problem
from server.query_once import repeated_parameter

#: The headers the API reads as one value each (lower case, as ASGI gives names), with
#: the name a refusal gives them: as the OpenAPI document and the docs spell it.
SINGLE_HEADERS = {b"idempotency-key": "Idempotency-Key"}


def repeated_header(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """Why ``headers`` are ambiguous, if they give a single-valued header twice; None
    otherwise."""
    seen: set[bytes] = set()
    for name, _ in headers:
        lowered = name.lower()
        if lowered in SINGLE_HEADERS:
            if lowered in seen:
                return f"{SINGLE_HEADERS[lowered]}: the header is given twice; send it once"
            seen.add(lowered)
    return None


def refuse_repeated_query(app: Litestar) -> None:
    app.asgi_handler = _RefuseRepeatedQuery(app.asgi_handler)


class _RefuseRepeatedQuery(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        why = repeated_parameter(scope.get("query_string", b"")) or repeated_header(
            scope["headers"]
        )
        if why is None:
            await self.next_app(scope, receive, send)
            return
        problem = make_problem("invalid_request", f"{why}; nothing was done")
        await send_problem(send, 422, problem, close=True)  # a body it sent is left unread
