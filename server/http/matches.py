"""Matches: create one against the AI, read your view, act, page the log, replay it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from litestar import Controller, Request, get, post
from litestar.datastructures import State
from litestar.exceptions import ValidationException
from litestar.params import FromPath, HeaderParameter, JSONBody, QueryParameter

from domain.melds import arrange
from server import action_keys
from server.after import check_after
from server.house_ai import AI_PREFIX
from server.http.limits import rate_limited
from server.match_record import MatchRecord
from server.problems import (
    MatchNotFinished,
    NotYourMatch,
    Unauthorized,
    VersionOutOfRange,
    problem_responses,
)
from server.ratings import rated_for
from server.schemas import (
    ActionRequest,
    ActionResponse,
    ClaimStatus,
    CreateMatchRequest,
    EventsPage,
    MatchList,
    MatchResponse,
    ReplayResponse,
    VersionedEvent,
    clock_of,
    rules_of,
    strict_body,
)
from server.seats import reader_seat, versioned
from server.services import Services, services_of
from server.ws.watch import require_watchable

AnyRequest = Request[Any, Any, Any]


def refuse_null(request: AnyRequest, name: str) -> None:
    """Litestar reads ``?name=null`` as a parameter left out; null is no value the API takes."""
    if request.query_params.get(name) == "null":
        raise ValidationException(
            detail="invalid query parameter",
            extra=[{"key": name, "message": "null is not a value; leave the parameter out"}],
        )


MatchId = FromPath[str]
WatchCode = Annotated[
    str | None,
    QueryParameter(
        max_length=100,
        description="A finished private table's match: its watch code, to read it unseated",
    ),
]


async def log_reader(
    services: Services, request: AnyRequest, record: MatchRecord, watch_code: str | None
) -> int | None:
    """The seat the caller reads a match's log as (None: a spectator's, or whole once
    the match is over). While it runs only its seats (and the host of two house AIs)
    read it; once it is settled every seed, deck and salt is in it, so anyone who may
    watch the match reads it whole, with no token (docs/fair-deal.md)."""
    header = request.headers.get("authorization")
    over = record.state.settlement is not None
    if not header and not over:  # a spectator is told where to look, not just to sign in
        raise Unauthorized(SEATS_ONLY.format(match_id=record.state.match_id))
    if header or not over:
        player = await services.authenticate(header)
        try:
            return reader_seat(record, player.id)
        except NotYourMatch:
            if not over:
                raise NotYourMatch(
                    "your token holds no seat in this match. "
                    + SEATS_ONLY.format(match_id=record.state.match_id)
                ) from None
    require_watchable(record.state, watch_code)
    return None


SEATS_ONLY = (
    "While a match is played its log is its seats' (send a seat's token); a spectator "
    "watches it at GET /v1/matches/{match_id}/spectator or the watch socket, and anyone "
    "who may watch it reads the whole log once it is over"
)


IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        min_length=1,  # an empty key would bind every keyless retry of a client to one move
        max_length=200,
        required=False,
        description="A retried request with the same key returns the first answer. "
        "Send it once: two are a 422 `invalid_request` that changes nothing.",
    ),
]


class MatchesController(Controller):
    path = "/v1/matches"
    tags = ("matches",)
    security = ({"bearer": []},)

    @post(
        "/",
        operation_id="createMatch",
        summary="Start a match against the AI",
        status_code=201,
        responses=problem_responses(400, 401, 413, 422, 429),
        before_request=rate_limited("creates"),
    )
    async def create_match(
        self, state: State, request: AnyRequest, data: JSONBody[CreateMatchRequest]
    ) -> MatchResponse:
        """Start a match against the AI; its opening moves, if any, are already played.

        The deal is fair (docs/fair-deal.md) unless ``seed`` is given: then the match
        is practice. ``hints`` puts the engine's advice in your view (never rated)."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        data = await strict_body(request, CreateMatchRequest)
        rules = rules_of(data.rules)
        opponent = f"{AI_PREFIX}{data.level}"
        rated = rated_for(
            (player.id, opponent), rules, data.seed is not None, data.rated, hints=data.hints
        )
        match_id = await services.create_match(
            player.id,
            data.level,
            rules,
            data.seed,
            data.client_seed,
            data.hints,
            rated,
            clock_of(data.clock),
        )
        return await services.with_seats(await services.matches.view(match_id, player.id))

    @get(
        "/",
        operation_id="listMatches",
        summary="List your matches",
        responses=problem_responses(401),
    )
    async def list_matches(
        self,
        state: State,
        request: AnyRequest,
        status: Annotated[Literal["active", "finished"] | None, QueryParameter()] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 100,
        offset: Annotated[int, QueryParameter(ge=0, le=1_000_000)] = 0,
    ) -> MatchList:
        """The caller's matches, newest first, from the matches projection: ``limit`` of
        them after the first ``offset``; ``more`` says another page follows (a list of
        over a page was cut short without a word)."""
        refuse_null(request, "status")
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        return await services.match_list(player.id, status, limit, offset)

    @get(
        "/{match_id:str}",
        operation_id="getMatch",
        summary="Your view of a match",
        responses=problem_responses(401, 403, 404),
    )
    async def get_match(
        self, state: State, request: AnyRequest, match_id: MatchId
    ) -> MatchResponse:
        """The caller's view of the match: its hand, the public cards, its legal actions."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        answer = await services.matches.view(match_id, player.id)
        return await services.with_seats(answer, spectators=True)

    @post(
        "/{match_id:str}/actions",
        operation_id="postAction",
        summary="Act in a match",
        status_code=200,
        responses=problem_responses(400, 401, 403, 404, 409, 413, 422, 429),
        before_request=rate_limited("actions"),
    )
    async def post_action(
        self,
        state: State,
        request: AnyRequest,
        match_id: MatchId,
        data: JSONBody[ActionRequest],
        idempotency_key: IdempotencyKey = None,
    ) -> ActionResponse:
        """Act for your seat; the answer holds your events and the AI's replies."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        data = await strict_body(request, ActionRequest)
        return await action_keys.act(services, match_id, player.id, data, idempotency_key)

    @post(
        "/{match_id:str}/claim",
        operation_id="claimMatch",
        summary="Claim the match from an absent opponent",
        status_code=200,
        responses=problem_responses(401, 403, 404, 409, 422, 429),
        before_request=rate_limited("actions"),  # it takes the match's lock: counted with the moves
    )
    async def claim_match(
        self, state: State, request: AnyRequest, match_id: MatchId
    ) -> MatchResponse:
        """Win the match from an opponent whose time ran out three turns in a row, or who
        has been away from this match (no live socket on it, no player stream, no move)
        longer than the grace period; it settles as the opponent's resignation. Too
        early: ``claim_too_early``. The live socket takes the same claim as a frame."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        return await services.claim(match_id, player.id)

    @get(
        "/{match_id:str}/claim",
        operation_id="getClaimStatus",
        summary="Whether your claim of the match would be accepted now",
        responses=problem_responses(401, 403, 404, 422),
    )
    async def get_claim_status(
        self, state: State, request: AnyRequest, match_id: MatchId
    ) -> ClaimStatus:
        """For a seat's player: whether ``POST …/claim`` is accepted now (``claimable``,
        ``reason``), this server's grace period, whether the opponent is connected (a live
        socket on this match or its player stream; gone less than 3 s, or a quarter of the
        grace if less, still counts, as a page reloading is back by then) or when it was
        last seen, and from when
        a claim by absence is accepted if the opponent stays away (``absence_claim_at_ms``;
        ``now_ms`` is the server's time of the answer). Against the house AI it is never
        claimable. Once the match is settled it is a 422 ``match_over``, as the claim is
        (the opponent's presence is not told after the match). A client offers the claim
        from this, not from a grace it assumes."""
        services = services_of(state)
        player = await services.authenticate(request.headers.get("authorization"))
        return await services.claim_status(match_id, player.id)

    @get(
        "/{match_id:str}/events",
        operation_id="getMatchEvents",
        summary="Page a match's event log",
        security=[{"bearer": []}, {}],
        responses=problem_responses(401, 403, 404),
    )
    async def get_events(
        self,
        state: State,
        request: AnyRequest,
        match_id: MatchId,
        after: Annotated[
            int,
            QueryParameter(
                gt=-1,
                description="The last version you have: the page starts after it. At most "
                "the match's `version` (past it: a 422 `version_out_of_range`) and "
                "9223372036854775807 (past that: a 422 `invalid_request`)",
            ),
        ] = 0,
        limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 200,
        watch_code: WatchCode = None,
    ) -> EventsPage:
        """A page of the log: redacted for you while the match runs, complete once over.
        The host of a match between two house AIs reads it as a spectator until it ends.
        Once a match is over anyone who may watch it reads the whole log, with no token
        (a private table's match needs its ``watch_code``), to check its fair deal.
        ``after`` is a version from 0 to the match's ``version`` (the events after it
        come); one past it is a 422 ``version_out_of_range``, as on the sockets."""
        refuse_null(request, "watch_code")
        services = services_of(state)
        record = await services.matches.play_ai(match_id)
        seat = await log_reader(services, request, record, watch_code)
        check_after(after, record.state.version)  # the store's: no process lags behind it
        page = record.events[after : after + limit]
        complete = record.state.settlement is not None
        if complete:
            events = [VersionedEvent(version=r.version, event=r.match_event) for r in page]
        else:
            events = versioned(page, seat)
        more = after + limit < len(record.events)
        return EventsPage(events=events, complete=complete, more=more)

    @get(
        "/{match_id:str}/replay",
        operation_id="getMatchReplay",
        summary="Replay a finished match",
        security=[{"bearer": []}, {}],
        responses=problem_responses(401, 403, 404, 409, 422),
    )
    async def get_replay(
        self,
        state: State,
        request: AnyRequest,
        match_id: MatchId,
        at: Annotated[int | None, QueryParameter(ge=1)] = None,
        watch_code: WatchCode = None,
    ) -> ReplayResponse:
        """The complete state (both hands, the stock) after event ``at`` of a finished
        match, for anyone who may watch it (no token needed; a private table's match
        needs its ``watch_code``); while it runs, its players are refused too."""
        refuse_null(request, "at")
        refuse_null(request, "watch_code")
        services = services_of(state)
        record = await services.matches.load(match_id)
        await log_reader(services, request, record, watch_code)
        if record.state.settlement is None:
            raise MatchNotFinished("replays show every hand, so only finished matches have one")
        last = record.state.version
        position = last if at is None else at
        if position > last:
            raise VersionOutOfRange(f"the match has {last} events; at must be 1..{last}")
        snapshot = record.state_at(position)
        hand = snapshot.hand
        arrangements = None if hand is None else (arrange(hand.hands[0]), arrange(hand.hands[1]))
        return ReplayResponse(at=position, state=snapshot, arrangements=arrangements)
