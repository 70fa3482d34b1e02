"""Guest players: a display name in, an id and a one-time bearer token out."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated, Any

from litestar import Controller, Request, delete, get, patch, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody, QueryParameter

from domain.ai import LEVELS
from domain.deck import seed_commitment
from domain.errors import quoted, shortened
from domain.text import comparable, first_unclean, length, visible
from infra.players import Players
from server.auth import bearer_token, hash_token, new_token
from server.house_ai import AI_PREFIX, is_house_ai, unknown_level
from server.http.limits import rate_limited
from server.problems import NAMES_HELD, InvalidRequest, NotYou, PlayerNotFound, problem_responses
from server.schemas import (
    NAME_LENGTH,
    NAME_LENGTH_RULE,
    NAME_SENT_LIMIT,
    CreatePlayerRequest,
    OwnProfile,
    PlayerCreated,
    PlayerList,
    PlayerProfile,
    PlayerRating,
    PlayerStats,
    RenamePlayerRequest,
    TokenIssued,
    strict_body,
)
from server.services import services_of

# How the house AIs appear in lists (``ai:hard``, "hard") and on the page ("Computer (hard)"),
# compared without spaces: a name is compared in its `comparable` form (domain/text.py:
# NFKC, without what shows nothing, Cyrillic and Greek letters that look Latin as Latin).
HOUSE_NAMES = frozenset(LEVELS) | {f"{AI_PREFIX}{level}" for level in LEVELS}
HOUSE_PREFIXES = (AI_PREFIX, "computer(")


def check_name_length(name: str) -> None:
    """At most ``NAME_LENGTH`` characters as a person sees them (domain.text.length): the
    schema caps only the code points sent, which an accent typed apart doubles."""
    if (shown := length(name)) > NAME_LENGTH:
        raise InvalidRequest(
            f"name: at most {NAME_LENGTH} characters (counted after NFC composition); "
            f"this one has {shown}"
        )


def check_name(name: str) -> None:
    """A name someone can see, shown as typed, not too long, and not one a house AI goes
    by: a person must not pass for the house in listings and on the leaderboard. A name is
    kept as typed, so what a chat message would lose (domain/text.py: control and
    bidirectional characters, stray joiners, stacked marks) is refused here rather than
    removed."""
    check_name_length(name)
    unclean = first_unclean(name)
    if unclean is not None:
        raise InvalidRequest(f"name: holds {unclean}; send it without")
    if not visible(name):
        raise InvalidRequest("name: must have a visible letter, digit, punctuation or symbol")
    shown = comparable(name)
    if shown in HOUSE_NAMES or shown.startswith(HOUSE_PREFIXES):
        raise InvalidRequest(f"name: {name.strip()!r} is how a house AI is shown; choose another")


class PlayersController(Controller):
    path = "/v1/players"
    tags = ("players",)

    @post(
        "/",
        operation_id="createPlayer",
        summary="Create a guest player",
        status_code=201,
        responses=problem_responses(400, 413, 422, 429),
        before_request=rate_limited("creates", by_player=False),
    )
    async def create_player(
        self, state: State, request: Request[Any, Any, Any], data: JSONBody[CreatePlayerRequest]
    ) -> PlayerCreated:
        """Create a guest player; the token is shown only in this answer."""
        data = await strict_body(request, CreatePlayerRequest)
        check_name(data.name)
        services = services_of(state)
        token, expires_ms = new_token(), services.token_expiry()
        player = await services.players.create_player(
            uuid.uuid4().hex, data.name, hash_token(token), data.kind, expires_ms
        )
        commitment, committed_at = await next_commitment(services.players, player.id)
        profile = (await services.profiles([player]))[0]
        return PlayerCreated(
            id=player.id,
            name=player.name,
            kind=player.kind,
            token=token,
            seed_commitment=commitment,
            seed_committed_at=committed_at,
            token_expires_at=iso_ms(expires_ms),
            rating=profile.rating,
        )

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
        name: Annotated[
            str,
            QueryParameter(
                min_length=1,
                max_length=NAME_SENT_LIMIT,
                description=f"The start of a display name. {NAME_LENGTH_RULE}",
            ),
        ],
    ) -> PlayerList:
        """Players whose display name starts with ``name`` (any case), at most 20: names
        are neither unique nor fixed (only two players seen together, in a match or a
        challenge, never go by names that pass for each other), so challenge the one you
        mean by its id."""
        services = services_of(state)
        await services.authenticate(request.headers.get("authorization"))
        check_name_length(name)
        found = await services.players.named(name)
        return PlayerList(players=await services.profiles(found))

    @get(
        "/{player_id:str}",
        operation_id="getPlayer",
        summary="Read a player",
        responses=problem_responses(404),
    )
    async def get_player(self, state: State, player_id: FromPath[str]) -> PlayerProfile:
        """A player's id and display name (no token needed: a profile is public, as the
        leaderboard is, and anyone may make a guest player to read it). A house AI level
        (``ai:hard``), as seats and the leaderboard name it, is read here too: kind
        ``ai``, its level as its name."""
        services = services_of(state)
        if is_house_ai(player_id):
            if (unknown := unknown_level(player_id)) is not None:
                raise PlayerNotFound(unknown)
            (house,) = await services.player_refs([player_id])
            return PlayerProfile(id=house.id, name=house.name, kind=house.kind, rating=house.rating)
        player = await services.players.get_player(player_id)
        if player is None:
            raise PlayerNotFound(f"no player {quoted(player_id)}")
        return (await services.profiles([player]))[0]

    @patch(
        "/{player_id:str}",
        operation_id="renamePlayer",
        summary="Rename yourself",
        responses=problem_responses(
            401,
            403,
            404,
            409,
            413,
            429,
            described_as={
                **NAMES_HELD,
                403: "The token belongs to another player",
                409: "The name passes for that of a player you play or challenge (`name_taken`)",
            },
        ),
        security=[{"bearer": []}],
        # Counted with the moves: a rename holds the player's name still (a lock, and on
        # PostgreSQL a connection) while it reads every match and challenge it is in.
        before_request=rate_limited("actions"),
    )
    async def rename_player(
        self,
        state: State,
        request: Request[Any, Any, Any],
        player_id: FromPath[str],
        data: JSONBody[RenamePlayerRequest],
    ) -> PlayerProfile:
        """Change your own display name; your id, token and matches stay as they are.
        A name that passes for the name of a player you are seen with (an opponent in a
        match in play, the other end of an open challenge) is refused with 409
        ``name_taken``, as is a name no player may take (422): the old name stays."""
        services = services_of(state)
        caller = await services.authenticate(request.headers.get("authorization"))
        if player_id != caller.id:  # whatever the name: another player's is not yours to judge
            raise NotYou("a token can rename only its own player")
        data = await strict_body(request, RenamePlayerRequest)
        check_name(data.name)
        player = await services.tables.names.rename(player_id, data.name)
        if player is None:
            raise PlayerNotFound(f"no player {quoted(player_id)}")
        return (await services.profiles([player]))[0]

    @get(
        "/{player_id:str}/stats",
        operation_id="getPlayerStats",
        summary="A player's statistics",
        responses=problem_responses(404),
    )
    async def player_stats(self, state: State, player_id: FromPath[str]) -> PlayerStats:
        """A player's totals, from the statistics projection (no token needed); a house
        AI level keeps none (404), its rating being its record."""
        services = services_of(state)
        if is_house_ai(player_id):
            raise PlayerNotFound(
                f"a house AI level keeps no statistics; its rating is at "
                f"/v1/players/{shortened(player_id)}/rating"
            )
        if await services.players.get_player(player_id) is None:
            raise PlayerNotFound(f"no player {quoted(player_id)}")
        return await services.stats(player_id)

    @get(
        "/{player_id:str}/rating",
        operation_id="getPlayerRating",
        summary="A player's rating and its history",
        responses=problem_responses(404),
    )
    async def player_rating(
        self,
        state: State,
        player_id: FromPath[str],
        limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
    ) -> PlayerRating:
        """A player's Glicko-2 rating, deviation and volatility, and its rated matches,
        the newest first (no token needed). A house level (``ai:hard``) answers with its
        anchored record."""
        services = services_of(state)
        return await services.rating(player_id, limit)


@get(
    "/v1/me",
    operation_id="getMe",
    summary="Who your token belongs to",
    tags=["players"],
    security=[{"bearer": []}],
    responses=problem_responses(401),
)
async def get_me(state: State, request: Request[Any, Any, Any]) -> OwnProfile:
    """The player of the bearer token: a bot started with only its token learns its id.
    ``seed_commitment`` is the commitment of your next match's server seed."""
    services = services_of(state)
    holder = await services.authenticate(request.headers.get("authorization"))
    # The token's cache keeps the player as it was when the token was first checked:
    # after a rename it named the old name here. The stored row has the current one.
    player = await services.players.get_player(holder.id) or holder
    commitment, committed_at = await next_commitment(services.players, player.id)
    await services.projector.catch_up("ratings")  # read your own writes: a match just settled
    profile = (await services.profiles([player]))[0]
    return OwnProfile(
        id=player.id,
        name=player.name,
        kind=player.kind,
        seed_commitment=commitment,
        seed_committed_at=committed_at,
        rating=profile.rating,
    )


async def next_commitment(players: Players, player_id: str) -> tuple[str, str]:
    """The commitment of the player's next server seed, and when it was made (ISO 8601)."""
    found = await players.next_seed(player_id)
    if found is None:
        raise PlayerNotFound(f"no player {quoted(player_id)}")
    seed, committed_ms = found
    return seed_commitment(seed), datetime.fromtimestamp(committed_ms / 1000, UTC).isoformat()


def iso_ms(epoch_ms: int | None) -> str | None:
    if epoch_ms is None:
        return None
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).isoformat()


@post(
    "/v1/me/tokens/rotate",
    operation_id="rotateToken",
    summary="Rotate your token",
    tags=["players"],
    status_code=200,
    security=[{"bearer": []}],
    responses=problem_responses(401, 429),
    # Counted with the moves, not the creations: it replaces a token rather than adding
    # one, and a player whose creations ran out must still be able to rotate a leaked one.
    before_request=rate_limited("actions"),
)
async def rotate_token(state: State, request: Request[Any, Any, Any]) -> TokenIssued:
    """A new token for your player; the token you sent stops working at once (on every
    server process within a second), and the sockets it opened close with 4401. Your
    other tokens, if any, are untouched."""
    services = services_of(state)
    token, expires_ms = await services.rotate_token(
        bearer_token(request.headers.get("authorization"))
    )
    return TokenIssued(token=token, token_expires_at=iso_ms(expires_ms))


@post(
    "/v1/me/tokens",
    operation_id="issueToken",
    summary="Another token for your player",
    tags=["players"],
    status_code=201,
    security=[{"bearer": []}],
    responses=problem_responses(401, 429),
    before_request=rate_limited("creates"),
)
async def issue_token(state: State, request: Request[Any, Any, Any]) -> TokenIssued:
    """One more token for the same player, for a second device or a program of yours;
    your other tokens keep working. ``DELETE /v1/me/tokens`` revokes them all."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    token, expires_ms = await services.issue_token(player.id)
    return TokenIssued(token=token, token_expires_at=iso_ms(expires_ms))


@delete(
    "/v1/me/tokens",
    operation_id="revokeTokens",
    summary="Sign out everywhere",
    tags=["players"],
    status_code=204,
    security=[{"bearer": []}],
    responses=problem_responses(401),
)
async def revoke_tokens(state: State, request: Request[Any, Any, Any]) -> None:
    """Revoke every token of your player, this one included: each is refused with 401
    within a second on every server process and its sockets close with 4401. A guest
    player has no other way in, so rotate instead if you mean to go on playing."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    await services.revoke_tokens(player.id)
