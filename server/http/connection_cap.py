"""At most so many long-lived connections per client address, in each server process.

A WebSocket (a seat's, a spectator's, the lobby's, the player stream's) or an NDJSON
player stream holds memory and a task for as long as its client likes, and a
spectator's needs no token: one address opened 400 of them and the server took them
all. Past ``GINRUMMY_CONNECTIONS_PER_ADDRESS`` a socket is accepted only to hear an
``error`` frame (``too_many_connections``, 429) and close 4429; a stream is answered
429. Counted per process (each holds its own connections) and per client as the rate
limits count one (an IPv6 client by its /64); ahead of routing, so a refused connection
costs no handler.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec
from litestar import Litestar
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

from infra.clock import now_ms
from server.http.asgi_wrapper import send_problem
from server.http.client_address import address_group
from server.problems import make_problem

STREAM_PATHS = frozenset({"/v1/me/stream"})  # plain-HTTP answers that never end by themselves
_encoder = msgspec.json.Encoder()


def cap_connections(app: Litestar, per_address: int) -> None:
    if per_address > 0:
        app.asgi_handler = _ConnectionCap(app.asgi_handler, per_address)


def is_long_lived(scope: Scope) -> bool:
    return scope["type"] == ScopeType.WEBSOCKET or (
        scope["type"] == ScopeType.HTTP and routed_path(scope["path"]) in STREAM_PATHS
    )


def routed_path(path: str) -> str:
    """The path as the router matches it: ``/v1/me//stream`` and ``/v1/me/stream/`` reach
    the stream's handler too (a review opened uncapped streams so)."""
    return "/" + "/".join(part for part in path.split("/") if part)


class _ConnectionCap:
    def __init__(self, next_app: ASGIApp, per_address: int) -> None:
        self.next_app = next_app
        self.per_address = per_address
        self.open: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not is_long_lived(scope):
            await self.next_app(scope, receive, send)
            return
        client = scope.get("client")
        address = address_group(client[0]) if client else ""
        if self.open[address] >= self.per_address:
            await self._refuse(scope, receive, send)
            return
        self.open[address] += 1
        try:
            await self.next_app(scope, receive, send)
        finally:
            self.open[address] -= 1
            if not self.open[address]:
                del self.open[address]

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = make_problem(
            "too_many_connections",
            f"this address holds {self.per_address} open sockets and streams on this server "
            "process, the most it may; close one first",
        )
        if scope["type"] == ScopeType.HTTP:
            await send_problem(send, 429, problem)
            return
        emit: Any = send  # raw ASGI messages, built here
        await receive()  # websocket.connect
        frame: dict[str, Any] = {"type": "error", "problem": problem}
        if scope["path"].startswith("/v1/matches/"):  # a match's socket: frames name a version
            frame["version"] = 0  # nothing of the match was sent
            frame["now_ms"] = now_ms()  # as on every frame of a match's socket
        await emit({"type": "websocket.accept"})
        await emit({"type": "websocket.send", "text": _encoder.encode(frame).decode()})
        await emit({"type": "websocket.close", "code": 4429, "reason": problem.rule})
