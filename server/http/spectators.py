"""Watching a match over HTTP: the spectator's view, with no token needed."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get
from litestar.datastructures import State
from litestar.params import FromPath, QueryParameter

from infra.projections import matches_in_play
from server.http.matches import refuse_null
from server.problems import problem_responses
from server.schemas import SpectatorResponse, WatchableMatch, WatchableMatchList
from server.services import services_of
from server.ws.watch import require_watchable


@get(
    "/v1/matches/{match_id:str}/spectator",
    operation_id="getSpectatorView",
    summary="Watch a match: what is public to both seats",
    tags=["spectators"],
    responses=problem_responses(403, 404),
)
async def get_spectator_view(
    state: State,
    request: Request[Any, Any, Any],
    match_id: FromPath[str],
    watch_code: Annotated[str | None, QueryParameter(max_length=100)] = None,
) -> SpectatorResponse:
    """The match as anyone watching sees it (no token needed): the discards, the cards
    taken from the pile, the knocker's melds and layoffs, never a hidden card. A match
    from a private table needs its watch code. Live: ``WS …/watch`` (asyncapi.yaml)."""
    refuse_null(request, "watch_code")
    services = services_of(state)
    record = await services.matches.play_ai(match_id)
    require_watchable(record.state, watch_code)
    return await services.spectator_response(record)


@get(
    "/v1/matches/watchable",
    operation_id="listWatchableMatches",
    summary="The matches being played now that anyone may watch",
    tags=["spectators"],
    responses=problem_responses(),
)
async def list_watchable_matches(
    state: State,
    request: Request[Any, Any, Any],
    player: Annotated[
        str | None,
        QueryParameter(
            min_length=1, max_length=100, description="Only the matches this player sits in"
        ),
    ] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 50,
    offset: Annotated[int, QueryParameter(ge=0, le=1_000_000)] = 0,
) -> WatchableMatchList:
    """Who is playing whom right now, newest first (no token needed): each match in play
    on any server process, its seats, score and spectators, to watch with ``GET
    …/spectator`` or ``WS …/watch``; ``player`` keeps those one player sits in (a
    friend's). A match watched only with its watch code (a private table's, its
    rematch's, a chosen seed's) is never listed, nor counted by ``offset`` or ``more``;
    a challenge's or a rematch's match that anyone may watch is listed as any other.
    ``more`` says whether to ask further."""
    refuse_null(request, "player")
    services = services_of(state)
    await services.projector.catch_up("matches")
    found = await matches_in_play(services.store.engine, player, limit + 1, offset)
    listed = found[:limit]
    # Read from the read models alone, a few queries for the whole page: an anonymous
    # caller must not make the server fold up to a hundred matches a request.
    seats = await services.player_refs([p for match in listed for p in match.players])
    watching = await services.spectators.counts([match.match_id for match in listed])
    entries = [
        WatchableMatch(
            match_id=match.match_id,
            seats=(seats[2 * index], seats[2 * index + 1]),
            rules=match.rules_name,
            scores=match.scores,
            hands_played=match.hands_played,
            started_at=match.started_at.isoformat(),
            spectators=watching[match.match_id],
            rated=match.rated,
            practice=match.practice,
        )
        for index, match in enumerate(listed)
    ]
    return WatchableMatchList(matches=entries, more=len(found) > limit)
