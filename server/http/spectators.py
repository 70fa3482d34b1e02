"""Watching a match over HTTP: the spectator's view, with no token needed."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get
from litestar.datastructures import State
from litestar.params import FromPath, QueryParameter

from infra.projections import matches_in_play
from server.http.matches import refuse_null
from server.problems import MatchNotFound, problem_responses
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
    friend's). A private table's match is never listed, nor counted by ``offset`` or
    ``more``: it is watched only with its watch code. A page may hold fewer than
    ``limit`` if a match ends as it is read (``more`` says whether to ask further)."""
    refuse_null(request, "player")
    services = services_of(state)
    await services.projector.catch_up("matches")
    # then the lobby, at least as far: a private match's table is joined before it starts
    await services.projector.catch_up("lobby")
    found = await matches_in_play(services.store.engine, player, limit + 1, offset)
    entries = []
    for match_id in found[:limit]:
        try:
            record = await services.matches.load(match_id)
        except MatchNotFound:
            continue
        game = record.state
        if game.watch_code is not None or game.settlement is not None:
            continue  # private, or over since the projection last moved
        first, second = await services.player_refs(game.players)
        entries.append(
            WatchableMatch(
                match_id=match_id,
                seats=(first, second),
                rules=game.rules.name,
                scores=game.scores,
                hands_played=game.hands_played,
                started_at=record.events[0].recorded_at.isoformat(),
                spectators=await services.spectators.count(match_id),
                rated=game.rated,
                practice=game.practice,
            )
        )
    return WatchableMatchList(matches=entries, more=len(found) > limit)
