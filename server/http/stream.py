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

from infra.errors import InfraError
from server.auth import bearer_token, hash_token
from server.player_stream import PlayerStream
from server.problems import Unauthorized, make_problem, problem_for, problem_responses
from server.services import Services, services_of
from server.token_watch import REVOKED_DETAIL, until_set
from server.ws.frames import relay

_encoder = msgspec.json.Encoder()
STOPPING = "this server process is stopping; reconnect, to it or another one"


@get(
    "/v1/me/stream",
    operation_id="streamPlayerEvents",
    summary="Your live stream: challenges, matches that start, matches awaiting your move",
    tags=["players"],
    security=[{"bearer": []}],
    responses=problem_responses(
        401,
        429,
        described_as={
            429: "This address holds as many sockets and streams as it may "
            "(`too_many_connections`): close one, then connect again"
        },
    ),
    media_type="application/x-ndjson",
    response_description="Newline-delimited JSON, one frame per line (see asyncapi.yaml, "
    "channel `player`): challenge, challenge_closed, match_started, your_turn (with the "
    "match as your seat sees it), match_finished, opponent_away, opponent_back, claimable, "
    "ping, error (the last line: server_restarting or unauthorized or store_unavailable).",
)
async def stream_player_events(state: State, request: Request[Any, Any, Any]) -> Stream:
    """One stream for all your matches: a bot connects once and plays for ever. On
    (re)connecting it first says what is open now: each challenge, then each active
    match, the newest 1,000 (``match_started``, and ``your_turn`` where you are to act). If the token is
    revoked or expires, the stream ends with an ``error`` line (``unauthorized``); if the
    server process stops, with one that says so (``server_restarting``): reconnect. A
    database that fails later only delays frames (the stream reads again until it
    answers); one that fails as it connects ends it (``store_unavailable``): reconnect."""
    services = services_of(state)
    token = bearer_token(request.headers.get("authorization"))
    player = await services.player_for_token(token)
    token_hash = hash_token(token)

    async def lines() -> AsyncIterator[bytes]:
        ended = services.token_watch.hold(token_hash)  # held while the answer streams
        services.draining.hold(ended)  # ...and set by a stopping process too
        try:
            try:
                async for frame in until_set(PlayerStream(services, player.id).frames(), ended):
                    yield _encoder.encode(frame) + b"\n"
            except InfraError as exc:  # its connect's reads failed: nothing was owed yet
                yield _encoder.encode({"type": "error", "problem": problem_for(exc)}) + b"\n"
                return
            if services.draining.begun:
                problem = make_problem("server_restarting", STOPPING)
                yield _encoder.encode({"type": "error", "problem": problem}) + b"\n"
            elif ended.is_set():
                problem = problem_for(Unauthorized(REVOKED_DETAIL))
                yield _encoder.encode({"type": "error", "problem": problem}) + b"\n"
        finally:
            services.token_watch.release(token_hash, ended)
            services.draining.release(ended)

    return Stream(lines(), media_type="application/x-ndjson")


def _player_frames(services: Services, player_id: str) -> AsyncIterator[dict[str, Any]]:
    return PlayerStream(services, player_id).frames()


@websocket("/v1/me/live", name="player-live")
async def player_live(socket: WebSocket[Any, Any, Any]) -> None:
    """The same frames over a WebSocket (token as a bearer header, ``?token=`` or an
    ``auth`` first message)."""
    await relay(socket, _player_frames)
