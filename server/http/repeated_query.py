"""A request that gives a query parameter twice is a 422 problem, ahead of routing.

Litestar read the last of two values and the sockets the first (``server.query_once``);
refused here, no handler reads either, on every route alike.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.types import HTTPScope, Receive, Send

from server.http.asgi_wrapper import HttpWrapper, send_problem
from server.problems import make_problem
from server.query_once import repeated_parameter


def refuse_repeated_query(app: Litestar) -> None:
    app.asgi_handler = _RefuseRepeatedQuery(app.asgi_handler)


class _RefuseRepeatedQuery(HttpWrapper):
    async def http(self, scope: HTTPScope, receive: Receive, send: Send) -> None:
        why = repeated_parameter(scope.get("query_string", b""))
        if why is None:
            await self.next_app(scope, receive, send)
            return
        problem = make_problem("invalid_request", f"{why}; nothing was done")
        await send_problem(send, 422, problem, close=True)  # a body it sent is left unread
