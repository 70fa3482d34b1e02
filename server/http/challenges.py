"""Challenges: a table addressed to one player, who accepts or declines it; rematches.

A challenge is the lobby's table with an ``invitee`` (see ``domain/table.py``), so it
has the same seat race, expiry and log; ``to: null`` is an open seek, a public table.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody

from domain.errors import OwnTable, TableNotOpened, quoted
from server.house_ai import is_house_ai, unknown_level
from server.http.limits import rate_limited
from server.http.matches import refuse_null
from server.http.tables import joined_answer, require_visible, table_view
from server.problems import (
    NAMES_HELD,
    OPENING_REFUSALS,
    TABLE_REFUSALS,
    PlayerNotFound,
    problem_responses,
)
from server.ratings import rated_for
from server.schemas import (
    ChallengeList,
    ChallengeRequest,
    ClientSeedQuery,
    JoinedTable,
    TableView,
    clock_of,
    rules_of,
    strict_body,
)
from server.services import Services, services_of

AnyRequest = Request[Any, Any, Any]
ChallengeId = FromPath[str]


class ChallengesController(Controller):
    path = "/v1/challenges"
    tags = ("challenges",)
    security = ({"bearer": []},)

    @post(
        "/",
        operation_id="createChallenge",
        summary="Challenge a player, or seek anyone",
        status_code=201,
        responses=problem_responses(
            400,
            401,
            403,
            404,
            409,
            413,
            422,
            429,
            described_as={
                **NAMES_HELD,
                **OPENING_REFUSALS,
                403: "The player challenged does not take you as an opponent",
            },
        ),
        before_request=rate_limited("creates"),
    )
    async def create_challenge(
        self, state: State, request: AnyRequest, data: JSONBody[ChallengeRequest]
    ) -> TableView:
        """Challenge the player ``to`` (by id) under a preset or custom rules; it waits
        until accepted, declined, cancelled or expired. ``to: null`` opens a public seek;
        ``to: "ai:<level>"`` challenges the house AI, which accepts at once (the answer
        then has the match's id), so a bot can play the house through its stream.
        A sender has at most one open challenge to the same player (409
        `already_challenged`) and 10 open in all (409 `too_many_open_challenges`); a seek
        counts as a table (409 `too_many_open_tables` past 3). Challenges you were sent
        never count. A player who blocks you refuses your challenge (403
        `opponent_refused`), and one you block cannot be challenged (409
        `you_block_this_player`)."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        data = await strict_body(request, ChallengeRequest)
        if data.to is not None and is_house_ai(data.to):
            if (unknown := unknown_level(data.to)) is not None:
                raise PlayerNotFound(unknown)
        elif data.to is not None and await services.players.get_player(data.to) is None:
            raise PlayerNotFound(f"no player {quoted(data.to)}")
        if data.to == player.id:  # before asking whether it is rated: that is not the reason
            raise OwnTable("a player cannot challenge itself")
        rules = rules_of(data.rules)
        ttl = data.expires_in_s or services.settings.table_ttl_s
        seats = (player.id,) if data.to is None else (player.id, data.to)
        rated = rated_for(seats, rules, False, data.rated, hints=data.hints)
        opened = await services.tables.open(
            player.id,
            rules,
            False,
            ttl,
            invitee=data.to,
            hints=data.hints,
            client_seed=data.client_seed,
            rated=rated,
            clock=clock_of(data.clock),
        )
        if data.to is not None and is_house_ai(data.to):
            opened = await services.tables.join(opened.table_id, data.to, None)  # it accepts
        return await table_view(services, opened, player.id)

    @get(
        "/",
        operation_id="listChallenges",
        summary="Your open challenges, incoming and outgoing",
        responses=problem_responses(401),
    )
    async def list_challenges(self, state: State, request: AnyRequest) -> ChallengeList:
        """Open challenges addressed to you or sent by you, oldest first."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        tables = await services.tables.challenges_of(player.id)
        return ChallengeList(challenges=[await table_view(services, t, player.id) for t in tables])

    @post(
        "/{challenge_id:str}/accept",
        operation_id="acceptChallenge",
        summary="Accept a challenge: the match starts",
        status_code=200,
        responses=problem_responses(
            401, 403, 404, 409, 422, 429, described_as={**NAMES_HELD, **TABLE_REFUSALS}
        ),
        before_request=rate_limited("actions"),
    )
    async def accept(
        self,
        state: State,
        request: AnyRequest,
        challenge_id: ChallengeId,
        client_seed: ClientSeedQuery = None,
    ) -> JoinedTable:
        """Accept a challenge addressed to you (or an open seek): the match starts at once.
        ``client_seed`` is your part of its fair deal."""
        refuse_null(request, "client_seed")
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        await require_challenge(services, challenge_id, player.id)
        joined = await services.tables.join(challenge_id, player.id, None, client_seed)
        return await joined_answer(services, joined, player.id)

    @post(
        "/{challenge_id:str}/decline",
        operation_id="declineChallenge",
        summary="Decline a challenge addressed to you",
        status_code=200,
        responses=problem_responses(401, 403, 404, 409, 429, described_as=TABLE_REFUSALS),
        before_request=rate_limited("actions"),
    )
    async def decline(
        self, state: State, request: AnyRequest, challenge_id: ChallengeId
    ) -> TableView:
        """Decline a challenge; its sender is told on its player stream. Once accepted
        (its match started), a 409 `table_started`: resign the match instead."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        await require_challenge(services, challenge_id, player.id)
        declined = await services.tables.decline(challenge_id, player.id)
        return await table_view(services, declined, player.id)

    @post(
        "/{challenge_id:str}/cancel",
        operation_id="cancelChallenge",
        summary="Withdraw a challenge you sent",
        status_code=200,
        responses=problem_responses(401, 403, 404, 409, 429, described_as=TABLE_REFUSALS),
        before_request=rate_limited("actions"),
    )
    async def cancel(
        self, state: State, request: AnyRequest, challenge_id: ChallengeId
    ) -> TableView:
        """Withdraw your challenge before it is accepted; after, a 409 `table_started`
        (resign the match instead)."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        await require_challenge(services, challenge_id, player.id)
        cancelled = await services.tables.cancel(challenge_id, player.id)
        return await table_view(services, cancelled, player.id)


async def require_challenge(services: Services, challenge_id: str, player_id: str) -> None:
    """A challenge the player may see (``require_visible``). One that names nothing they
    may see is "no challenge", the same 404 as an id that names nothing at all, in this
    route's words: it said "no table"."""
    try:
        require_visible(await services.tables.load(challenge_id), player_id, None)
    except TableNotOpened:
        raise TableNotOpened(f"no challenge {quoted(challenge_id)}") from None
