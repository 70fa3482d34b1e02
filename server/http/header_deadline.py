"""A client must send a request's headers within ``GINRUMMY_HEADER_TIMEOUT_S``.

uvicorn times out a kept-alive connection that sends nothing more, but not a new
connection that sends nothing, nor one that sends its headers a byte at a time: each
stays open for ever, and a few thousand of them (a "slowloris") use up the process's
file descriptors, so nobody else can connect. This is uvicorn's own HTTP protocol with a
deadline: it runs from the moment the connection opens, and again from the first byte
of each later request on it, until that request's headers are complete; past it the
connection is closed (there is no request yet to answer). The body has a deadline of its
own (``body_deadline``); a WebSocket's upgrade completes its headers, so a socket lives
as long as it likes.
"""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.http.url_length import PARSER_MAX_URL_BYTES

log = logging.getLogger("ginrummy.server")


@lru_cache(maxsize=1)
def header_timeout_s() -> float:
    """The setting as this process's environment gives it (each worker process reads it
    for itself, as it builds its own app)."""
    from server.config import Settings

    return Settings.from_env().header_timeout_s


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose headers come too slowly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.header_deadline is None:  # a later request: its own deadline
            self._arm_header_deadline()
        # The connection's first request keeps the deadline its opening armed: re-armed
        # at its first byte, a connection silent for all but a moment of the deadline,
        # then trickling, was held open twice as long.

    def on_url(self, url: bytes) -> None:
        # httptools cannot parse a URL over 64 KiB, and uvicorn answered one with a
        # plain-text 400; it also kept all of it, copied whole at each piece that came.
        # Kept to the first 64 KiB, it is still over the app's limit: a 414 problem
        # (server/http/url_length.py) that reads none of it.
        if len(self.url) < PARSER_MAX_URL_BYTES:
            super().on_url(url[: PARSER_MAX_URL_BYTES - len(self.url)])

    def on_headers_complete(self) -> None:
        self._disarm_header_deadline()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)

    def _arm_header_deadline(self) -> None:
        self._disarm_header_deadline()
        timeout_s = header_timeout_s()
        if timeout_s > 0:
            self.header_deadline = self.loop.call_later(timeout_s, self._headers_too_slow)

    def _disarm_header_deadline(self) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def _headers_too_slow(self) -> None:
        self.header_deadline = None
        if not self.transport.is_closing():
            # debug, not info: one line per connection would let the attack fill the log
            log.debug("closed a connection from %s: no complete headers in time", self.client)
            self.transport.close()
