"""The shape of the app's plain-HTTP wrappers (HEAD, security headers, quota headers).

Each wraps the app's ASGI handler ahead of routing and touches only HTTP answers: a
socket's or the lifespan's messages pass through as they are.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, HTTPScope, Receive, Scope, Send


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
