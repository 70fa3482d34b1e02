"""Matches between two house AIs, started by a player to watch them play."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, post
from litestar.datastructures import State
from litestar.params import JSONBody

from server.http.limits import rate_limited
from server.problems import problem_responses
from server.schemas import HouseMatchRequest, SpectatorResponse, rules_of, strict_body
from server.services import services_of


@post(
    "/v1/house-matches",
    operation_id="createHouseMatch",
    summary="Start a match between two house AIs, to watch",
    tags=["matches"],
    status_code=201,
    security=[{"bearer": []}],
    responses=problem_responses(400, 401, 413, 422, 429),
    before_request=rate_limited("creates"),
)
async def create_house_match(
    state: State, request: Request[Any, Any, Any], data: JSONBody[HouseMatchRequest]
) -> SpectatorResponse:
    """Two house AIs play a practice match (never rated) that you watch, seated in
    neither: it is in your list (``watching: true``) and anyone may watch it at
    ``GET /v1/matches/{id}/spectator`` or ``WS …/watch`` (dealt from a chosen ``seed``,
    only with the ``watch_code`` this answer gives you: a guessed seed would show every
    card). The server plays one AI
    decision every ``GINRUMMY_AI_PACE_MS`` so a spectator can follow."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    data = await strict_body(request, HouseMatchRequest)
    match_id = await services.create_house_match(
        player.id, data.seats, rules_of(data.rules), data.seed
    )
    record = await services.matches.load(match_id)
    answer = await services.spectator_response(record)
    return msgspec.structs.replace(answer, watch_code=record.state.watch_code)  # the host's
