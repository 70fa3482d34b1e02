"""Melds, deadwood and layoffs: the least-deadwood arrangement of a hand, fast.

Why it is fast: runs live inside one suit, so for each 13-bit suit mask the cards
that runs can absorb are precomputed (a maximal block of three or more consecutive
ranks is one run; shorter blocks are deadwood). Only sets cross suits, and a hand
has at most three ranks held three or four times, so the search tries each way of
taking those sets (none, the whole set, or three of four) and adds four table
look-ups per try.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import product

import msgspec

from domain.cards import CARD_BIT, CARD_VALUE, DECK, RANKS, Card, from_mask, to_mask

Meld = tuple[Card, ...]

_SUIT = 0x1FFF
_RANK_COLUMN = 1 | 1 << 13 | 1 << 26 | 1 << 39
_RANK_VALUES = tuple(min(r + 1, 10) for r in range(13))


def _suit_tables() -> tuple[list[int], list[int]]:
    """For every 13-bit suit mask: deadwood left by runs alone, and the run cards.

    Each mask is its top card added to a smaller mask, whose top block it lengthens by
    one (or starts a block of one): so each entry is one step from an earlier one, not a
    walk of the 13 ranks (17 ms of every process's start, under 1 ms now). A block of three
    becomes a run, and its two lower cards leave the deadwood.
    """
    deadwood = [0] * (1 << 13)
    melded = [0] * (1 << 13)
    top_block = [0] * (1 << 13)  # length of the block holding the mask's top card
    for rank in range(13):
        value = _RANK_VALUES[rank]
        below = 1 << (rank - 1) if rank else 0
        for rest in range(1 << rank):  # every mask whose top card is ``rank``
            mask = rest | 1 << rank
            length = top_block[rest] + 1 if rest & below else 1
            top_block[mask] = length
            if length < 3:
                deadwood[mask] = deadwood[rest] + value
                melded[mask] = melded[rest]
            elif length == 3:
                deadwood[mask] = deadwood[rest] - _RANK_VALUES[rank - 1] - _RANK_VALUES[rank - 2]
                melded[mask] = melded[rest] | 0b111 << (rank - 2)
            else:
                deadwood[mask] = deadwood[rest]
                melded[mask] = melded[rest] | 1 << rank
    return deadwood, melded


_DW, _RUNS = _suit_tables()


class Arrangement(msgspec.Struct, frozen=True):
    """A hand split into non-overlapping melds and the deadwood left over."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    deadwood_points: int


def _set_options(mask: int) -> list[list[int]]:
    """For each rank held three or four times: the 52-bit masks of sets it may form.

    The first option is always 0 (no set), so the plain runs-only try comes first.
    """
    c = mask & _SUIT
    d = mask >> 13 & _SUIT
    h = mask >> 26 & _SUIT
    s = mask >> 39 & _SUIT
    triples = (c & d & (h | s)) | (h & s & (c | d))
    options: list[list[int]] = []
    while triples:
        low = triples & -triples
        triples ^= low
        bits = [low << (13 * k) for k in range(4) if mask & (low << (13 * k))]
        whole = bits[0] | bits[1] | bits[2] | (bits[3] if len(bits) == 4 else 0)
        rank_options = [0, whole]
        if len(bits) == 4:
            rank_options.extend(whole ^ b for b in bits)
        options.append(rank_options)
    return options


def _runs_deadwood(mask: int) -> int:
    return _DW[mask & _SUIT] + _DW[mask >> 13 & _SUIT] + _DW[mask >> 26 & _SUIT] + _DW[mask >> 39]


def deadwood_of_mask(mask: int) -> int:
    """Least deadwood points of a hand given as a 52-bit mask (see ``cards.to_mask``)."""
    c = mask & _SUIT
    d = mask >> 13 & _SUIT
    h = mask >> 26 & _SUIT
    s = mask >> 39
    if not ((c & d & (h | s)) | (h & s & (c | d))):
        return _DW[c] + _DW[d] + _DW[h] + _DW[s]
    best = 1 << 30
    for choice in product(*_set_options(mask)):
        removed = 0
        for part in choice:
            removed |= part
        dw = _runs_deadwood(mask & ~removed)
        if dw < best:
            best = dw
    return best


def deadwood_points(cards: Iterable[Card]) -> int:
    """Least deadwood points of any hand, without building the melds."""
    return deadwood_of_mask(to_mask(cards))


def _best_sets(mask: int) -> int:
    """The set cards (52-bit mask) of the first least-deadwood choice of sets."""
    options = _set_options(mask)
    if not options:
        return 0
    best, best_removed = 1 << 30, 0
    for choice in product(*options):
        removed = 0
        for part in choice:
            removed |= part
        dw = _runs_deadwood(mask & ~removed)
        if dw < best:
            best, best_removed = dw, removed
    return best_removed


def _runs_of_suit(suit_mask: int, suit: int) -> tuple[Meld, ...]:
    runs: list[Meld] = []
    run_mask = _RUNS[suit_mask]
    rank = 0
    while rank < 13:
        if not run_mask >> rank & 1:
            rank += 1
            continue
        start = rank
        while rank < 13 and run_mask >> rank & 1:
            rank += 1
        runs.append(tuple(DECK[suit * 13 + r] for r in range(start, rank)))
    return tuple(runs)


def _suit_lookups(suit: int) -> tuple[list[tuple[Meld, ...]], list[tuple[Card, ...]]]:
    """The runs and the deadwood cards of each 13-bit mask of one suit.

    Each distinct value is built once and shared by the masks that have it (305 run
    masks and 3,136 deadwood masks among 8,192): built mask by mask, these tables took
    75 ms of every process's start (each server process imports them), 27 ms once
    shared, and 10 ms with each mask's cards one card added to a smaller mask's.
    """
    runs_by_mask = {run_mask: _runs_of_suit(run_mask, suit) for run_mask in set(_RUNS)}
    cards_of: list[tuple[Card, ...]] = [()]
    for rank in range(13):
        card = (DECK[suit * 13 + rank],)
        cards_of += [cards + card for cards in cards_of]  # the masks with ``rank`` on top
    runs = [runs_by_mask[run_mask] for run_mask in _RUNS]
    dead = [cards_of[mask & ~run_mask] for mask, run_mask in enumerate(_RUNS)]
    return runs, dead


# Per suit and 13-bit mask: the runs as card tuples and the deadwood cards, so that
# building an arrangement is look-ups and concatenation, not bit-walking.
_LOOKUPS = [_suit_lookups(suit) for suit in range(4)]
_SUIT_RUNS = [runs for runs, _ in _LOOKUPS]
_SUIT_DEAD = [dead for _, dead in _LOOKUPS]


def arrange_mask(mask: int) -> Arrangement:
    """The least-deadwood arrangement of a hand given as a 52-bit mask."""
    sets_mask = _best_sets(mask)
    melds: tuple[Meld, ...] = ()
    if sets_mask:
        for rank in range(13):
            rank_bits = sets_mask & (_RANK_COLUMN << rank)
            if rank_bits:
                melds += (from_mask(rank_bits),)
    rest = mask & ~sets_mask
    c = rest & _SUIT
    d = rest >> 13 & _SUIT
    h = rest >> 26 & _SUIT
    s = rest >> 39
    runs = _SUIT_RUNS
    dead = _SUIT_DEAD
    return Arrangement(
        melds=melds + runs[0][c] + runs[1][d] + runs[2][h] + runs[3][s],
        deadwood=dead[0][c] + dead[1][d] + dead[2][h] + dead[3][s],
        deadwood_points=_DW[c] + _DW[d] + _DW[h] + _DW[s],
    )


def arrange(cards: Iterable[Card]) -> Arrangement:
    """The least-deadwood, non-overlapping arrangement of the cards (ace low).

    Ties between arrangements of equal deadwood are broken the same way every time.
    """
    return arrange_mask(to_mask(cards))


def discard_options(cards: Sequence[Card], exclude: Card | None = None) -> list[tuple[Card, int]]:
    """Each legal discard of an 11-card hand with the deadwood the other ten leave."""
    mask = to_mask(cards)
    return [(card, deadwood_of_mask(mask & ~CARD_BIT[card])) for card in cards if card != exclude]


def best_discard(cards: Sequence[Card], exclude: Card | None = None) -> tuple[Card, int]:
    """The discard leaving the least deadwood; among equals, the highest-valued card.

    ``exclude`` is a card that may not be discarded (the one just taken from the pile).
    """
    options = discard_options(cards, exclude)
    if not options:
        raise ValueError("no card can be discarded")
    return min(options, key=lambda o: (o[1], -CARD_VALUE[o[0]], DECK.index(o[0])))


# --- Layoffs ---------------------------------------------------------------------


def is_set(meld: Sequence[Card]) -> bool:
    return len({c[0] for c in meld}) == 1


def is_run(meld: Sequence[Card]) -> bool:
    if len({c[1] for c in meld}) != 1:
        return False
    ranks = sorted(RANKS.index(c[0]) for c in meld)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def is_meld(meld: Sequence[Card]) -> bool:
    """Three or four of a rank, or three or more in sequence in one suit (ace low)."""
    if len(meld) < 3 or len(set(meld)) != len(meld):
        return False
    return (is_set(meld) and len(meld) <= 4) or is_run(meld)


def fits(card: Card, meld: Sequence[Card]) -> bool:
    """Whether the card can be laid off on the meld: a 4th to a set, or a run's next end."""
    if card in meld:
        return False
    if is_set(meld):
        return len(meld) == 3 and card[0] == meld[0][0]
    if card[1] != meld[0][1]:
        return False
    ranks = [RANKS.index(c[0]) for c in meld]
    rank = RANKS.index(card[0])
    return rank == min(ranks) - 1 or rank == max(ranks) + 1


def extend(meld: Sequence[Card], card: Card) -> Meld:
    """The meld with a laid-off card added, kept in rank order."""
    return tuple(sorted((*meld, card), key=lambda c: (RANKS.index(c[0]), c[1])))


def legal_layoffs(cards: Iterable[Card], melds: Sequence[Sequence[Card]]) -> list[tuple[Card, int]]:
    """Every (card, meld index) that can be laid off right now."""
    return [(card, i) for card in cards for i, meld in enumerate(melds) if fits(card, meld)]


class LayoffPlan(msgspec.Struct, frozen=True):
    """The defender's best layoffs, in an order that can be played, and what is left."""

    layoffs: tuple[tuple[Card, int], ...]
    arrangement: Arrangement


def best_layoffs(cards: Sequence[Card], melds: Sequence[Sequence[Card]]) -> LayoffPlan:
    """The layoffs that leave the defender the least deadwood (own melds re-arranged).

    Layoffs chain (a card laid on a run lets the next one follow), so this searches
    every reachable sequence; hands are small and few cards ever fit, so it is cheap.
    Among equal deadwood it keeps the fewest layoffs.
    """
    hand = to_mask(cards)
    best: tuple[int, int, tuple[tuple[Card, int], ...]] = (deadwood_of_mask(hand), 0, ())
    seen: set[int] = {0}
    expanded: set[tuple[int, tuple[Meld, ...]]] = set()  # the same layoffs in another order

    def search(laid: int, current: tuple[Meld, ...], path: tuple[tuple[Card, int], ...]) -> None:
        nonlocal best
        for card, index in legal_layoffs(from_mask(hand & ~laid), current):
            now = laid | CARD_BIT[card]
            step = (*path, (card, index))
            if now not in seen:
                seen.add(now)
                score = (deadwood_of_mask(hand & ~now), len(step), step)
                if score[:2] < best[:2]:
                    best = score
            grown = (*current[:index], extend(current[index], card), *current[index + 1 :])
            if (now, grown) in expanded:
                continue
            expanded.add((now, grown))
            search(now, grown, step)

    search(0, tuple(tuple(m) for m in melds), ())
    layoffs = best[2]
    laid_mask = to_mask(card for card, _ in layoffs)
    return LayoffPlan(layoffs=layoffs, arrangement=arrange_mask(hand & ~laid_mask))
