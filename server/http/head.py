"""HEAD is answered wherever GET is, as GET would answer but without the body.

RFC 9110 §9.1 asks every general-purpose server to support HEAD, and uptime checks
and load balancers probe ``/`` and ``/healthz`` with it. Litestar 2 routes HEAD only
to handlers that name it, so this wraps the app's ASGI handler, ahead of routing:
a HEAD request is routed as GET, its response keeps status and headers (the length
included) and loses the body, and every ``Allow`` that lists GET lists HEAD too (and
none lists "websocket", Litestar's name for a socket route, which is no HTTP method).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from litestar import Litestar
from litestar.types import HTTPScope, Message, Receive, Send

from server.http.asgi_wrapper import HttpWrapper


def answer_head_as_get(app: Litestar) -> None:
    app.asgi_handler = _HeadAsGet(app.asgi_handler)


class _HeadAsGet(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        head = scope["method"] == "HEAD"
        routed: Any = {**scope, "method": "GET"} if head else scope

        async def send_for_head(message: Message) -> None:
            sent: Any = message
            if sent["type"] == "http.response.start":
                sent = {**sent, "headers": _with_head_allowed(sent["headers"])}
            elif head and sent["type"] == "http.response.body":
                if sent.get("more_body", False):
                    return
                sent = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(sent)

        await self.next_app(routed, receive, send_for_head)


def _with_head_allowed(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    changed = []
    for name, value in headers:
        if name.lower() == b"allow":
            # Litestar lists a WebSocket route as "websocket", which is no HTTP method
            methods = [m.strip() for m in value.decode("latin-1").split(",")]
            methods = [m for m in methods if m and m.lower() != "websocket"]
            if "GET" in methods and "HEAD" not in methods:
                methods.append("HEAD")
            value = ", ".join(sorted(methods)).encode("latin-1")
        changed.append((name, value))
    return changed
