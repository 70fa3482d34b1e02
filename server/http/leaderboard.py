"""The leaderboards: established ratings of people, and of bots with the house levels.

Read without a token, as the live matches are: a player's name and rating are what
anyone watching a match sees already, and a visitor deciding whether to play wants to
see who is here (the page once told a visitor the board was "for players" only)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Request, get
from litestar.datastructures import State
from litestar.params import QueryParameter

from server.http.matches import refuse_null
from server.problems import problem_responses
from server.schemas import Leaderboard
from server.services import services_of


@get(
    "/v1/leaderboard",
    operation_id="getLeaderboard",
    summary="The highest established ratings",
    tags=["players"],
    responses=problem_responses(),
)
async def get_leaderboard(
    state: State,
    request: Request[Any, Any, Any],
    kind: Annotated[
        Literal["person", "bot"], QueryParameter(description="People, or bots and the house")
    ] = "person",
    limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    offset: Annotated[int, QueryParameter(gt=-1, le=1_000_000)] = 0,
) -> Leaderboard:
    """Ratings highest first, a page at a time (no token needed); provisional ratings are
    not listed. The bot board holds bot accounts and the house AI levels, whose ratings
    are anchored."""
    refuse_null(request, "kind")
    return await services_of(state).leaderboard(kind, limit, offset)
