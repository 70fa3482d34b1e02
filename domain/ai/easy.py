"""Easy: plays sensible-looking moves with the weaknesses of a beginner.

It takes a face-up card only when that card lands in a meld, throws its highest
unmatched card (blind to pairs and near-runs, and to what the opponent collects),
now and then throws a random unmatched card instead, and knocks the moment it may.
"""

from __future__ import annotations

import random

from domain.ai import tactics
from domain.cards import CARD_VALUE, to_mask
from domain.commands import AnySeatCommand
from domain.melds import arrange_mask, best_discard
from domain.views import PlayerView

SLIP_CHANCE = 0.25  # how often it throws a random unmatched card instead of the highest


def play(view: PlayerView, rng: random.Random, budget_ms: float | None) -> AnySeatCommand:
    ending = tactics.ending_command(view)
    if ending is not None:
        return ending
    if view.phase in ("up_card", "draw"):
        top = tactics.top_of_pile(view)
        if (
            top is not None
            and tactics.can_take_pile(view)
            and tactics.in_meld(to_mask(view.hand), top)
        ):
            return tactics.take_pile(view)
        return tactics.decline_pile(view)
    if view.phase == "layoff":
        return tactics.best_layoff(view)
    knock = tactics.best_knock(view)
    if knock is not None:
        return knock
    return tactics.discard(view, _throw(view, rng))


def _throw(view: PlayerView, rng: random.Random) -> str:
    choices = tactics.discardable(view)
    unmatched = [card for card in arrange_mask(to_mask(view.hand)).deadwood if card in choices]
    if not unmatched:
        return best_discard(view.hand, view.taken)[0]
    if rng.random() < SLIP_CHANCE:
        return rng.choice(unmatched)
    return max(unmatched, key=lambda card: (CARD_VALUE[card], card))
