"""``WS /v1/tables/live``: the lobby's list of public tables, kept current live.

On connecting a client gets the whole list (``tables``), then a ``table`` frame for each
public table that opens and a ``table_closed`` frame for each that starts, is
cancelled or expires, from this process and every other one (the fan-out hub hears
them all). A table whose time runs out closes when any process records its expiry
(within ``GINRUMMY_TABLE_SWEEP_S``); the list never offers a table past its time.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import msgspec
from litestar import Response, WebSocket, get, websocket
from litestar.exceptions import WebSocketDisconnect

from domain.errors import TableNotOpened
from infra.errors import InfraError
from infra.projections.lobby import TABLE_STREAM_PREFIX
from server.http.tables import public_table_views, table_view
from server.problems import ServerError, make_problem, problem_for, problem_response
from server.services import Services, services_of
from server.tables import now_ms

PING_S = 15.0
_encoder = msgspec.json.Encoder()


async def lobby_frames(services: Services, viewer: str) -> Any:
    """The list, then every change to it, for ever."""
    hose = services.hub.firehose()
    listed: set[str] = set()
    try:
        views = await public_table_views(services, None, 200)
        listed = {view.table_id for view in views}
        yield {"type": "tables", "tables": views}
        while True:
            moved = await hose.wait(timeout=PING_S)
            if not moved:
                yield {"type": "ping"}
                continue
            for stream_id in moved:
                if not stream_id.startswith(TABLE_STREAM_PREFIX):
                    continue
                try:
                    table = await services.tables.load(stream_id.removeprefix(TABLE_STREAM_PREFIX))
                except (TableNotOpened, InfraError):
                    continue
                if table.private or table.invitee is not None:
                    continue  # never listed: its news is for its players alone
                if table.open_at(now_ms()) and table.table_id not in listed:
                    listed.add(table.table_id)
                    yield {"type": "table", "table": await table_view(services, table, viewer)}
                elif not table.open_at(now_ms()) and table.table_id in listed:
                    listed.discard(table.table_id)
                    status = table.status if table.status != "open" else "expired"
                    yield {"type": "table_closed", "table_id": table.table_id, "status": status}
    finally:
        services.hub.close_firehose(hose)


@get("/v1/tables/live", include_in_schema=False, sync_to_thread=False)
def lobby_over_plain_http() -> Response[bytes]:
    """A plain GET of the socket's address: 426 names the protocol (RFC 9110 §15.5.22)."""
    problem = make_problem(
        "upgrade_required", "open a WebSocket to this address; see asyncapi.yaml"
    )
    return problem_response(problem, {"Upgrade": "websocket", "Connection": "Upgrade"})


@websocket("/v1/tables/live", name="lobby-live")
async def lobby_live(socket: WebSocket[Any, Any, Any]) -> None:
    await socket.accept()
    services = services_of(socket.app.state)
    try:
        header = socket.headers.get("authorization")
        if header:
            player = await services.authenticate(header)
        else:
            player = await services.player_for_token(socket.query_params.get("token", ""))
    except ServerError as exc:
        problem = problem_for(exc)
        await socket.send_text(_encoder.encode({"type": "error", "problem": problem}).decode())
        await socket.close(4000 + problem.status, problem.rule)
        return

    async def send_frames() -> None:
        async for frame in lobby_frames(services, player.id):
            await socket.send_text(_encoder.encode(frame).decode())

    async def read_until_closed() -> None:
        while True:
            await socket.receive_text()

    tasks = [asyncio.create_task(send_frames()), asyncio.create_task(read_until_closed())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(WebSocketDisconnect, asyncio.CancelledError, OSError):
            await asyncio.gather(*tasks, return_exceptions=True)
