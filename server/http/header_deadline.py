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

It also counts each request's head as it arrives, and feeds the parser none of it past
``MAX_HEADER_BYTES`` (server/http/header_size.py, which says what is counted and why).
"""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache
from typing import Any, cast

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.http.header_size import MAX_HEADER_BYTES, mark_too_large
from server.http.url_length import PARSER_MAX_URL_BYTES

log = logging.getLogger("ginrummy.server")

HEAD_END = b"\r\n\r\n"  # the blank line after the headers (the parser reads CRLFs only)


@lru_cache(maxsize=1)
def header_timeout_s() -> float:
    """The setting as this process's environment gives it (each worker process reads it
    for itself, as it builds its own app)."""
    from server.config import Settings

    return Settings.from_env().header_timeout_s


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose headers come too slowly,
    and reading no more than ``MAX_HEADER_BYTES`` of a request's headers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_deadline: asyncio.TimerHandle | None = None
        # The count of what arrives: from the first byte after the last request (or the
        # connection's first) until its headers are complete; its URL's bytes apart.
        self.reading_head = True
        self.head_read = 0
        self.url_read = 0
        self.head_tail = b""  # the last bytes of it fed to the parser
        self.message_begun = False  # the parser is past any blank lines before a request
        # The parser's count of the headers it handed over, for the request it is in.
        self.header_bytes = 0
        self.headers_too_large = False
        # Past the limit: the head's last 3 bytes seen, while the rest of it is skipped
        # (the blank line may come split across two reads); None otherwise.
        self.skipped_tail: bytes | None = None
        self.answering_too_large = False  # the head was skipped: nothing more is read
        self.upgrade_ignored = False  # uvicorn met an upgrade it does not take, in a read

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        while data and not self.answering_too_large:
            if self.skipped_tail is not None:
                self._skip_head(data)
                return
            if not self.reading_head:  # a body, or more: as uvicorn reads it
                super().data_received(data)
                return
            # No more than fits, so that the parser never holds more than the limit of a
            # head, and what follows the head in the same read is not counted as head.
            room = max(1, MAX_HEADER_BYTES - max(0, self.head_read - self.url_read))
            piece, data = data[:room], data[room:]
            self.head_read += len(piece)
            self.head_tail = (self.head_tail + piece[-3:])[-3:]
            self.upgrade_ignored = False
            super().data_received(piece)
            if (
                self.transport.is_closing()
                or self.transport.get_protocol() is not self
                or self.upgrade_ignored
            ):
                # Closed (a 400), or an upgrade, taken or not: uvicorn drops the rest of
                # a read that held an upgrade's head, here as without the count.
                return
            if self.reading_head and self.head_read - self.url_read >= MAX_HEADER_BYTES:
                # the limit read, and the head goes on: over it
                if not self.message_begun:  # blank lines (the parser skips them), no request
                    log.debug("closed a connection from %s: blank lines, no request", self.client)
                    self.transport.close()
                    return
                self.headers_too_large = True
                self.skipped_tail = self.head_tail

    def _skip_head(self, data: bytes) -> None:
        """Look for the end of a head past the limit, keeping none of it."""
        assert self.skipped_tail is not None
        seen = self.skipped_tail + data
        if HEAD_END not in seen:
            self.skipped_tail = seen[-(len(HEAD_END) - 1) :]
            return
        # Its end: the app answers 431, from the request line and the headers that fitted.
        # The parser, in the middle of a header, reads nothing more; the answer closes
        # the connection.
        self.skipped_tail = None
        self.answering_too_large = True
        try:
            self.on_headers_complete()
        except httptools.HttpParserError:
            # not even its request line was whole (blank lines came first, then part of
            # a URL): there is no request to answer
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.message_begun = True
        self.header_bytes = 0
        self.headers_too_large = False
        if self.header_deadline is None:  # a later request: its own deadline
            self._arm_header_deadline()
        # The connection's first request keeps the deadline its opening armed: re-armed
        # at its first byte, a connection silent for all but a moment of the deadline,
        # then trickling, was held open twice as long.

    def on_url(self, url: bytes) -> None:
        self.url_read += len(url)
        # httptools cannot parse a URL over 64 KiB, and uvicorn answered one with a
        # plain-text 400; it also kept all of it, copied whole at each piece that came.
        # Kept to the first 64 KiB, it is still over the app's limit: a 414 problem
        # (server/http/url_length.py) that reads none of it.
        if len(self.url) < PARSER_MAX_URL_BYTES:
            super().on_url(url[: PARSER_MAX_URL_BYTES - len(self.url)])

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.headers_too_large:
            return  # none kept past the limit: the request is refused
        self.header_bytes += len(name) + len(value) + 4  # ": " and the line end
        if self.header_bytes > MAX_HEADER_BYTES:
            self.headers_too_large = True
            return
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm_header_deadline()
        self.reading_head = False
        if self.headers_too_large:  # the app answers 431 (server/http/header_size.py)
            mark_too_large(cast(dict[str, Any], self.scope))
        super().on_headers_complete()

    def _should_upgrade(self) -> bool:
        """A WebSocket handshake whose headers were over the limit is answered 431 too."""
        return not self.headers_too_large and super()._should_upgrade()

    def _unsupported_upgrade_warning(self) -> None:
        self.upgrade_ignored = True
        if not self.headers_too_large:  # refused by the 431 (``_should_upgrade``), not unknown
            super()._unsupported_upgrade_warning()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.reading_head = True  # the next request's head starts with the next byte
        self.message_begun = False
        self.head_read = self.url_read = 0
        self.head_tail = b""

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
