"""Positions for AI tests, reached by random legal play through the real engine."""

from __future__ import annotations

import random
from collections.abc import Iterator

from domain.commands import AnySeatCommand, Discard, Knock, NextHand, StartMatch
from domain.match import apply, legal_commands
from domain.melds import best_discard
from domain.rules import make_rules
from domain.state import MatchState


def random_positions(
    seed: int, count: int, rules: str = "arcadia"
) -> Iterator[tuple[MatchState, int]]:
    """``count`` (state, seat to act) pairs from random matches, every phase included.

    Pure random play rarely gets near a knock, so half the discards are the engine's
    best discard and a seat that may knock does so half the time: that brings layoff
    and hand-over positions into the sample (layoff positions are always kept).
    """
    rng = random.Random(seed)
    produced = 0
    match_number = 0
    while True:
        match_number += 1
        start = StartMatch(
            match_id=f"pos-{seed}-{match_number}",
            players=("north", "south"),
            rules=make_rules(rules),
            seed=f"{seed}-{match_number}",
        )
        state, _ = apply(None, start)
        while state.settlement is None:
            seat = rng.choice(state.to_act())
            if state.phase == "layoff" or rng.random() < 0.3:
                yield state, seat
                produced += 1
                if produced >= count:
                    return
            state, _ = apply(state, _random_command(state, seat, rng))
            if state.phase == "hand_over" and len(state.to_act()) == 1:
                # The other seat's acknowledgement, with no draw from rng: the sample
                # stays the one it was when one seat's next_hand dealt at once.
                state, _ = apply(state, NextHand(state.to_act()[0]))


def _random_command(state: MatchState, seat: int, rng: random.Random) -> AnySeatCommand:
    legal = legal_commands(state, seat)
    knocks = [cmd for cmd in legal if isinstance(cmd, Knock)]
    if knocks and rng.random() < 0.5:
        return rng.choice(knocks)
    hand = state.hand
    if hand is not None and state.phase == "discard" and rng.random() < 0.5:
        return Discard(seat, best_discard(hand.hands[seat], hand.taken)[0])
    return rng.choice(legal)
