"""The player stream over plain HTTP (newline-delimited JSON) and over a WebSocket.

NDJSON needs no socket library: ``curl -N`` or any HTTP client that reads lines will
do, which is all the simplest bot needs. Both carry the frames of ``PlayerStream``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar import Request, WebSocket, get, websocket
from litestar.datastructures import State
from litestar.exceptions import WebSocketDisconnect
from litestar.response import Stream

from server.player_stream import PlayerStream
from server.problems import ServerError, problem_for, problem_responses
from server.services import services_of

_encoder = msgspec.json.Encoder()


@get(
    "/v1/me/stream",
    operation_id="streamPlayerEvents",
    summary="Your live stream: challenges, matches that start, matches awaiting your move",
    tags=["players"],
    security=[{"bearer": []}],
    responses=problem_responses(401),
    media_type="application/x-ndjson",
    response_description="Newline-delimited JSON, one frame per line (see asyncapi.yaml, "
    "channel `player`): challenge, challenge_closed, match_started, your_turn, "
    "match_finished, ping.",
)
async def stream_player_events(state: State, request: Request[Any, Any, Any]) -> Stream:
    """One stream for all your matches: a bot connects once and plays for ever. On
    (re)connecting it first says what is open now: each challenge, then each active
    match (``match_started``, and ``your_turn`` where you are to act)."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))

    async def lines() -> AsyncIterator[bytes]:
        async for frame in PlayerStream(services, player.id).frames():
            yield _encoder.encode(frame) + b"\n"

    return Stream(lines(), media_type="application/x-ndjson")


@websocket("/v1/me/live", name="player-live")
async def player_live(socket: WebSocket[Any, Any, Any]) -> None:
    """The same frames over a WebSocket (token as a bearer header or ``?token=``)."""
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
        async for frame in PlayerStream(services, player.id).frames():
            await socket.send_text(_encoder.encode(frame).decode())

    async def read_until_closed() -> None:
        while True:
            await socket.receive_text()  # anything the client says is a sign of life

    tasks = [asyncio.create_task(send_frames()), asyncio.create_task(read_until_closed())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(WebSocketDisconnect, asyncio.CancelledError, OSError):
            await asyncio.gather(*tasks, return_exceptions=True)
