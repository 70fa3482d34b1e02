"""Glicko-2 on real play: thousands of short matches between house levels of known order.

Every pair of ``random``, ``easy``, ``baseline`` and ``medium`` plays the same number of
matches to 25 points (a short target, so the test stays cheap), seats alternating, in
one shuffled order, a minute apart, each match its own rating period as on the server.
The ratings must come out in the levels' measured order, and the chance Glicko gives
each pairing (``expected_score``) must match the share of matches it really won,
within the observation's binomial error and the ratings' own deviations.

The measured order: random never beats the others; easy is below baseline and medium
(README: baseline wins 66% and medium 64% of matches to 100 against easy); baseline
and medium are level (49% over 400 matches), so the test does not order those two.
"""

from __future__ import annotations

import itertools
import math
import random

from domain.ai import choose
from domain.commands import NextHand, StartMatch
from domain.match import apply
from domain.rating import PERIOD_SECONDS, Rating, expected_score, update
from domain.rules import make_rules
from domain.views import player_view

LEVELS = ("random", "easy", "baseline", "medium")
MATCHES_PER_PAIR = 350  # 2,100 matches: about 20 s on a quiet 2-core machine
RULES = make_rules("arcadia", target=25)
MINUTE = 60 / PERIOD_SECONDS  # the rating periods between two matches a minute apart


def _winner(levels: tuple[str, str], seed: str) -> int:
    state, _ = apply(None, StartMatch(match_id=seed, players=levels, rules=RULES, seed=seed))
    while state.settlement is None:
        if state.phase == "hand_over":
            state, _ = apply(apply(state, NextHand(seat=0))[0], NextHand(seat=1))
            continue
        seat = state.to_act()[0]
        command = choose(levels[seat], player_view(state, seat), f"{seed}:{seat}")  # type: ignore[arg-type]
        state, _ = apply(state, command)
    return state.settlement.winner


def test_ratings_order_the_levels_and_predict_their_results() -> None:
    pairs = list(itertools.combinations(LEVELS, 2))
    schedule = [(pair, i) for pair in pairs for i in range(MATCHES_PER_PAIR)]
    random.Random("ladder").shuffle(schedule)
    ratings = {level: Rating() for level in LEVELS}
    won = dict.fromkeys(pairs, 0)
    for (a, b), i in schedule:
        a_seat = i % 2
        seats = (a, b) if a_seat == 0 else (b, a)
        a_won = float(_winner(seats, f"ladder:{a}:{b}:{i}") == a_seat)
        before_a, before_b = ratings[a], ratings[b]
        ratings[a] = update(before_a, [(before_b, a_won)], elapsed=MINUTE)
        ratings[b] = update(before_b, [(before_a, 1.0 - a_won)], elapsed=MINUTE)
        won[(a, b)] += int(a_won)
    r = {level: rating.rating for level, rating in ratings.items()}
    assert r["random"] < r["easy"] < min(r["baseline"], r["medium"]), ratings
    for (a, b), wins in won.items():
        observed = wins / MATCHES_PER_PAIR
        expected = expected_score(ratings[a], ratings[b])
        # the observation's binomial error, and how far E moves when the ratings move by
        # their deviations (dE/dr = ln(10)/400 * E(1-E) on the 400-point logistic scale)
        sampling = math.sqrt(max(expected * (1 - expected), 1e-4) / MATCHES_PER_PAIR)
        spread = math.hypot(ratings[a].deviation, ratings[b].deviation)
        rating_error = math.log(10) / 400 * expected * (1 - expected) * spread
        assert abs(observed - expected) <= 3 * math.hypot(sampling, rating_error), (
            a,
            b,
            observed,
            expected,
            ratings,
        )
