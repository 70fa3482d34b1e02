"""Scoring a hand and settling a match, straight from the table in docs/rules.md."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.events import HandOutcome, KnockKind
from domain.rules import Rules


class HandPoints(msgspec.Struct, frozen=True):
    outcome: HandOutcome
    knocker_wins: bool
    points: int


def score_hand(
    rules: Rules, kind: KnockKind, knocker_deadwood: int, defender_deadwood: int
) -> HandPoints:
    """Who scores and how much; a tie in deadwood is an undercut."""
    if kind == "big_gin":
        assert rules.big_gin_bonus is not None
        return HandPoints("big_gin", True, rules.big_gin_bonus + defender_deadwood)
    if kind == "gin":
        return HandPoints("gin", True, rules.gin_bonus + defender_deadwood)
    if knocker_deadwood < defender_deadwood:
        return HandPoints("knock", True, defender_deadwood - knocker_deadwood)
    return HandPoints(
        "undercut", False, knocker_deadwood - defender_deadwood + rules.undercut_bonus
    )


class Settlement(msgspec.Struct, frozen=True):
    winner: int
    box_points: tuple[int, int]
    bonus: int
    bonus_kind: Literal["match", "shutout", "none"]
    totals: tuple[int, int]


def match_over(rules: Rules, scores: tuple[int, int]) -> bool:
    return max(scores) >= rules.target


def settle(
    rules: Rules, scores: tuple[int, int], boxes: tuple[int, int], winner: int | None = None
) -> Settlement:
    """Boxes for every hand won, then the match or shutout bonus to the winner.

    ``winner`` is given when the match ends by resignation: the other seat wins
    whatever the totals, and takes the bonus a win to the target would have given.

    ``first_to_target``: the player whose hand points reached the target wins.
    ``highest_total``: the higher settled total wins; on equal totals the player who
    reached the target wins (card-room rules name no tie-break; this keeps the result decisive).
    """
    box_points = (boxes[0] * rules.box_bonus, boxes[1] * rules.box_bonus)
    if winner is None:
        reached = 0 if scores[0] >= scores[1] else 1
        if rules.winner_by == "first_to_target":
            winner = reached
        else:
            base = (scores[0] + box_points[0], scores[1] + box_points[1])
            winner = reached if base[0] == base[1] else (0 if base[0] > base[1] else 1)
    loser = 1 - winner
    bonus_kind: Literal["match", "shutout", "none"]
    if rules.shutout_bonus is not None and boxes[loser] == 0:
        bonus, bonus_kind = rules.shutout_bonus, "shutout"
    elif rules.match_bonus:
        bonus, bonus_kind = rules.match_bonus, "match"
    else:
        bonus, bonus_kind = 0, "none"
    totals = [scores[0] + box_points[0], scores[1] + box_points[1]]
    totals[winner] += bonus
    return Settlement(winner, box_points, bonus, bonus_kind, (totals[0], totals[1]))
