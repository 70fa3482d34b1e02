"""Guest players: a display name in, an id and a one-time bearer token out."""

from __future__ import annotations

import uuid
from typing import Any

from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody

from server.auth import hash_token, new_token
from server.problems import PlayerNotFound, problem_responses
from server.schemas import CreatePlayerRequest, PlayerCreated, PlayerStats, strict_body
from server.services import services_of


class PlayersController(Controller):
    path = "/v1/players"
    tags = ("players",)

    @post(
        "/",
        operation_id="createPlayer",
        status_code=201,
        responses=problem_responses(400, 413, 422),
    )
    async def create_player(
        self, state: State, request: Request[Any, Any, Any], data: JSONBody[CreatePlayerRequest]
    ) -> PlayerCreated:
        """Create a guest player; the token is shown only in this answer."""
        data = await strict_body(request, CreatePlayerRequest)
        token = new_token()
        player = await services_of(state).players.create_player(
            uuid.uuid4().hex, data.name, hash_token(token)
        )
        return PlayerCreated(id=player.id, name=player.name, token=token)

    @get(
        "/{player_id:str}/stats",
        operation_id="getPlayerStats",
        responses=problem_responses(401, 404),
        security=[{"bearer": []}],
    )
    async def player_stats(
        self, state: State, request: Request[Any, Any, Any], player_id: FromPath[str]
    ) -> PlayerStats:
        """A player's totals, from the statistics projection."""
        services = services_of(state)
        await services.authenticate(request.headers.get("authorization"))
        if await services.players.get_player(player_id) is None:
            raise PlayerNotFound(f"no player {player_id!r}")
        return await services.stats(player_id)
