"""Baseline: Todd Neller's ``SimpleGinRummyPlayer``, the EAAI-2021 challenge's yardstick.

Every entry of that challenge was measured against this player, so a level measured
against it can be compared with the published results. It follows the original's
code, not a summary of it:

- the face-up card (the up-card offer and every later draw) is taken exactly when it
  would be part of *some* meld of the hand plus that card (the original loops over
  ``cardsToAllMelds``, not only the best arrangement's melds); otherwise the stock;
- the discard is one leaving the least deadwood (which is the highest unmatched card
  unless breaking a meld is cheaper), never the face-up card just taken, ties broken
  at random (here the seeded rng, so a match replays), and never a card that would
  repeat a (card drawn, card thrown) pair it already played this hand: the
  original's own guard against two players swapping the same cards for ever;
- it knocks as soon as the deadwood left by that discard is within the knock limit
  (gin when nothing is left; big gin, which the challenge's rules lack, when legal);
- as defender it lays off to the least deadwood, as every defender but a person does
  under this server's rules (the challenge's engine laid off each player's unmatched
  cards that fit, which misses a chain started from the defender's own run; it changes
  8 of 645 of its defences measured).
"""

from __future__ import annotations

import random

from domain.ai import tactics
from domain.cards import CARD_BIT, CARD_INDEX, Card
from domain.commands import AnySeatCommand, Gin, Knock
from domain.melds import deadwood_of_mask
from domain.views import PlayerView


def play(view: PlayerView, rng: random.Random, budget_ms: float | None) -> AnySeatCommand:
    ending = tactics.ending_command(view)
    if ending is not None:
        return ending
    if view.phase in ("up_card", "draw"):
        top = tactics.top_of_pile(view)
        if top is not None and tactics.can_take_pile(view) and in_some_meld(view.hand, top):
            return tactics.take_pile(view)
        return tactics.decline_pile(view)
    if view.phase == "layoff":
        return tactics.best_layoff(view)
    card = choose_discard(view, rng)
    for command in view.legal:
        if isinstance(command, (Knock, Gin)) and command.card == card:
            return command
    return tactics.discard(view, card)


def in_some_meld(hand: tuple[Card, ...], card: Card) -> bool:
    """Whether ``card`` and cards of ``hand`` can form any set or run (of three or more)."""
    mask = tactics.masks(hand)
    suit, rank = divmod(CARD_INDEX[card], 13)
    same_rank = sum(1 for s in range(4) if s != suit and mask >> (s * 13 + rank) & 1)
    if same_rank >= 2:
        return True

    def held(r: int) -> bool:
        return 0 <= r < 13 and bool(mask >> (suit * 13 + r) & 1)

    return (
        (held(rank - 2) and held(rank - 1))
        or (held(rank - 1) and held(rank + 1))
        or (held(rank + 1) and held(rank + 2))
    )


def played_pairs(view: PlayerView) -> tuple[set[tuple[Card, Card]], Card | None]:
    """The (drawn, thrown) pairs this seat played this hand, and the card it drew last.

    The seat sees its own stock draws in ``moves``, so the pairs are exactly the ones
    the original records; none is a hidden fact about the opponent.
    """
    pairs: set[tuple[Card, Card]] = set()
    drawn: Card | None = None
    for move in view.moves:
        if move.seat != view.seat or move.card is None:
            continue
        if move.action in ("take_up_card", "draw_discard", "draw_stock"):
            drawn = move.card
        elif move.action == "discard" and drawn is not None:
            pairs.add((drawn, move.card))
    return pairs, drawn


def choose_discard(view: PlayerView, rng: random.Random) -> Card:
    """A card leaving the least deadwood, at random among equals, not repeating a pair."""
    pairs, drawn = played_pairs(view)
    choices = tactics.discardable(view)
    fresh = [card for card in choices if drawn is None or (drawn, card) not in pairs]
    mask = tactics.masks(view.hand)
    scored = {card: deadwood_of_mask(mask & ~CARD_BIT[card]) for card in fresh or choices}
    least = min(scored.values())
    return rng.choice(sorted(card for card, points in scored.items() if points == least))
