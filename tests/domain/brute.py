"""An independent, deliberately naive meld search: the oracle the fast engine is checked against.

It shares nothing with ``domain.melds`` but the card text: it lists every legal meld
in the hand and tries every way of covering the cards with disjoint melds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations, pairwise

RANKS = "A23456789TJQK"


def rank(card: str) -> int:
    return RANKS.index(card[0])


def value(card: str) -> int:
    return min(rank(card) + 1, 10)


def is_legal_meld(cards: Iterable[str]) -> bool:
    """3 or 4 of one rank, or 3+ consecutive ranks of one suit, ace low, no repeats."""
    group = list(cards)
    if len(group) < 3 or len(set(group)) != len(group):
        return False
    if len({c[0] for c in group}) == 1:
        return len(group) <= 4
    if len({c[1] for c in group}) != 1:
        return False
    ranks = sorted(rank(c) for c in group)
    return all(b == a + 1 for a, b in pairwise(ranks))


def all_melds(hand: Iterable[str]) -> list[frozenset[str]]:
    """Every legal meld that can be formed from the hand's cards."""
    cards = set(hand)
    melds: list[frozenset[str]] = []
    for r in RANKS:
        same = sorted(c for c in cards if c[0] == r)
        for size in (3, 4):
            melds.extend(frozenset(combo) for combo in combinations(same, size))
    for suit in "CDHS":
        for start in range(13):
            for end in range(start + 3, 14):
                run = {RANKS[i] + suit for i in range(start, end)}
                if run <= cards:
                    melds.append(frozenset(run))
    return melds


def deadwood(hand: Iterable[str]) -> int:
    """Least deadwood: one card is either deadwood or in one meld wholly left; recurse."""
    cards = frozenset(hand)
    melds = all_melds(cards)

    @cache
    def best(left: frozenset[str]) -> int:
        if not left:
            return 0
        card = min(left)
        result = value(card) + best(left - {card})
        for meld in melds:
            if card in meld and meld <= left:
                result = min(result, best(left - meld))
        return result

    return best(cards)


def layoff_deadwood(hand: Sequence[str], knocker_melds: Sequence[Sequence[str]]) -> int:
    """Least deadwood the defender can reach by any sequence of layoffs (chains included)."""
    best = deadwood(hand)
    seen: set[tuple[frozenset[str], tuple[frozenset[str], ...]]] = set()

    def search(left: frozenset[str], melds: tuple[frozenset[str], ...]) -> None:
        nonlocal best
        key = (left, melds)
        if key in seen:
            return
        seen.add(key)
        best = min(best, deadwood(left))
        for card in left:
            for i, meld in enumerate(melds):
                if is_legal_meld(meld | {card}):
                    grown = (*melds[:i], meld | {card}, *melds[i + 1 :])
                    search(left - {card}, grown)

    search(frozenset(hand), tuple(frozenset(m) for m in knocker_melds))
    return best
