"""The chance of winning the match from a score, for play that depends on the score.

A hand worth 20 points is worth 20 points early in a match, but at 90–90 any win
ends it, and at 95–0 a safe knock for 5 wins it while a riskier hold for 30 more
only risks the match. So the hard level can price its knock-or-hold choice in the
change of its chance to win the match instead of in points (``hard.SCORE_AWARE``;
off: against baseline it measured +0.4% ± 0.9% in matches won over 1,500 paired
matches, no clear gain over points; benchmarks/RESULTS-ai.md).

``table(target)`` is ``W(mine, theirs)``, the chance of reaching ``target`` first,
by dynamic programming over the scores: each hand is won by either player alike
(washes only repeat the state, so they drop out), for points drawn from
``HAND_POINTS``, the spread of one hand's points measured once: hard against hard
and hard against baseline, 500 duplicate hands each (``python -m
benchmarks.hand_outcomes --a hard --b B --deals 250 --seed s16-ms-hist``), pooled,
as the level does not know who it plays (26 and up: mostly undercuts and gins).
Worked out once per target, by counts alone: no clock and no I/O, so the AI stays
deterministic.

Only ``first_to_target`` matches: there the boxes and the match bonus change the
totals but never who wins. Under ``highest_total`` the boxes decide too, which
this table does not model, so the level keeps pricing in points there.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from domain.views import PlayerView

# (points to the hand's winner, hands of the 971 decided ones that scored them), unbinned:
# near the target one point more or less can end the match
HAND_POINTS: tuple[tuple[int, int], ...] = (
    (1, 29), (2, 22), (3, 21), (4, 31), (5, 23), (6, 23), (7, 24), (8, 9), (9, 13), (10, 7),
    (11, 12), (12, 18), (13, 12), (14, 10), (15, 7), (16, 6), (17, 18), (18, 2), (19, 11),
    (20, 7), (21, 7), (22, 9), (23, 7), (24, 11), (25, 30), (26, 109), (27, 65), (28, 54),
    (29, 50), (30, 51), (31, 41), (32, 34), (33, 18), (34, 13), (35, 10), (36, 13), (37, 15),
    (38, 16), (39, 11), (40, 16), (41, 5), (42, 10), (43, 7), (44, 9), (45, 6), (46, 11),
    (47, 1), (48, 2), (49, 5), (51, 1), (52, 2), (55, 1), (56, 3), (57, 1), (58, 1), (59, 1),
    (62, 1), (63, 2), (64, 2), (65, 3), (67, 2), (69, 2), (71, 5), (73, 3),
)  # fmt: skip
MAX_TARGET = 150  # above: the table (target² cells, 0.1 s at 100) costs too much; use points

Worth = Callable[[int], float]


@lru_cache(maxsize=4)
def table(target: int) -> tuple[tuple[float, ...], ...]:
    """``W[mine][theirs]``: the chance to reach ``target`` first, both below it."""
    total = sum(share for _, share in HAND_POINTS)
    spread = [(points, share / total / 2) for points, share in HAND_POINTS]
    rows = [[0.0] * target for _ in range(target)]
    for mine in range(target - 1, -1, -1):
        row = rows[mine]
        for theirs in range(target - 1, -1, -1):
            chance = 0.0
            for points, half in spread:
                up = mine + points
                chance += half * (1.0 if up >= target else rows[up][theirs])
                down = theirs + points
                if down < target:
                    chance += half * row[down]
            row[theirs] = chance
    return tuple(tuple(row) for row in rows)


def win_chance(target: int, mine: int, theirs: int) -> float:
    """The chance to win the match from these scores (1 or 0 once one reached the target)."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    return table(target)[mine][theirs]


def worth(view: PlayerView) -> Worth | None:
    """Signed hand points (positive: to this seat) to the change in its match-win chance.

    None where the table does not apply (see the module's docstring).
    """
    rules = view.rules
    if rules.winner_by != "first_to_target" or rules.target > MAX_TARGET:
        return None
    target = rules.target
    mine, theirs = view.scores[view.seat], view.scores[1 - view.seat]
    now = win_chance(target, mine, theirs)

    def change(points: int) -> float:
        if points >= 0:
            return win_chance(target, mine + points, theirs) - now
        return win_chance(target, mine, theirs - points) - now

    return change
