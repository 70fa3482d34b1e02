"""A request whose path and query are over ``MAX_URL_BYTES`` is a 414 problem.

A query of 100,000 bytes was answered by the server's HTTP parser, not the app: a
``400 text/plain`` "Invalid HTTP request received.", where any other refusal is a
problem (RFC 9457). httptools keeps a URL's offsets in 16 bits, so it cannot read one
over 65,535 bytes whatever it is told (uvicorn's ``h11_max_incomplete_event_size`` is for
the h11 protocol, which the server does not run). The app refuses far below that: no
request the API takes comes near 8 KiB, the line a proxy typically draws too. A URL the
parser could not read is kept to its first 64 KiB as it arrives
(``HeaderDeadlineProtocol``), so it reaches this refusal as well, still over the limit,
and no handler ever reads it.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.types import HTTPScope, Receive, Send

from server.http.asgi_wrapper import HttpWrapper, send_problem
from server.problems import make_problem

MAX_URL_BYTES = 8192  # the path and the query string, as sent (percent-escapes unread)
PARSER_MAX_URL_BYTES = 65535  # httptools' own ceiling (``parse_url``'s 16-bit offsets)


def refuse_long_urls(app: Litestar) -> None:
    app.asgi_handler = _RefuseLongUrl(app.asgi_handler)


def url_bytes(scope: HTTPScope) -> int:
    """The request target's size: the path as sent, then ``?`` and the query, if any."""
    query = scope.get("query_string", b"")
    path = scope.get("raw_path") or scope["path"].encode()
    return len(path) + (len(query) + 1 if query else 0)


class _RefuseLongUrl(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        if url_bytes(scope) <= MAX_URL_BYTES:
            await self.next_app(scope, receive, send)
            return
        problem = make_problem(
            "uri_too_long",
            f"the request's path and query are over {MAX_URL_BYTES} bytes, the most the "
            "server reads; nothing was done",
        )
        await send_problem(send, 414, problem, close=True)  # a body it sent is left unread
