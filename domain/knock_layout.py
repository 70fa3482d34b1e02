"""The knocker's layout: every least-deadwood way to lay ten cards down, and the default.

Ten cards often split into melds more than one way at the same deadwood, and the
ways differ in what the defender can lay off: (3H 4H 5H)(AS 2S 3S) takes 6H and 4S,
(2C 2D 2S)(3H 4H 5H) takes only 6H. A knocker may name the layout; without one the
engine lays the one that leaves the defender the fewest live layoff cards, judged
from what the knocker can know (``KnockerKnowledge``): its own cards, the discard
pile, and the cards it saw the defender take face up, which are certain layoffs. The
defender's hidden cards are not an input, so they cannot sway the choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from domain import errors
from domain.cards import CARD_BIT, CARD_INDEX, CARD_VALUE, DECK, Card, from_mask, to_mask
from domain.melds import Arrangement, Meld, arrange_mask, deadwood_of_mask, is_meld, is_set
from domain.state import HandState

_ALL = (1 << 52) - 1
_VALUES = tuple(CARD_VALUE[card] for card in DECK)


class KnockerKnowledge(msgspec.Struct, frozen=True):
    """What the knocker knows when it lays down, as 52-bit masks.

    ``dead``: cards nobody can lay off (the knocker's own eleven, the discard pile).
    ``certain``: cards the defender took face up and still holds. ``hidden``: how
    many of the defender's cards the knocker has not seen.
    """

    dead: int
    certain: int
    hidden: int

    def chance(self, bit: int) -> float:
        """How likely the defender holds the card: 1 if seen taken, 0 if dead, else
        its share of the unseen cards (each unseen card is equally likely to be one
        of the defender's hidden ones)."""
        if self.dead & bit:
            return 0.0
        if self.certain & bit:
            return 1.0
        unseen = (_ALL & ~self.dead & ~self.certain).bit_count()
        return min(1.0, self.hidden / unseen) if unseen else 0.0


def knocker_knowledge(hand: HandState, knocker: int, discard: Card | None) -> KnockerKnowledge:
    """The knocker's knowledge in a hand, from public fields and its own cards only.

    Reads the defender's card count and face-up takes (public), never its cards.
    """
    defender = 1 - knocker
    certain = to_mask(hand.known[defender])
    dead = to_mask(hand.hands[knocker]) | to_mask(hand.pile)
    if discard is not None:
        dead |= CARD_BIT[discard]
    hidden = len(hand.hands[defender]) - len(hand.known[defender])
    return KnockerKnowledge(dead=dead, certain=certain, hidden=hidden)


# --- every least-deadwood layout ----------------------------------------------------


def _meld_key(meld: Meld) -> tuple[int, int, int]:
    """Sets by rank, then runs by suit and lowest rank: the order ``arrange`` uses."""
    first = CARD_INDEX[meld[0]]
    if is_set(meld):
        return (0, first % 13, 0)
    return (1, first // 13, first % 13)


def _canonical(melds: Iterable[Meld]) -> tuple[Meld, ...]:
    """Each meld in deck order (a set by suit, a run by rank), melds in ``arrange`` order."""
    return tuple(sorted((from_mask(to_mask(meld)) for meld in melds), key=_meld_key))


def _split_run(melds: Sequence[Meld]) -> bool:
    """Two runs of one suit end to end: the same layoffs as the one run they make."""
    ends = {(CARD_INDEX[m[0]], CARD_INDEX[m[-1]]) for m in melds if not is_set(m)}
    lows = {low for low, _ in ends}
    return any(high + 1 in lows and (high + 1) % 13 != 0 for _, high in ends)


_Found = list[tuple[tuple[Meld, ...], int]]


def _search(rest: int, melds: tuple[Meld, ...], points: int, least: int, out: _Found) -> None:
    """Assign the lowest card left: deadwood, a set it heads, or a run it starts.

    It is the lowest card of its suit left, and of its rank every lower suit is gone,
    so any meld holding it is a run upward or a set of higher suits. Branches that
    cannot reach the least deadwood are cut with the exact bound of ``deadwood_of_mask``.
    """
    if not rest:
        out.append((melds, points))
        return
    if points + deadwood_of_mask(rest) > least:
        return
    low = rest & -rest
    index = low.bit_length() - 1
    suit, rank = divmod(index, 13)
    _search(rest ^ low, melds, points + _VALUES[index], least, out)
    same = [1 << (rank + 13 * s) for s in range(suit + 1, 4) if rest >> (rank + 13 * s) & 1]
    groups = [[a, b] for i, a in enumerate(same) for b in same[i + 1 :]]
    if len(same) == 3:
        groups.append(same)
    for group in groups:
        mask = low | sum(group)
        _search(rest ^ mask, (*melds, from_mask(mask)), points, least, out)
    run, top = low, rank
    while top + 1 < 13 and rest >> (index + top + 1 - rank) & 1:
        top += 1
        run |= 1 << (index + top - rank)
        if top - rank >= 2:
            _search(rest ^ run, (*melds, from_mask(run)), points, least, out)


def lowest_layouts(
    cards: Iterable[Card], arranged: Arrangement | None = None
) -> tuple[Arrangement, ...]:
    """Every least-deadwood layout of the cards, the engine's ``arrange`` first.

    A run split in two end to end lays off exactly as the whole run, so only the
    whole run is listed; a four-card set and a three-card set with the fourth card in a
    run are different layouts (they take different layoffs). ``arranged``: the cards'
    ``arrange``, when the caller has it already (``decide`` checks the knock with it).
    """
    mask = to_mask(cards)
    first = arrange_mask(mask) if arranged is None else arranged
    least = first.deadwood_points
    found: _Found = []
    _search(mask, (), 0, least, found)
    layouts = {_canonical(first.melds): first}
    for melds, points in found:
        canonical = _canonical(melds)
        if points != least or _split_run(canonical) or canonical in layouts:
            continue
        melded = to_mask(card for meld in canonical for card in meld)
        layouts[canonical] = Arrangement(canonical, from_mask(mask & ~melded), points)
    head, *others = layouts.values()
    return (head, *sorted(others, key=lambda a: [[CARD_INDEX[c] for c in m] for m in a.melds]))


# --- checking a layout the knocker names -------------------------------------------------


def check_layout(
    cards: Sequence[Card], melds: Sequence[Sequence[str]], least: int | None = None
) -> Arrangement:
    """The knocker's layout if it is one the rules allow, else ``InvalidLayout``.

    Every meld must be a set or a run of cards the knocker keeps, no card twice, and
    the deadwood left must be the least those ten cards can have (docs/rules.md,
    "Knocking": a knocker may choose among the least-deadwood layouts, not show more).
    ``least``: that least deadwood, when the caller has computed it already.
    """
    kept = to_mask(cards)
    used = 0
    for meld in melds:
        for card in meld:
            bit = CARD_BIT.get(card) if isinstance(card, str) else None
            if bit is None:
                raise errors.InvalidLayout(f"{card!r} in the layout is not a card")
            if not kept & bit:
                raise errors.InvalidLayout(f"{card} in the layout is not one of the ten cards kept")
            if used & bit:
                raise errors.InvalidLayout(f"{card} is in the layout twice")
            used |= bit
        if not is_meld(meld):
            raise errors.InvalidLayout(f"{' '.join(meld) or 'an empty meld'} is not a set or a run")
    deadwood = from_mask(kept & ~used)
    points = sum(CARD_VALUE[card] for card in deadwood)
    if least is None:
        least = deadwood_of_mask(kept)
    if points != least:
        raise errors.LayoutNotLeastDeadwood(
            f"that layout leaves {points} deadwood; these cards can leave {least}, "
            "and a knocker lays out the least"
        )
    return Arrangement(_canonical(tuple(m) for m in melds), deadwood, points)


# --- the default: the fewest live layoffs -------------------------------------------------


def layoff_exposure(melds: Sequence[Meld], knowledge: KnockerKnowledge) -> tuple[float, float]:
    """The expected number of cards the defender can lay off, and their expected points.

    Each card that fits (a set's fourth, a run's next card at either end, and the
    cards after it, each needing the ones before) counts its chance of being in the
    defender's hand: 1 for a card seen taken, 0 for a dead card.
    """
    chances: dict[int, float] = {}
    for meld in melds:
        indexes = sorted(CARD_INDEX[card] for card in meld)
        if is_set(meld):
            if len(meld) == 3:
                rank = indexes[0] % 13
                suit = next(s for s in range(4) if not to_mask(meld) >> (rank + 13 * s) & 1)
                _note(chances, rank + 13 * suit, 1.0, knowledge)
            continue
        suit_base = indexes[0] - indexes[0] % 13
        for step, start in ((-1, indexes[0] - 1), (1, indexes[-1] + 1)):
            chance, index = 1.0, start
            while suit_base <= index < suit_base + 13:
                chance = _note(chances, index, chance, knowledge)
                if not chance:
                    break
                index += step
    expected = sum(chances.values())
    points = sum(chance * _VALUES[index] for index, chance in chances.items())
    return expected, points


def _note(
    chances: dict[int, float], index: int, before: float, knowledge: KnockerKnowledge
) -> float:
    """Record that card ``index`` fits once the cards before it were laid (chance ``before``)."""
    chance = before * knowledge.chance(1 << index)
    if chance > chances.get(index, 0.0):
        chances[index] = chance
    return chance


def default_layout(layouts: Sequence[Arrangement], knowledge: KnockerKnowledge) -> Arrangement:
    """The layout with the least layoff exposure; among equals, the earliest listed
    (so the engine's ``arrange`` stays the choice wherever it is as good)."""
    return min(layouts, key=lambda layout: layoff_exposure(layout.melds, knowledge))


def ordered_layouts(
    cards: Iterable[Card], knowledge: KnockerKnowledge, arranged: Arrangement | None = None
) -> tuple[Arrangement, ...]:
    """Every least-deadwood layout, the default first, then the others as listed."""
    layouts = lowest_layouts(cards, arranged)
    chosen = default_layout(layouts, knowledge)
    return (chosen, *(layout for layout in layouts if layout is not chosen))


def knock_layouts(
    hand: HandState, seat: int, discard: Card, arranged: Arrangement | None = None
) -> tuple[Arrangement, ...]:
    """The layouts a knock by ``seat`` discarding ``discard`` may lay, the default first.

    The one definition of both what a seat's view lists and what ``decide`` lays for a
    knock without ``layout``, so the two cannot drift apart. ``arranged``: the ten
    kept cards' ``arrange``, when the caller has it already.
    """
    kept = from_mask(to_mask(hand.hands[seat]) & ~CARD_BIT[discard])
    return ordered_layouts(kept, knocker_knowledge(hand, seat, discard), arranged)
