"""The state of a match, folded from its events: frozen values, never mutated.

Immutable values sit in no reference cycle, so they are ``gc=False``: a server keeps a
state per match for hours, and the collector need not count or walk them (issue 22).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.cards import Card
from domain.events import HandScored, HandWashed, Knocked, MatchSettled
from domain.melds import Meld
from domain.rules import Rules

Phase = Literal["up_card", "draw", "discard", "layoff", "hand_over", "match_over"]
MoveAction = Literal[
    "take_up_card",
    "pass_up_card",
    "draw_stock",
    "draw_discard",
    "discard",
    "knock",
    "lay_off",
]


class Move(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One public step of a hand; ``card`` is None where the card is hidden."""

    seat: int
    action: MoveAction
    card: Card | None = None


class HandState(msgspec.Struct, frozen=True, gc=False):
    number: int
    dealer: int
    deck: tuple[Card, ...]
    salt: str
    commitment: str
    knock_limit: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    stock: tuple[Card, ...]
    pile: tuple[Card, ...]
    phase: Phase
    turn: int
    up_card_passes: int = 0
    stock_only: bool = False
    taken: Card | None = None
    known: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    moves: tuple[Move, ...] = ()
    knock: Knocked | None = None
    knock_melds: tuple[Meld, ...] = ()
    layoffs: tuple[tuple[Card, int], ...] = ()
    acknowledged: tuple[int, ...] = ()  # seats that have seen the result (hand_over)
    pile_draws: int = 0  # face-up cards taken this hand, the up-card included

    @property
    def up_card(self) -> Card:
        return self.deck[20]


class MatchState(msgspec.Struct, frozen=True, gc=False):
    match_id: str
    players: tuple[str, str]
    rules: Rules
    seed: str
    seed_commitment: str
    watch_code: str | None = None  # None: anyone who knows the match id may watch
    rated: bool = False
    version: int = 0
    scores: tuple[int, int] = (0, 0)
    boxes: tuple[int, int] = (0, 0)
    hand: HandState | None = None
    hands_played: int = 0
    last_result: HandScored | HandWashed | None = None
    settlement: MatchSettled | None = None
    client_seeds: tuple[str, str] | None = None  # None: ``seed`` alone fixes the deal
    practice: bool = False  # a chosen seed or custom rules: no statistics, no rating
    hints: bool = True  # the engine's advice in the seats' views

    @property
    def phase(self) -> Phase:
        if self.settlement is not None:
            return "match_over"
        assert self.hand is not None
        return self.hand.phase

    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now: one in play; between hands, each that has not yet
        acknowledged the result; none at the end."""
        phase = self.phase
        if phase == "match_over":
            return ()
        assert self.hand is not None
        if phase == "hand_over":
            return tuple(seat for seat in (0, 1) if seat not in self.hand.acknowledged)
        return (self.hand.turn,)
