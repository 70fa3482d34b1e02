"""The shape of the app's plain-HTTP wrappers (HEAD, security headers, quota headers).

Each wraps the app's ASGI handler ahead of routing and touches only HTTP answers: a
socket's or the lifespan's messages pass through as they are.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Receive, Scope, Send

from server.problems import PROBLEM_MEDIA_TYPE, Problem

_encoder = msgspec.json.Encoder()


class HttpWrapper:
    def __init__(self, next_app: ASGIApp) -> None:
        self.next_app = next_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.next_app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        """One HTTP request, passed on to ``next_app`` with what this wrapper changes."""
        raise NotImplementedError


async def send_problem(send: Send, status: int, problem: Problem, close: bool = False) -> None:
    """Answer with ``problem`` from ahead of routing (no handler, so no Litestar response);
    ``close``: the request's unread rest leaves the connection unusable."""
    body = _encoder.encode(problem)
    headers = [
        (b"content-type", PROBLEM_MEDIA_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    if close:
        headers.append((b"connection", b"close"))
    emit: Any = send  # raw ASGI messages, built here
    await emit({"type": "http.response.start", "status": status, "headers": headers})
    await emit({"type": "http.response.body", "body": body})
