"""The points of a knock against a given defending hand, on masks (for the hard level)."""

from __future__ import annotations

from domain.cards import from_mask
from domain.melds import arrange_mask, best_layoffs


def points(knocker_hand: int, defender_hand: int, undercut_bonus: int) -> int:
    """Points to the knocker (negative: to the defender) after the defender's best layoffs."""
    shown = arrange_mask(knocker_hand)
    mine = shown.deadwood_points
    theirs = best_layoffs(from_mask(defender_hand), shown.melds).arrangement.deadwood_points
    if theirs > mine:
        return theirs - mine
    return -(mine - theirs + undercut_bonus)
