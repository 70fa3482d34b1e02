"""A match's chat as a decider: the two seats post messages and may mute each other.

The chat is a stream of its own (``chat:<match id>``), so the game's log stays the
game's and a chat message never moves the match's version. Every rule is decided here
from the commands alone: the text is cleaned (domain/text.py: control, format and
bidirectional characters removed, stacked marks cut), must show something and is measured, and the flood limit counts the seat's recent posts
by the times the commands carry (``now_ms``). Two processes posting at once decide on
the same stream version and the store lets one append win; the other decides again on
what it finds, so the limit holds however many processes serve the match.

A mute is personal: the muter is not shown the opponent's later messages, which are
still recorded (``hidden_from`` names the seat that must not see them) and shown to
spectators and to their author. Whether a seat is muted is told to nobody else.

A block (domain/blocks.py) hides messages the same way, without a mute: a post whose
author the opponent blocks is recorded hidden from the opponent. It is a fact the
service reads when the message is posted and gives in the command, so a block hides
what is said after it, as a mute does, and unblocking shows only later messages.

Mutes are recorded in the chat's stream, so a post and a mute are ordered by the store
and a post is decided on the mute it follows; but readers never see the stream's
versions. They number the messages alone (``ChatState.messages``, ``numbered``): a
mute takes no number, so the muted seat and spectators cannot find it as a gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from typing import ClassVar

import msgspec

from domain import errors
from domain.text import MAX_MARKS as MAX_MARKS  # combining marks kept in a row
from domain.text import clean, visible

STREAM_PREFIX = "chat:"
MAX_LENGTH = 280  # characters (code points), after cleaning
BURST = 5  # messages a seat may post...
WINDOW_MS = 10_000  # ...within this many milliseconds
CANNED = (
    "Hello!",
    "Good luck",
    "Nice knock",
    "Nice gin",
    "Well played",
    "Oops",
    "Thanks",
    "Good game",
)


def stream_of(match_id: str) -> str:
    return STREAM_PREFIX + match_id


# --- events ------------------------------------------------------------------------------


class ChatEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    schema_version: ClassVar[int] = 1


class MessagePosted(ChatEvent, tag="chat_message_posted", frozen=True):
    """A seat said ``text`` (already cleaned); ``hidden_from`` is the opponent if it had
    muted the author then: the message is never delivered to that seat."""

    seat: int
    text: str
    posted_ms: int
    hidden_from: int | None = None


class OpponentMuted(ChatEvent, tag="chat_opponent_muted", frozen=True):
    seat: int  # the seat that muted the other
    muted_ms: int


class OpponentUnmuted(ChatEvent, tag="chat_opponent_unmuted", frozen=True):
    seat: int
    unmuted_ms: int


AnyChatEvent = MessagePosted | OpponentMuted | OpponentUnmuted


# --- commands ----------------------------------------------------------------------------


class PostMessage(msgspec.Struct, frozen=True):
    """``opponent_blocks``: the service's word that the opponent blocks the author now
    (domain/blocks.py); the message is then hidden from it, as from a muter."""

    seat: int
    text: str
    now_ms: int
    opponent_blocks: bool = False


class MuteOpponent(msgspec.Struct, frozen=True):
    seat: int
    now_ms: int


class UnmuteOpponent(msgspec.Struct, frozen=True):
    seat: int
    now_ms: int


AnyChatCommand = PostMessage | MuteOpponent | UnmuteOpponent


# --- state -------------------------------------------------------------------------------


class ChatState(msgspec.Struct, frozen=True):
    """What the rules need: who has muted whom, and each seat's latest post times.
    ``version`` is the stream's (mutes count; the store's business only), ``messages``
    the number of messages posted, the chat's version as every reader is told it."""

    version: int = 0
    messages: int = 0
    muted: tuple[bool, bool] = (False, False)  # muted[s]: seat s has muted the other
    recent: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # the last BURST post times


def decide(state: ChatState | None, command: AnyChatCommand) -> list[ChatEvent]:
    """The events a command causes (none if it changes nothing), or a ChatError."""
    state = state or ChatState()
    if command.seat not in (0, 1):
        raise errors.ChatError("only the match's two seats chat")
    if isinstance(command, PostMessage):
        return [_post(state, command)]
    if isinstance(command, MuteOpponent):
        if state.muted[command.seat]:
            return []
        return [OpponentMuted(seat=command.seat, muted_ms=command.now_ms)]
    if isinstance(command, UnmuteOpponent):
        if not state.muted[command.seat]:
            return []
        return [OpponentUnmuted(seat=command.seat, unmuted_ms=command.now_ms)]
    raise errors.ChatError(f"unknown command {type(command).__name__}")


def _post(state: ChatState, cmd: PostMessage) -> MessagePosted:
    text = clean(cmd.text)
    if not text:
        raise errors.EmptyMessage("the message is empty once control characters are removed")
    if not visible(text):
        raise errors.EmptyMessage(
            "the message shows nothing: blank, filler and joining characters alone are not text"
        )
    if len(text) > MAX_LENGTH:
        raise errors.MessageTooLong(
            f"a message is at most {MAX_LENGTH} characters; this one has {len(text)}"
        )
    # A post time after now (another process's clock runs ahead) still counts.
    in_window = [t for t in state.recent[cmd.seat] if t > cmd.now_ms - WINDOW_MS]
    if len(in_window) >= BURST:
        wait = min(in_window) + WINDOW_MS - cmd.now_ms
        raise errors.ChatFlood(
            f"at most {BURST} messages per {WINDOW_MS // 1000} seconds; wait a moment",
            retry_after_ms=max(1, wait),
        )
    opponent = 1 - cmd.seat
    return MessagePosted(
        seat=cmd.seat,
        text=text,
        posted_ms=cmd.now_ms,
        hidden_from=opponent if state.muted[opponent] or cmd.opponent_blocks else None,
    )


def evolve(state: ChatState | None, event: ChatEvent) -> ChatState:
    """The chat after one event; the only place it changes."""
    state = state or ChatState()
    version = state.version + 1
    if isinstance(event, MessagePosted):
        recent = list(state.recent)
        recent[event.seat] = (*recent[event.seat], event.posted_ms)[-BURST:]
        return ChatState(
            version=version,
            messages=state.messages + 1,
            muted=state.muted,
            recent=(recent[0], recent[1]),
        )
    if isinstance(event, OpponentMuted | OpponentUnmuted):
        muted = list(state.muted)
        muted[event.seat] = isinstance(event, OpponentMuted)
        return msgspec.structs.replace(state, version=version, muted=(muted[0], muted[1]))
    raise errors.ChatError(f"cannot fold {type(event).__name__}")


def fold(events: list[ChatEvent], state: ChatState | None = None) -> ChatState:
    return reduce(evolve, events, state or ChatState())


def numbered(events: Sequence[ChatEvent], first: int = 1) -> list[tuple[int, MessagePosted]]:
    """The messages among a chat's events, each with its number as readers see it
    (``first`` for the first one): mutes and unmutes are skipped and take no number."""
    posts = [event for event in events if isinstance(event, MessagePosted)]
    return list(enumerate(posts, start=first))


def visible_to(event: MessagePosted, seat: int | None) -> bool:
    """Whether a seat (None: a spectator) is shown a message: all but those it muted."""
    return seat is None or event.hidden_from != seat
