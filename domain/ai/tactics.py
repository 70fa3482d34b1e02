"""Small facts every level needs: hand masks, meld membership, and finding a command."""

from __future__ import annotations

from collections.abc import Iterable

from domain.cards import CARD_BIT, CARD_VALUE, Card, to_mask
from domain.commands import (
    AnySeatCommand,
    BigGin,
    Discard,
    DrawDiscard,
    DrawStock,
    FinishLayoffs,
    Gin,
    Knock,
    LayOff,
    NextHand,
    PassUpCard,
    TakeUpCard,
)
from domain.melds import arrange_mask, deadwood_of_mask
from domain.views import PlayerView


def top_of_pile(view: PlayerView) -> Card | None:
    return view.discard_pile[-1] if view.discard_pile else None


def can_take_pile(view: PlayerView) -> bool:
    return any(isinstance(cmd, (TakeUpCard, DrawDiscard)) for cmd in view.legal)


def take_pile(view: PlayerView) -> AnySeatCommand:
    """Take the face-up card: the up-card in the courtesy phase, else the pile top."""
    kind = TakeUpCard if view.phase == "up_card" else DrawDiscard
    return kind(view.seat)


def thrown_by_me(view: PlayerView) -> frozenset[Card]:
    """The cards this seat has discarded this hand (public: every discard is face up)."""
    return frozenset(
        move.card
        for move in view.moves
        if move.seat == view.seat and move.action == "discard" and move.card is not None
    )


def decline_pile(view: PlayerView) -> AnySeatCommand:
    return PassUpCard(view.seat) if view.phase == "up_card" else DrawStock(view.seat)


def best_after_taking(mask: int, card: Card) -> int:
    """Least deadwood after taking ``card`` and discarding any other card."""
    return least_throwing_one(mask | CARD_BIT[card], mask)


NO_LIMIT = 1 << 30


def least_throwing_one(hand: int, choices: int, stop_at: int = -1) -> int:
    """Least deadwood of ``hand`` less one card of ``choices``.

    The search ends at the first throw that leaves ``stop_at`` or less (for
    yes-or-no questions).
    """
    best = NO_LIMIT
    while choices:
        low = choices & -choices
        choices ^= low
        dw = deadwood_of_mask(hand & ~low)
        if dw < best:
            best = dw
            if best <= stop_at:
                break
    return best


def in_meld(mask: int, card: Card) -> bool:
    """Whether ``card`` is melded in the best arrangement of the hand plus ``card``."""
    arrangement = arrange_mask(mask | CARD_BIT[card])
    return any(card in meld for meld in arrangement.melds)


def discardable(view: PlayerView) -> list[Card]:
    return [card for card in view.hand if card != view.taken]


def ending_command(view: PlayerView) -> AnySeatCommand | None:
    """Moves every level makes at once: big gin, gin, the next hand, the end of layoffs."""
    for cmd in view.legal:
        if isinstance(cmd, BigGin):
            return cmd
    gins = [cmd for cmd in view.legal if isinstance(cmd, Gin)]
    if gins:
        return max(gins, key=lambda cmd: CARD_VALUE[cmd.card])
    if view.phase == "hand_over":
        return NextHand(view.seat)
    return None


def knocks(view: PlayerView) -> list[Knock]:
    return [cmd for cmd in view.legal if isinstance(cmd, Knock)]


def best_knock(view: PlayerView) -> Knock | None:
    """The legal knock leaving the least deadwood (highest card thrown among equals)."""
    options = knocks(view)
    if not options:
        return None
    mask = to_mask(view.hand)
    return min(
        options,
        key=lambda k: (deadwood_of_mask(mask & ~CARD_BIT[k.card]), -CARD_VALUE[k.card], k.card),
    )


def best_layoff(view: PlayerView) -> AnySeatCommand:
    """The next step of the engine's least-deadwood layoff plan, else finish.

    Not a level's choice: the rules leave only a person free to keep more deadwood
    (docs/rules.md, laying off). Laying off only the cards that are deadwood now misses
    a card of the defender's own run that starts a chain onto the knocker's (7H 8H off
    7-8-9-TH onto 4-5-6H, leaving 9H TH for a set of nines). The plan is the one every
    defender's view carries, hints or not (the clock's stand-in has none).
    """
    plan = view.suggested_layoffs
    if plan is not None and plan.layoffs:
        card, meld = plan.layoffs[0]
        command = LayOff(view.seat, card, meld)
        if command in view.legal:
            return command
    return FinishLayoffs(view.seat)


def discard(view: PlayerView, card: Card) -> AnySeatCommand:
    return Discard(view.seat, card)


def masks(cards: Iterable[Card]) -> int:
    return to_mask(cards)
