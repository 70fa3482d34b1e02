"""Guesses at the opponent's hidden cards that fit what it has done this hand.

Each guess deals the hidden cards from the unseen ones, then lets the opponent
"improve" the guess once for every card it threw (each time it kept the better
cards of eleven, so its hand is better than a random one), and is
weighted by how well it explains the public history: a hand that melds with a card
the opponent threw or let pass is unlikely; a hand that explains a pick is likely.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from domain.ai.clock import Clock
from domain.ai.knowledge import Knowledge, bits, near, partners
from domain.melds import deadwood_of_mask

MAX_IMPROVEMENTS = 12  # improvements replayed per guess; more costs time and adds little
IMPROVE_RATE = 1.0  # improvements per opponent discard (0.3, 0.6, 1.0, 1.5 tried: 1.0 best)
EXTRA_IMPROVEMENTS = 1  # beyond those: the deal itself is not random to it
THREW_MELDING = 0.3  # likelihood factor: it threw a card that melds with this hand
PASSED_MELDING = 0.4  # it let pass a card that melds with this hand
TOOK_ALONE = 0.3  # it took a card that connects with nothing in this hand
# Likelihood factor for a guess that could have knocked although the opponent discarded.
# Before issue 21 it was 0.3 (an opponent knocks when it can); but players hold low
# hands for gin (medium with 5 or less), and the factor off (1.0) measured +0.4 a hand
# better against medium and no worse against the knock-at-once baseline
# (benchmarks/RESULTS-ai.md, session 15). ``--set opponent.COULD_HAVE_KNOCKED=0.3``
# plays hard v1.
COULD_HAVE_KNOCKED = 1.0


@dataclass(frozen=True, slots=True)
class Guess:
    hand: int  # the opponent's whole hand: guessed hidden cards plus the known ones
    weight: float


def guesses(know: Knowledge, rng: random.Random, count: int, clock: Clock) -> list[Guess]:
    """Up to ``count`` weighted guesses (fewer if the clock runs out; never none)."""
    pool = bits(know.unseen)
    hidden = min(know.hidden_count, len(pool))
    choices = round(know.opponent_threw.bit_count() * IMPROVE_RATE) + EXTRA_IMPROVEMENTS
    extra = max(0, min(choices, MAX_IMPROVEMENTS, len(pool) - hidden))
    out: list[Guess] = []
    for _ in range(count):
        if out and clock.expired():
            break
        picked = rng.sample(pool, hidden + extra)
        hand = know.opponent_known
        for index in picked[:hidden]:
            hand |= 1 << index
        for index in picked[hidden:]:
            hand = _improve(hand, 1 << index, know.opponent_known)
        weight = _likelihood(hand, know)
        if (
            COULD_HAVE_KNOCKED != 1.0
            and know.opponent_threw
            and deadwood_of_mask(hand) <= know.knock_limit
        ):
            weight *= COULD_HAVE_KNOCKED
        out.append(Guess(hand, weight))
    return out


def _improve(hand: int, drawn: int, keep: int) -> int:
    """The hand after drawing ``drawn`` and throwing the card that leaves least deadwood."""
    full = hand | drawn
    best_hand = hand
    best = deadwood_of_mask(hand)
    choices = full & ~keep & ~drawn
    while choices:
        low = choices & -choices
        choices ^= low
        dw = deadwood_of_mask(full & ~low)
        if dw < best:
            best, best_hand = dw, full & ~low
    return best_hand


def _likelihood(hand: int, know: Knowledge) -> float:
    weight = 1.0
    for index in bits(know.opponent_threw & ~hand):
        if partners(hand, index):
            weight *= THREW_MELDING
    for index in bits(know.opponent_passed & ~hand):
        if partners(hand, index):
            weight *= PASSED_MELDING
    for index in bits(know.opponent_took & know.opponent_known):
        rest = hand & ~(1 << index)
        if not partners(rest, index) and not near(rest, index):
            weight *= TOOK_ALONE
    return weight
