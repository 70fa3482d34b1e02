"""What the server's count of a request's head costs, against uvicorn's own protocol.

    python -m benchmarks.header_cost [--requests 2000] [--rounds 15]

``HeaderDeadlineProtocol`` (server/http/header_deadline.py) is uvicorn's httptools
protocol with a header deadline (a timer per request) and a count of each request's
head as it arrives (the 431 of server/http/header_size.py); the count is also measured
without the deadline (``GINRUMMY_HEADER_TIMEOUT_S=0``). This feeds them the same keep-alive
requests in one process, as a socket's reads would, each read answered by an app that
says 204 at once, and times them in alternating rounds (the machine's noise falls on
both alike): the microseconds of the loop's thread a request costs with each, their
ratio, and the difference. The requests: a ``GET`` with a bearer token as the API's
clients send it, a ``POST`` of an action with its body, and a head of 30 KiB (under the
32 KiB limit: the most a request may bring) in 4 KiB reads. What a request costs the
whole app (Litestar, the database) is ``benchmarks.request_cost``'s: hundreds of
microseconds, against which this difference is to be read.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import time
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from server.http.header_deadline import HeaderDeadlineProtocol, header_timeout_s

TOKEN = "t" * 43
GET = (
    b"GET /v1/matches/m_0123456789abcdef HTTP/1.1\r\nHost: api.example\r\n"
    b"User-Agent: python-httpx/0.27.0\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\n"
    b"Connection: keep-alive\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n\r\n"
)
BODY = b'{"action": {"type": "discard", "card": "QS"}, "expected_version": 12}'
POST = (
    b"POST /v1/matches/m_0123456789abcdef/actions HTTP/1.1\r\nHost: api.example\r\n"
    b"Content-Type: application/json\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n"
    b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY
)
BIG = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"v" * (30 * 1024) + b"\r\n\r\n"
CASES: dict[str, tuple[bytes, int]] = {  # a request, and the size of the reads that bring it
    "GET with a token": (GET, 64 * 1024),
    "POST of an action": (POST, 64 * 1024),
    "30 KiB head, 4 KiB reads": (BIG, 4 * 1024),
}


class Transport(asyncio.Transport):
    """What the protocol writes, and whether it closed: a socket to feed a protocol by
    hand (``tests/server/test_header_size.py`` feeds one too)."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = False
        self.protocol: Any = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def write(self, data: Any) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_protocol(self) -> Any:
        return self.protocol

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["method"] == "POST":
        while (await receive()).get("more_body", False):
            pass
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def deadline(on: bool) -> None:
    """The header deadline on (its default) or off (``GINRUMMY_HEADER_TIMEOUT_S=0``)."""
    if on:
        os.environ.pop("GINRUMMY_HEADER_TIMEOUT_S", None)
    else:
        os.environ["GINRUMMY_HEADER_TIMEOUT_S"] = "0"
    header_timeout_s.cache_clear()


async def round_of(
    protocol_class: type[HttpToolsProtocol], request: bytes, read: int, n: int
) -> float:
    """Microseconds of this thread's CPU a request took, over ``n`` on one connection."""
    state = ServerState()
    config = Config(app=app, interface="asgi3", log_config=None, proxy_headers=False)
    protocol = protocol_class(
        config=config, server_state=state, app_state={}, _loop=asyncio.get_running_loop()
    )
    transport = Transport()
    transport.set_protocol(protocol)
    protocol.connection_made(transport)
    reads = [request[i : i + read] for i in range(0, len(request), read)]
    started = time.thread_time()
    for _ in range(n):
        for piece in reads:
            protocol.data_received(piece)
        while state.tasks:  # the answer, written
            await asyncio.gather(*state.tasks)
    spent = time.thread_time() - started
    protocol.connection_lost(None)
    answers = transport.written.count(b"HTTP/1.1 204 ")
    if answers != n:  # a request not read as one would be timed as cheap
        raise RuntimeError(f"{answers} answers to {n} requests")
    return spent / n * 1e6


async def measure(requests: int, rounds: int) -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(f"commit {commit or '?'}, {platform.node()}, Python {platform.python_version()}")
    print(f"{requests} requests a round, {rounds} rounds each, alternating\n")
    print(
        "| request | uvicorn µs (median, p90) | the count, no deadline | the count and the "
        "deadline | ratio to uvicorn (median) | difference µs |"
    )
    print("|---|---|---|---|---|---|")
    sides: dict[str, tuple[type[HttpToolsProtocol], bool]] = {
        "uvicorn": (HttpToolsProtocol, True),
        "count": (HeaderDeadlineProtocol, False),
        "both": (HeaderDeadlineProtocol, True),
    }
    for name, (request, read) in CASES.items():
        times: dict[str, list[float]] = {side: [] for side in sides}
        for protocol_class, on in sides.values():  # warm up
            deadline(on)
            await round_of(protocol_class, request, read, requests // 10)
        for _ in range(rounds):
            for side, (protocol_class, on) in sides.items():
                deadline(on)
                times[side].append(await round_of(protocol_class, request, read, requests))
        plain, counted = times["uvicorn"], times["both"]

        def cell(values: list[float]) -> str:
            return f"{statistics.median(values):.1f}, {statistics.quantiles(values, n=10)[-1]:.1f}"

        ratio = statistics.median(b / a for a, b in zip(plain, counted, strict=True))
        difference = statistics.median(b - a for a, b in zip(plain, counted, strict=True))
        print(
            f"| {name} | {cell(plain)} | {cell(times['count'])} | {cell(counted)} | "
            f"{ratio:.3f} | {difference:+.1f} |"
        )
    deadline(True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    asyncio.run(measure(args.requests, args.rounds))


if __name__ == "__main__":
    main()
