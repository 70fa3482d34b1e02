"""A match's chat over HTTP: its two players post and mute; anyone who may watch reads.

Live, each message also arrives as a ``chat`` frame on the match's ``live`` and
``watch`` sockets (``openapi/asyncapi.yaml``).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, get, post
from litestar.datastructures import State
from litestar.params import FromPath, JSONBody, QueryParameter
from msgspec import Meta

from domain import chat as c
from domain.state import MatchState
from server.chat import RAW_TEXT_LIMIT, ChatMessage, message_of
from server.house_ai import is_house_ai
from server.http.limits import rate_limited
from server.http.matches import refuse_null
from server.problems import problem_responses
from server.schemas import NON_NEGATIVE, strict_body
from server.services import Services, services_of
from server.ws.watch import require_watchable

AnyRequest = Request[Any, Any, Any]
MatchId = FromPath[str]


class PostChatRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``text``: cleaned as it is recorded (control and bidirectional-override characters
    removed, spaces collapsed); at most 280 characters after that, and not empty."""

    text: Annotated[str, Meta(max_length=RAW_TEXT_LIMIT)]


class ChatPage(msgspec.Struct, frozen=True):
    """Messages after ``after``, oldest first, as the reader may see them (a seat is not
    shown the messages it muted). ``version`` is the chat's latest version, the number
    of messages posted (muting and unmuting do not count); ask again with ``after`` =
    the last message's version while ``more`` is true. ``seat`` and ``muted`` (whether
    you muted your opponent) are null for a spectator."""

    match_id: str
    version: int
    messages: list[ChatMessage]
    more: bool
    seat: int | None
    muted: bool | None


class ChatSettings(msgspec.Struct, frozen=True):
    """Your seat and whether you have muted your opponent (told to nobody else)."""

    match_id: str
    seat: int
    muted: bool


class CannedMessages(msgspec.Struct, frozen=True):
    messages: list[str]


async def _reader_seat(
    services: Services, request: AnyRequest, state: MatchState, watch_code: str | None
) -> int | None:
    """The caller's seat if its token holds one; otherwise it reads as a spectator."""
    header = request.headers.get("authorization")
    if header:
        player = await services.authenticate(header)
        for seat, holder in enumerate(state.players):
            if holder == player.id and not is_house_ai(holder):
                return seat
    require_watchable(state, watch_code)
    return None


def _settings(match_id: str, state: c.ChatState, seat: int) -> ChatSettings:
    return ChatSettings(match_id=match_id, seat=seat, muted=state.muted[seat])


@get(
    "/v1/chat/canned",
    operation_id="getCannedMessages",
    summary="The canned chat messages the page offers",
    tags=["chat"],
    responses=problem_responses(),
    sync_to_thread=False,
)
def get_canned_messages() -> CannedMessages:
    """Short messages a player can send with one click ("Good game", "Nice knock"); any
    other text may be posted too."""
    return CannedMessages(messages=list(c.CANNED))


@get(
    "/v1/matches/{match_id:str}/chat",
    operation_id="getChat",
    summary="Read a match's chat",
    tags=["chat"],
    security=[{}, {"bearer": []}],
    responses=problem_responses(401, 403, 404),
)
async def get_chat(
    state: State,
    request: AnyRequest,
    match_id: MatchId,
    after: Annotated[int, QueryParameter(gt=NON_NEGATIVE)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=200)] = 100,
    watch_code: Annotated[str | None, QueryParameter(max_length=100)] = None,
) -> ChatPage:
    """The chat, a page at a time. A seat (bearer token) sees every message but those it
    muted; anyone else reads as a spectator, with no token, and a match from a private
    table needs its watch code."""
    refuse_null(request, "watch_code")
    services = services_of(state)
    match = await services.matches.load(match_id)
    seat = await _reader_seat(services, request, match.state, watch_code)
    record = await services.chat.load(match_id)
    shown = record.messages(seat, after)
    return ChatPage(
        match_id=match_id,
        version=record.state.messages,
        messages=[message_of(number, post) for number, post in shown[:limit]],
        more=len(shown) > limit,
        seat=seat,
        muted=record.state.muted[seat] if seat is not None else None,
    )


@post(
    "/v1/matches/{match_id:str}/chat",
    operation_id="postChat",
    summary="Say something to your opponent",
    tags=["chat"],
    status_code=201,
    security=[{"bearer": []}],
    responses=problem_responses(
        400,
        401,
        403,
        404,
        409,
        413,
        429,
        described_as={403: "The caller holds no seat in this match (spectators only read)"},
    ),
    before_request=rate_limited("actions"),  # counted with moves: many matches buy no budget
)
async def post_chat(
    state: State, request: AnyRequest, match_id: MatchId, data: JSONBody[PostChatRequest]
) -> ChatMessage:
    """Post a message from your seat, as recorded (cleaned). At most 5 messages per 10
    seconds per seat: beyond that a 429 ``chat_flood`` with ``Retry-After``, and nothing
    recorded. Each message also counts against the player's rate limit for moves
    (``rate_limited``), so chatting in many matches at once gains nothing. Any player may chat at any time in the match, after it ends too."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    data = await strict_body(request, PostChatRequest)
    return await services.chat.post(match_id, player.id, data.text)


@post(
    "/v1/matches/{match_id:str}/chat/mute",
    operation_id="muteOpponent",
    summary="Stop seeing your opponent's messages",
    tags=["chat"],
    status_code=200,
    security=[{"bearer": []}],
    responses=problem_responses(401, 403, 404, 409, 429),
    before_request=rate_limited("actions"),  # each one is recorded: counted with the moves
)
async def mute_opponent(state: State, request: AnyRequest, match_id: MatchId) -> ChatSettings:
    """Your opponent's later messages are not shown to you (over HTTP or a socket); they
    are still recorded, and shown to spectators. Your opponent is not told."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    seat = await services.chat.seat(match_id, player.id)
    return _settings(match_id, await services.chat.mute(match_id, player.id, True), seat)


@post(
    "/v1/matches/{match_id:str}/chat/unmute",
    operation_id="unmuteOpponent",
    summary="See your opponent's messages again",
    tags=["chat"],
    status_code=200,
    security=[{"bearer": []}],
    responses=problem_responses(401, 403, 404, 409, 429),
    before_request=rate_limited("actions"),
)
async def unmute_opponent(state: State, request: AnyRequest, match_id: MatchId) -> ChatSettings:
    """Messages posted from now on are shown to you; those posted while muted stay hidden."""
    services = services_of(state)
    player = await services.authenticate(request.headers.get("authorization"))
    seat = await services.chat.seat(match_id, player.id)
    return _settings(match_id, await services.chat.mute(match_id, player.id, False), seat)
