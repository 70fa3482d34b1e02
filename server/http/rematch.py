"""Rematch: after settlement either player offers to play again; the other accepts."""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.datastructures import State
from litestar.params import FromPath

from server.http.limits import rate_limited
from server.http.matches import refuse_null
from server.http.tables import table_view
from server.problems import NAMES_HELD, ServerError, problem_responses
from server.schemas import ClientSeedQuery, TableView
from server.seats import seat_of
from server.services import services_of


class NoRematch(ServerError):
    """Nobody has offered to play this match again."""

    rule = "no_rematch"
    status = 404


@post(
    "/v1/matches/{match_id:str}/rematch",
    operation_id="offerRematch",
    summary="Offer (or accept) a rematch of a settled match",
    tags=["matches"],
    status_code=200,
    security=[{"bearer": []}],
    responses=problem_responses(401, 403, 404, 409, 422, 429, described_as=NAMES_HELD),
    before_request=rate_limited("creates"),
)
async def offer_rematch(
    state: State,
    request: Request[Any, Any, Any],
    match_id: FromPath[str],
    client_seed: ClientSeedQuery = None,
) -> TableView:
    """Offer the opponent a new match under the same rules; if the opponent offered
    first, this accepts it and the new match starts (`match_id` in the answer). The
    house AI accepts at once. The offer is a challenge, listed and streamed as one.
    ``client_seed`` is your part of its fair deal, given with the offer or acceptance.
    An opponent who blocks you refuses the offer, or your acceptance of theirs (403
    `opponent_refused`); one you block cannot be offered one (409 `you_block_this_player`)."""
    refuse_null(request, "client_seed")
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    offer = await services.tables.rematch(
        match_id, player.id, services.settings.table_ttl_s, client_seed
    )
    return await table_view(services, offer, player.id)


@get(
    "/v1/matches/{match_id:str}/rematch",
    operation_id="getRematch",
    summary="The rematch of a match, offered or started",
    tags=["matches"],
    security=[{"bearer": []}],
    responses=problem_responses(401, 403, 404),
)
async def get_rematch(
    state: State, request: Request[Any, Any, Any], match_id: FromPath[str]
) -> TableView:
    """The newest rematch offer of this match (its `match_id` once accepted)."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    seat_of((await services.matches.load(match_id)).state, player.id)
    offer = await services.tables.latest_rematch(match_id)
    if offer is None:
        raise NoRematch("nobody has offered a rematch of this match")
    return await table_view(services, offer, player.id)
