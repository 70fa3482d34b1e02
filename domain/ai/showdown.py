"""The points of a knock against a given defending hand, on masks (for the hard level).

The defender's layoffs are searched here on masks rather than with
``melds.best_layoffs``, which works on card strings and builds the layoff plan: hard
prices many guessed hands a decision. Here, as there (since ``best_layoffs`` learnt it),
a search state is the cards still held plus the knocker's melds as they now stand, and
a state reached twice (the same layoffs in another order) is expanded once, so the
search stays small: the largest found on a 10-card hand is 324 states (three open
runs, all ten of the defender's cards chained off their ends), about 8 ms for
``best_layoffs``. The result is the same least deadwood.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import Card, to_mask
from domain.melds import arrange_mask, deadwood_of_mask

_SUIT = 0x1FFF


def _fits(bit: int, meld: int) -> bool:
    """Whether the one-bit card ``bit`` can be laid on the meld ``meld`` (both masks)."""
    index = bit.bit_length() - 1
    suit, rank = divmod(index, 13)
    low = (meld & -meld).bit_length() - 1
    if (meld >> (low // 13 * 13)) & _SUIT == meld >> (low // 13 * 13):  # one suit: a run
        if low // 13 != suit:
            return False
        row = meld >> (suit * 13)
        first = (row & -row).bit_length() - 1
        last = row.bit_length() - 1
        return rank == first - 1 or rank == last + 1
    # a set: the fourth card of its rank
    return (
        meld.bit_count() == 3
        and bool(meld & (1 << rank | 1 << (rank + 13) | 1 << (rank + 26) | 1 << (rank + 39)))
        and not meld & bit
    )


def least_deadwood(hand: int, melds: Sequence[Sequence[Card]]) -> int:
    """The defender's least deadwood over every sequence of layoffs onto ``melds``."""
    best = deadwood_of_mask(hand)
    start = (hand, tuple(to_mask(meld) for meld in melds))
    seen = {start}
    stack = [start]
    while stack:
        rest, shown = stack.pop()
        cards = rest
        while cards:
            bit = cards & -cards
            cards ^= bit
            for i, meld in enumerate(shown):
                if not _fits(bit, meld):
                    continue
                state = (rest & ~bit, (*shown[:i], meld | bit, *shown[i + 1 :]))
                if state in seen:
                    continue
                seen.add(state)
                stack.append(state)
                left = deadwood_of_mask(state[0])
                if left < best:
                    best = left
    return best


def points(knocker_hand: int, defender_hand: int, undercut_bonus: int) -> int:
    """Points to the knocker (negative: to the defender) after the defender's best layoffs."""
    shown = arrange_mask(knocker_hand)
    mine = shown.deadwood_points
    theirs = least_deadwood(defender_hand, shown.melds)
    if theirs > mine:
        return theirs - mine
    return -(mine - theirs + undercut_bonus)
