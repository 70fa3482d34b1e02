"""Hard's own layoff search finds the same least deadwood as the engine's."""

from __future__ import annotations

import random

from domain.ai.showdown import least_deadwood, points
from domain.cards import from_mask, to_mask
from domain.melds import arrange_mask, best_layoffs


def test_least_deadwood_matches_the_engines_best_layoffs() -> None:
    rng = random.Random(11)
    compared = 0
    while compared < 400:
        picked = rng.sample(range(52), 20)
        knocker = sum(1 << i for i in picked[:10])
        defender = sum(1 << i for i in picked[10:])
        shown = arrange_mask(knocker)
        if not shown.melds:
            continue
        expected = best_layoffs(from_mask(defender), shown.melds).arrangement.deadwood_points
        assert least_deadwood(defender, shown.melds) == expected
        compared += 1


def test_open_runs_do_not_blow_up_and_score_an_undercut() -> None:
    # Three runs with open ends and a defender who can extend all of them: the
    # defender lays off everything and undercuts the knocker's ace.
    knocker = to_mask(["5C", "6C", "7C", "5D", "6D", "7D", "4S", "5S", "6S", "AH"])
    defender = to_mask(["3C", "4C", "8C", "9C", "3D", "4D", "8D", "2S", "3S", "7S"])
    assert least_deadwood(defender, arrange_mask(knocker).melds) == 0
    assert points(knocker, defender, undercut_bonus=25) == -(1 + 25)
