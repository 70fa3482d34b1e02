"""The player stream over plain HTTP (newline-delimited JSON) and over a WebSocket.

NDJSON needs no socket library: ``curl -N`` or any HTTP client that reads lines will
do, which is all the simplest bot needs. Both carry the frames of ``PlayerStream``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar import Request, WebSocket, get, websocket
from litestar.datastructures import State
from litestar.response import Stream

from server.player_stream import PlayerStream
from server.problems import problem_responses
from server.services import Services, services_of
from server.ws.frames import relay

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


def _player_frames(services: Services, player_id: str) -> AsyncIterator[dict[str, Any]]:
    return PlayerStream(services, player_id).frames()


@websocket("/v1/me/live", name="player-live")
async def player_live(socket: WebSocket[Any, Any, Any]) -> None:
    """The same frames over a WebSocket (token as a bearer header or ``?token=``)."""
    await relay(socket, _player_frames)
