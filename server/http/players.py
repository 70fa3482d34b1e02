"""Guest players: a display name in, an id and a one-time bearer token out."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from litestar import Controller, Request, get, patch, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody, QueryParameter

from server.auth import hash_token, new_token
from server.problems import NotYou, PlayerNotFound, problem_responses
from server.schemas import (
    CreatePlayerRequest,
    PlayerCreated,
    PlayerList,
    PlayerProfile,
    PlayerRating,
    PlayerStats,
    RenamePlayerRequest,
    strict_body,
)
from server.services import services_of


class PlayersController(Controller):
    path = "/v1/players"
    tags = ("players",)

    @post(
        "/",
        operation_id="createPlayer",
        summary="Create a guest player",
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
            uuid.uuid4().hex, data.name, hash_token(token), data.kind
        )
        return PlayerCreated(id=player.id, name=player.name, kind=player.kind, token=token)

    @get(
        "/",
        operation_id="findPlayers",
        summary="Find players by name",
        responses=problem_responses(401),
        security=[{"bearer": []}],
    )
    async def find_players(
        self,
        state: State,
        request: Request[Any, Any, Any],
        name: Annotated[str, QueryParameter(min_length=1, max_length=40)],
    ) -> PlayerList:
        """Players whose display name starts with ``name`` (any case), at most 20: names
        are neither unique nor fixed, so challenge the one you mean by its id."""
        services = services_of(state)
        await services.authenticate(request.headers.get("authorization"))
        found = await services.players.named(name)
        return PlayerList(players=await services.profiles(found))

    @get(
        "/{player_id:str}",
        operation_id="getPlayer",
        summary="Read a player",
        responses=problem_responses(401, 404),
        security=[{"bearer": []}],
    )
    async def get_player(
        self, state: State, request: Request[Any, Any, Any], player_id: FromPath[str]
    ) -> PlayerProfile:
        """A player's id and display name."""
        services = services_of(state)
        await services.authenticate(request.headers.get("authorization"))
        player = await services.players.get_player(player_id)
        if player is None:
            raise PlayerNotFound(f"no player {player_id!r}")
        return (await services.profiles([player]))[0]

    @patch(
        "/{player_id:str}",
        operation_id="renamePlayer",
        summary="Rename yourself",
        responses=problem_responses(
            401, 403, 404, 413, described_as={403: "The token belongs to another player"}
        ),
        security=[{"bearer": []}],
    )
    async def rename_player(
        self,
        state: State,
        request: Request[Any, Any, Any],
        player_id: FromPath[str],
        data: JSONBody[RenamePlayerRequest],
    ) -> PlayerProfile:
        """Change your own display name; your id, token and matches stay as they are."""
        services = services_of(state)
        caller = await services.authenticate(request.headers.get("authorization"))
        data = await strict_body(request, RenamePlayerRequest)
        if player_id != caller.id:
            raise NotYou("a token can rename only its own player")
        player = await services.players.rename(player_id, data.name)
        if player is None:
            raise PlayerNotFound(f"no player {player_id!r}")
        return (await services.profiles([player]))[0]

    @get(
        "/{player_id:str}/stats",
        operation_id="getPlayerStats",
        summary="A player's statistics",
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

    @get(
        "/{player_id:str}/rating",
        operation_id="getPlayerRating",
        summary="A player's rating and its history",
        responses=problem_responses(401, 404),
        security=[{"bearer": []}],
    )
    async def player_rating(
        self,
        state: State,
        request: Request[Any, Any, Any],
        player_id: FromPath[str],
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
    ) -> PlayerRating:
        """A player's Glicko-2 rating, deviation and volatility, and its rated matches,
        the newest first. A house level (``ai:hard``) answers with its anchored record."""
        services = services_of(state)
        await services.authenticate(request.headers.get("authorization"))
        return await services.rating(player_id, limit)


@get(
    "/v1/me",
    operation_id="getMe",
    summary="Who your token belongs to",
    tags=["players"],
    security=[{"bearer": []}],
    responses=problem_responses(401),
)
async def get_me(state: State, request: Request[Any, Any, Any]) -> PlayerProfile:
    """The player of the bearer token: a bot started with only its token learns its id."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    await services.projector.catch_up("ratings")  # read your own writes: a match just settled
    return (await services.profiles([player]))[0]
