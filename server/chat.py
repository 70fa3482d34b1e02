"""The chat service: post, mute and read a match's chat, a stream of its own.

Each post is decided from the chat's log and appended at the version it was decided
on. Two posts racing (from one process or several) cannot both pass the flood limit:
the loser's append conflicts, it reads the chat again and decides anew, so the limit
of ``domain.chat`` holds across every process that serves the match.

Who may post is the match's business: only a player holding a seat (the house AI has
no token, so it never chats). Anyone who may watch the match may read its chat.

Whether the opponent blocks the author is read for each post (server/blocks.py, the
projection caught up, so a block made on any process counts) and decided with it: the
message is recorded hidden from the opponent, as if muted (domain/chat.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from domain import chat as c
from infra.clock import now_ms
from infra.errors import ConcurrencyConflict, StreamNotFound
from infra.event_store import RecordedEvent
from infra.sql_event_store import SqlEventStore
from server.blocks import BlockService
from server.match_service import MatchService
from server.seats import seat_of

RACE_RETRIES = 8
CACHE_SIZE = 2000  # chats kept as last read; always caught up by version
RAW_TEXT_LIMIT = 2000  # characters sent, before cleaning; the 280 rule counts after it


class ChatMessage(msgspec.Struct, frozen=True):
    """One message as readers get it: no card, no view, only who said what and when.
    ``version`` is its number among the chat's messages (1, 2, 3...; not the match's
    version): muting and unmuting take no number, so nobody else can tell of them."""

    version: int
    seat: int
    text: str
    posted_at: str


def message_of(number: int, event: c.MessagePosted) -> ChatMessage:
    return ChatMessage(
        version=number,
        seat=event.seat,
        text=event.text,
        posted_at=datetime.fromtimestamp(event.posted_ms / 1000, UTC).isoformat(),
    )


class ChatRecord(msgspec.Struct, frozen=True):
    """A chat as read: its state, its stored events in stream order, and its messages
    alone, the n-th at ``posts[n - 1]``: readers page by that number, which no mute
    moves, never by the stream's version (which would show a mute as a gap)."""

    state: c.ChatState
    events: list[RecordedEvent]
    posts: list[c.MessagePosted]

    def messages(self, seat: int | None, after: int = 0) -> list[tuple[int, c.MessagePosted]]:
        """The messages numbered after ``after`` that ``seat`` (None: a spectator) may be
        shown, each with its number."""
        return [
            (number, post)
            for number, post in enumerate(self.posts[after:], start=after + 1)
            if c.visible_to(post, seat)
        ]


class ChatService:
    def __init__(
        self,
        store: SqlEventStore,
        matches: MatchService,
        blocks: BlockService,
        on_append: Callable[[str, int], None] | None = None,
    ) -> None:
        self.store = store
        self.matches = matches
        self.blocks = blocks
        self._on_append = on_append or (lambda stream_id, version: None)
        self._cache: OrderedDict[str, ChatRecord] = OrderedDict()

    async def load(self, match_id: str, at_least: int | None = None) -> ChatRecord:
        """The chat caught up with the store (empty if nobody has said anything)."""
        cached = self._cache.get(match_id) or ChatRecord(state=c.ChatState(), events=[], posts=[])
        if at_least is not None and cached.state.version >= at_least:
            return cached
        try:
            new = await self.store.read_stream(
                c.stream_of(match_id), after_version=cached.state.version
            )
        except StreamNotFound:
            new = []
        events: list[c.ChatEvent] = [r.event for r in new]  # type: ignore[misc]
        record = ChatRecord(
            state=c.fold(events, cached.state),
            events=[*cached.events, *new],
            posts=[*cached.posts, *(post for _, post in c.numbered(events))],
        )
        latest = self._cache.get(match_id)
        if latest is not None and latest.state.version > record.state.version:
            return latest  # a concurrent load got further
        self._cache[match_id] = record
        self._cache.move_to_end(match_id)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return record

    async def seat(self, match_id: str, player_id: str) -> int:
        """The player's seat in an existing match (MatchNotFound, NotYourMatch)."""
        return seat_of((await self.matches.load(match_id)).state, player_id)

    async def post(self, match_id: str, player_id: str, text: str) -> ChatMessage:
        """Record a message from the player's seat; it is returned as readers see it.
        If the opponent blocks the player now, it is recorded hidden from the opponent."""
        match = (await self.matches.load(match_id)).state
        seat = seat_of(match, player_id)
        opponent_blocks = await self.blocks.blocks(match.players[1 - seat], player_id)
        state, events = await self._decide(
            match_id,
            lambda: c.PostMessage(
                seat=seat, text=text, now_ms=now_ms(), opponent_blocks=opponent_blocks
            ),
        )
        (posted,) = events
        assert isinstance(posted, c.MessagePosted)
        return message_of(state.messages, posted)  # its number: the messages up to it

    async def mute(self, match_id: str, player_id: str, muted: bool) -> c.ChatState:
        """Mute (or unmute) the opponent for the player's seat; twice is the same as once."""
        seat = await self.seat(match_id, player_id)
        command = c.MuteOpponent if muted else c.UnmuteOpponent
        state, _ = await self._decide(match_id, lambda: command(seat=seat, now_ms=now_ms()))
        return state

    async def _decide(
        self, match_id: str, command_for: Callable[[], c.AnyChatCommand]
    ) -> tuple[c.ChatState, list[c.ChatEvent]]:
        """The chat's state after the command, and the events it recorded (none: it
        changed nothing). Folded here, not read back: once the append is done the answer
        is known, and a read that failed then answered 503 for a message already
        recorded, which a client's retry would post twice."""
        for _ in range(RACE_RETRIES):
            record = await self.load(match_id)
            events = c.decide(record.state, command_for())
            if not events:
                return record.state, []
            try:
                result = await self.store.append(
                    c.stream_of(match_id), record.state.version, events
                )
            except ConcurrencyConflict:
                continue  # the other seat (or this one, elsewhere) spoke first: decide again
            self._on_append(result.stream_id, result.last_version)
            return c.fold(events, record.state), events
        record = await self.load(match_id)
        c.decide(record.state, command_for())  # the refusal the chat now gives, if any
        raise ConcurrencyConflict("the chat kept changing; retry")
