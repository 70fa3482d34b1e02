"""The server's HTTP protocol counts a request's headers as they arrive (server/http/header_size.py).

Fed by hand, as a socket would feed it, with an app that records what reaches it: what
a real server cannot show, the memory a head past the limit holds, and the reads that
put one request's end and another's head (or a head and its body) together.
``tests/e2e/test_bad_input.py`` holds a real server to the 431 itself.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from benchmarks.header_cost import Transport
from server.http.header_deadline import HeaderDeadlineProtocol
from server.http.header_size import MAX_HEADER_BYTES, TOO_LARGE

READ = 64 * 1024  # what one read of a socket brings, at most, in these tests


class Connection:
    """A protocol on a transport of its own, and the requests its app was given."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.seen: list[tuple[dict[str, Any], bytes]] = []  # each request's scope and body
        self.state = ServerState()
        config = Config(app=self.app, interface="asgi3", log_config=None, proxy_headers=False)
        self.protocol = HeaderDeadlineProtocol(
            config=config, server_state=self.state, app_state={}, _loop=loop
        )
        self.transport = Transport()
        self.transport.set_protocol(self.protocol)
        self.protocol.connection_made(self.transport)

    async def app(self, scope: Any, receive: Any, send: Any) -> None:
        body = b""
        if scope["method"] == "POST":
            more = True
            while more:
                message = await receive()
                body += message.get("body", b"")
                more = message.get("more_body", False)
        self.seen.append((scope, body))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    def feed(self, data: bytes) -> None:
        self.protocol.data_received(data)
        while self.state.tasks:  # each request the app was given, answered
            self.loop.run_until_complete(asyncio.gather(*self.state.tasks))

    def refused(self, index: int) -> bool:
        return TOO_LARGE in (self.seen[index][0].get("extensions") or {})

    def header_names(self, index: int) -> list[bytes]:
        return [name for name, _ in self.seen[index][0]["headers"]]


@pytest.fixture
def connection() -> Iterator[Connection]:
    loop = asyncio.new_event_loop()
    try:
        made = Connection(loop)
        yield made
        made.protocol.connection_lost(None)
    finally:
        loop.close()


def test_a_header_past_the_limit_is_not_kept_as_it_arrives(connection: Connection) -> None:
    """2 MB of one header's value, a read at a time: httptools joined every piece into
    the value it hands over when the header ends, so the connection held all of it (and
    copied it at every piece) until the header deadline. Now the parser is fed none past
    the limit, and the rest is skipped until the head ends; the app is then told."""
    connection.feed(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
    tracemalloc.start()
    try:
        for _ in range(2 * 1024 * 1024 // READ):
            connection.feed(b"v" * READ)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * READ, f"{peak} bytes held for a 2 MB header"
    assert connection.seen == []  # not answered before the head's end
    connection.feed(b"\r")
    connection.feed(b"\n\r\nwhatever follows is read no more")  # the end split across reads
    assert len(connection.seen) == 1 and connection.refused(0)
    assert connection.header_names(0) == [b"host"]  # only what fitted reached the app


@pytest.mark.parametrize("split", [False, True], ids=["one read", "a byte at a time"])
def test_a_head_of_exactly_the_limit_is_read_and_one_byte_more_is_not(
    connection: Connection, split: bool
) -> None:
    """The count is of the head as sent, less the URL, however it is cut into reads."""

    def head(size: int) -> bytes:
        start = b"GET /healthz?x=1 HTTP/1.1\r\nHost: x\r\nX-Pad: "
        url = len(b"/healthz?x=1")
        return start + b"p" * (size - (len(start) - url) - 4) + b"\r\n\r\n"

    for size in (MAX_HEADER_BYTES, MAX_HEADER_BYTES + 1):
        data = head(size)
        if split:
            for at in range(0, len(data), 997):
                connection.feed(data[at : at + 997])
        else:
            connection.feed(data)
        if size > MAX_HEADER_BYTES:
            break
    assert [connection.refused(0), connection.refused(1)] == [False, True]
    assert connection.header_names(0) == [b"host", b"x-pad"]


def test_a_body_in_the_heads_read_is_not_counted_as_head(connection: Connection) -> None:
    """A head just under the limit and its body, in one read: the body is the body."""
    body = b'{"name": "' + b"n" * 20_000 + b'"}'
    start = b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nX-Pad: " % len(body)
    pad = MAX_HEADER_BYTES - 2_000 - len(start)
    connection.feed(start + b"p" * pad + b"\r\n\r\n" + body)
    assert len(connection.seen) == 1 and not connection.refused(0)
    assert connection.seen[0][1] == body


def test_a_request_starting_mid_read_is_counted_by_its_parsed_headers(
    connection: Connection,
) -> None:
    """A pipelined request's head that began in the middle of a read is seen by the
    count of what arrives only from the next read; the parser's count of its headers
    refuses it all the same, and keeps none of them past the limit."""
    first = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    second = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Line: y\r\n" * 4000 + b"\r\n"
    connection.feed(first + second)
    assert [connection.refused(0), connection.refused(1)] == [False, True]
    kept = connection.seen[1][0]["headers"]
    assert len(kept) < 4001 and sum(len(n) + len(v) + 4 for n, v in kept) <= MAX_HEADER_BYTES


def test_blank_lines_past_the_limit_close_the_connection(connection: Connection) -> None:
    """The parser skips blank lines before a request, keeping nothing; 32 KiB of them
    is no client's: the connection is closed, as there is no request to answer."""
    connection.feed(b"\r\n" * (MAX_HEADER_BYTES // 2 + 1))
    assert connection.transport.closed and connection.seen == []
    assert connection.transport.written == b""
