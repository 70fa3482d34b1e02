"""Watching a match over HTTP: the spectator's view, with no token needed."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get
from litestar.datastructures import State
from litestar.params import FromPath, QueryParameter

from server.http.matches import refuse_null
from server.problems import problem_responses
from server.schemas import SpectatorResponse
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
