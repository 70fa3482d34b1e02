"""A player's blocks as a decider: the people it does not want to hear from or meet.

Blocking is one-way and personal, as on lichess: the blocker keeps a list of player ids
in a stream of its own (``blocks:<player>``), and nobody else is told of it, the
blocked least of all. Every rule of the list is decided here from the commands alone
(time arrives in them as ``now_ms``); two processes blocking for one player at once
decide on the same stream version and the store lets one append win, so the cap holds
however many processes serve the player.

What the service must tell the decider, because it is not in the stream, arrives in the
command too: whether the player named is a house AI (``house``). Whether an account
with that id exists at all is the service's question (a 404, as for a challenge).

What a block does elsewhere is decided where it applies, from facts the service reads
from the blocks projection and puts in those commands: a table refuses to seat a player
its host blocks (``domain.table``), a chat hides a message from an opponent who blocks
its author as if muted (``domain.chat``). Nothing here reaches into a match: a block
never changes a move, a clock or a result.
"""

from __future__ import annotations

from functools import reduce
from typing import ClassVar

import msgspec

from domain import errors

STREAM_PREFIX = "blocks:"
# A cap, so a list stays a small value: the whole of it is folded for each change, kept in
# the service's cache and answered in one unpaged GET (500 entries: some 60 KB of JSON).
# It is far more than one person needs against the few accounts that bother them; a new
# guest account costs a harasser one of the address's `creates` (rate-limited), and a
# list near the cap is a case for the server's operator, not for a longer list.
MAX_BLOCKED = 500


def stream_of(blocker: str) -> str:
    return STREAM_PREFIX + blocker


# --- events ------------------------------------------------------------------------------


class BlockEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    schema_version: ClassVar[int] = 1


class PlayerBlocked(BlockEvent, tag="player_blocked", frozen=True):
    """The stream's owner blocks ``player`` from ``blocked_ms`` on."""

    player: str
    blocked_ms: int


class PlayerUnblocked(BlockEvent, tag="player_unblocked", frozen=True):
    player: str
    unblocked_ms: int


AnyBlockEvent = PlayerBlocked | PlayerUnblocked


# --- commands ----------------------------------------------------------------------------


class BlockPlayer(msgspec.Struct, frozen=True):
    """``house``: the service's word that ``player`` is a house AI (``ai:<level>``)."""

    blocker: str
    player: str
    now_ms: int
    house: bool = False


class UnblockPlayer(msgspec.Struct, frozen=True):
    blocker: str
    player: str
    now_ms: int


AnyBlockCommand = BlockPlayer | UnblockPlayer


# --- state -------------------------------------------------------------------------------


class Blocked(msgspec.Struct, frozen=True):
    player: str
    since_ms: int


class BlockList(msgspec.Struct, frozen=True):
    """Whom a player blocks, in the order it blocked them; ``version`` is the stream's."""

    blocked: tuple[Blocked, ...] = ()
    version: int = 0

    def blocks(self, player: str) -> bool:
        return any(entry.player == player for entry in self.blocked)

    def entry(self, player: str) -> Blocked | None:
        return next((entry for entry in self.blocked if entry.player == player), None)


def decide(state: BlockList | None, command: AnyBlockCommand) -> list[BlockEvent]:
    """The events a command causes (none if it changes nothing), or a BlockError.

    Both commands are idempotent: blocking a player already blocked, or unblocking one
    who is not, records nothing and is no error (a retried request gets the same answer).
    """
    state = state or BlockList()
    if isinstance(command, BlockPlayer):
        if command.player == command.blocker:
            raise errors.CannotBlockSelf("a player cannot block itself")
        if command.house:
            raise errors.CannotBlockHouse(
                "the house AI cannot be blocked: it never challenges, joins or chats; "
                "leave its match or play it out"
            )
        if state.blocks(command.player):
            return []
        if len(state.blocked) >= MAX_BLOCKED:
            raise errors.TooManyBlocks(
                f"you already block {len(state.blocked)} players, the most one may "
                f"({MAX_BLOCKED}): unblock one (DELETE /v1/me/blocks/{{player_id}}) first"
            )
        return [PlayerBlocked(player=command.player, blocked_ms=command.now_ms)]
    if isinstance(command, UnblockPlayer):
        if not state.blocks(command.player):
            return []
        return [PlayerUnblocked(player=command.player, unblocked_ms=command.now_ms)]
    raise errors.BlockError(f"unknown command {type(command).__name__}")


def evolve(state: BlockList | None, event: BlockEvent) -> BlockList:
    """The list after one event; the only place it changes."""
    state = state or BlockList()
    version = state.version + 1
    if isinstance(event, PlayerBlocked):
        entry = Blocked(player=event.player, since_ms=event.blocked_ms)
        return BlockList(blocked=(*state.blocked, entry), version=version)
    if isinstance(event, PlayerUnblocked):
        kept = tuple(entry for entry in state.blocked if entry.player != event.player)
        return BlockList(blocked=kept, version=version)
    raise errors.BlockError(f"cannot fold {type(event).__name__}")


def fold(events: list[BlockEvent], state: BlockList | None = None) -> BlockList:
    return reduce(evolve, events, state or BlockList())
