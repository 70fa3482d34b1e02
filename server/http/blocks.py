"""Blocking a player over HTTP: block, unblock, and read whom you block.

What a block does is the lobby's and the chat's business (server/tables.py,
server/chat.py); here a player only changes and reads its own list, which nobody else
may read: a blocked player is never told.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, delete, get, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody
from msgspec import Meta

from domain.blocks import MAX_BLOCKED, Blocked
from server.http.limits import rate_limited
from server.http.tables import iso_at
from server.problems import problem_responses
from server.schemas import PlayerRef, strict_body
from server.services import Services, services_of

AnyRequest = Request[Any, Any, Any]


class BlockRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``player_id``: the id of the player to block (names are neither unique nor fixed)."""

    player_id: Annotated[str, Meta(min_length=1, max_length=100, pattern=r"^[^\x00]*$")]


class BlockedPlayer(msgspec.Struct, frozen=True):
    """A player you block, and since when (the first block: blocking again keeps it)."""

    player: PlayerRef
    blocked_at: str


class BlockList(msgspec.Struct, frozen=True):
    """Whom you block, the latest first; ``max_blocks``: how many one may block at once."""

    blocks: list[BlockedPlayer]
    max_blocks: int


async def _answers(services: Services, entries: list[Blocked]) -> list[BlockedPlayer]:
    """The entries as the API shows them, each player as everywhere else: its name, kind
    and rating (``player_refs``: one read of each; the rating was left out, and a rated
    person read as one with no rating record)."""
    refs = await services.player_refs([entry.player for entry in entries])
    return [
        BlockedPlayer(player=ref, blocked_at=iso_at(entry.since_ms))
        for ref, entry in zip(refs, entries, strict=True)
    ]


@post(
    "/v1/me/blocks",
    operation_id="blockPlayer",
    summary="Block a player",
    tags=["players"],
    status_code=200,
    security=[{"bearer": []}],
    responses=problem_responses(
        401,
        404,
        409,
        413,
        429,
        described_as={
            404: "No player has that id",
            409: "You block as many players as one may (`too_many_blocks`), or your list "
            "kept changing as it was written (`concurrency_conflict`): retry",
        },
    ),
    before_request=rate_limited("actions"),  # a change to your own list: counted with moves
)
async def block_player(
    state: State, request: AnyRequest, data: JSONBody[BlockRequest]
) -> BlockedPlayer:
    """Block a player: from now on they cannot challenge you (a 403 `opponent_refused`,
    which does not say why) nor take a seat at any table you host; their chat messages
    in your matches are not shown to you (as if muted); their challenges already open to
    you leave `GET /v1/challenges` (you may still decline one), and yours to them are
    withdrawn, as if you had cancelled them. A match being played
    goes on as it is. They are not told. Blocking a player again changes nothing and
    answers the same. You may block at most 500 players (409 `too_many_blocks`); not
    yourself (422 `cannot_block_self`) nor the house AI (422 `cannot_block_house_ai`)."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    data = await strict_body(request, BlockRequest)
    entry = await services.blocks.block(player.id, data.player_id)
    # left open, the blocked player's accept would be refused, and tell it of the block
    await services.tables.withdraw_challenges(player.id, data.player_id)
    return (await _answers(services, [entry]))[0]


@delete(
    "/v1/me/blocks/{player_id:str}",
    operation_id="unblockPlayer",
    summary="Unblock a player",
    tags=["players"],
    status_code=204,
    security=[{"bearer": []}],
    responses=problem_responses(401, 429),
    before_request=rate_limited("actions"),
)
async def unblock_player(state: State, request: AnyRequest, player_id: FromPath[str]) -> None:
    """Unblock a player: they may challenge you and join your tables again, and their
    later chat messages are shown to you (those sent while blocked stay hidden). Unblocking
    a player you do not block changes nothing and is no error (204 either way)."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    await services.blocks.unblock(player.id, player_id)


@get(
    "/v1/me/blocks",
    operation_id="listBlocks",
    summary="Whom you block",
    tags=["players"],
    security=[{"bearer": []}],
    responses=problem_responses(401),
)
async def list_blocks(state: State, request: AnyRequest) -> BlockList:
    """The players you block, the latest first, each with when you blocked them; nobody
    else can read this list."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    listed = await services.blocks.load(player.id)
    return BlockList(
        blocks=await _answers(services, list(reversed(listed.blocked))), max_blocks=MAX_BLOCKED
    )
