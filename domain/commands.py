"""Commands: what a seat asks to do, in the imperative; ``decide`` accepts or refuses.

Each command is a tagged, frozen struct, so a client's JSON action decodes into
exactly one of them and a misspelt field is refused rather than ignored.
"""

from __future__ import annotations

import msgspec

from domain.cards import Card
from domain.rules import Clock, Rules
from domain.seeds import ClientSeed


class Command(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    """Base of every command."""


class StartMatch(Command, tag="start_match", frozen=True):
    """Open a match; ``seed`` is kept secret until the match is settled.

    With ``client_seeds`` (one per seat) ``seed`` is the server seed committed to at
    ``seed_committed_ms`` and the deal is fair; without them ``seed`` alone fixes the
    dealer and every deck, and the match is practice.
    """

    match_id: str
    players: tuple[str, str]
    rules: Rules
    seed: str
    watch_code: str | None = None
    client_seeds: tuple[ClientSeed, ClientSeed] | None = None
    seed_committed_ms: int | None = None
    hints: bool = True
    rated: bool = False  # decided by domain.rating_policy.is_rated before the command
    clock: Clock | None = None
    host: str | None = None  # who started a match it does not play in, to watch it


class SeatCommand(Command, frozen=True):
    """A command made by one seat (0 or 1)."""

    seat: int


class TakeUpCard(SeatCommand, tag="take_up_card", frozen=True):
    pass


class PassUpCard(SeatCommand, tag="pass_up_card", frozen=True):
    pass


class DrawStock(SeatCommand, tag="draw_stock", frozen=True):
    pass


class DrawDiscard(SeatCommand, tag="draw_discard", frozen=True):
    pass


class Discard(SeatCommand, tag="discard", frozen=True):
    card: Card


Layout = tuple[tuple[Card, ...], ...]
"""The melds a knocker lays down; the cards kept that are in none are the deadwood."""


class Knock(SeatCommand, tag="knock", frozen=True):
    """Discard ``card`` and knock; with zero deadwood left this is gin.

    ``layout`` names the melds to lay down, one of the least-deadwood ones
    (``domain.knock_layout``); without it the engine picks the one that leaves the
    defender the fewest live layoffs.
    """

    card: Card
    layout: Layout | None = None


class Gin(SeatCommand, tag="gin", frozen=True):
    """Discard ``card`` and go gin; ``layout`` as for ``Knock`` (no layoffs follow)."""

    card: Card
    layout: Layout | None = None


class BigGin(SeatCommand, tag="big_gin", frozen=True):
    pass


class LayOff(SeatCommand, tag="lay_off", frozen=True):
    """Lay ``card`` on the knocker's meld number ``meld`` (the first that fits if omitted)."""

    card: Card
    meld: int | None = None


class FinishLayoffs(SeatCommand, tag="finish_layoffs", frozen=True):
    pass


class NextHand(SeatCommand, tag="next_hand", frozen=True):
    """Ready for the next hand after one was scored or washed; the second seat's deals it."""


class Resign(SeatCommand, tag="resign", frozen=True):
    """Give up the match at once, on any turn: the other seat wins (docs/rules.md)."""


AnySeatCommand = (
    TakeUpCard
    | PassUpCard
    | DrawStock
    | DrawDiscard
    | Discard
    | Knock
    | Gin
    | BigGin
    | LayOff
    | FinishLayoffs
    | NextHand
    | Resign
)
AnyCommand = StartMatch | AnySeatCommand
