"""A request's headers are read up to ``MAX_HEADER_BYTES`` in all: more is a 431 problem.

There was no limit: a 100 KB and a 2 MB header value were read whole and answered 200,
and a connection sending an endless header was held, with all it had sent, until the
header deadline (``GINRUMMY_HEADER_TIMEOUT_S``) closed it: httptools joins a header's
pieces as they come and hands it over only once it ends, and uvicorn then keeps every
header. The server's HTTP protocol (``HeaderDeadlineProtocol``) now counts a request's
head as it arrives and, past the limit, feeds the parser no more of it: it skips to the
blank line that ends the head, then the app answers 431 ``request_header_fields_too_large``
with ``Connection: close``. A head that never ends is closed by the header deadline, as a
slow one is; either way the connection holds at most the limit (and one read of the
socket) of it.

What is counted is the head as sent, less its URL (which has its limit of its own, the
414 of ``url_length``): the method and version, every header line with its line end, and
the blank line. The parser's own count of the headers it hands over (name, ``": "``, value
and line end each) is checked too, for a request that began in the middle of a read
(pipelined after another), which the count of what arrives sees only from its next read.

Why 32 KiB: it is what a default nginx in front lets through. nginx reads a header line
of up to 8 KiB into one of four such buffers (``large_client_header_buffers 4 8k``), so
a request it passes on has up to about 32 KiB of head; refusing less here would refuse
what the proxy accepted. uvicorn's h11 protocol (``h11_max_incomplete_event_size``) and
Node.js draw their line at 16 KiB, but nothing is gained by being stricter than the
proxy: the API's own requests send a bearer token and a few standard headers (well under
1 KiB), a browser's a few KiB of cookies at most. The limit bounds what a connection can
make the server hold, not what any client needs.
"""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.types import HTTPScope, Receive, Send

from server.http.asgi_wrapper import HttpWrapper, send_problem
from server.problems import make_problem

MAX_HEADER_BYTES = 32 * 1024  # the head as sent, less the URL (see above)
# The ASGI scope extension by which the protocol tells the app that a request's headers
# were over the limit (it passes on only those that fitted).
TOO_LARGE = "ginrummy.header_fields_too_large"


def mark_too_large(scope: dict[str, Any]) -> None:
    """Tell the app, through the request's scope, that its headers were over the limit."""
    extensions = scope.get("extensions")
    if not isinstance(extensions, dict):
        extensions = scope["extensions"] = {}
    extensions[TOO_LARGE] = {}


def refuse_large_headers(app: Litestar) -> None:
    app.asgi_handler = _RefuseLargeHeaders(app.asgi_handler)


class _RefuseLargeHeaders(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        if TOO_LARGE not in (scope.get("extensions") or {}):
            await self.next_app(scope, receive, send)
            return
        problem = make_problem(
            "request_header_fields_too_large",
            f"the request's headers are over {MAX_HEADER_BYTES} bytes, the most the server "
            "reads; nothing was done",
        )
        # the rest of the head, and any body, are unread
        await send_problem(send, 431, problem, close=True)
