"""The bots waiting for challenges: bot accounts with their player stream open.

A person who wants to play a program had to know its name to find it; lichess lists its
online bots for this. Only bots are listed: a bot's open stream is what it is for, while
whether a person is at the page is theirs to tell. Read without a token, as the
leaderboard is."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.datastructures import State
from litestar.params import QueryParameter

from infra.clock import now_ms
from server.problems import problem_responses
from server.schemas import PlayerList
from server.services import services_of


@get(
    "/v1/bots/online",
    operation_id="getBotsOnline",
    summary="The bots waiting for challenges",
    tags=["players"],
    responses=problem_responses(),
)
async def get_bots_online(
    state: State, limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50
) -> PlayerList:
    """Bot accounts with their player stream open (`GET /v1/me/stream`) on any server
    process, by name, each with its rating; challenge one by its id (`POST
    /v1/challenges`). A stream closed is gone from the list at once; one on a process
    that stopped without closing it goes after the presence rows' freshness (20 s by
    default). No token needed."""
    services = services_of(state)
    fresh_after = now_ms() - services.presence.fresh_ms
    bots = await services.players.bots_listening(fresh_after, limit)
    return PlayerList(players=await services.profiles(bots))
