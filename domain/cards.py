"""Cards as their two-character text form (``7H``, ``TD``, ``AS``).

A card is a plain ``str`` so that events, views and the HTTP API all read the same
way a person writes a card; the meld search converts to bit masks internally.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.errors import InvalidCard

Card = str

RANKS = "A23456789TJQK"
SUITS = "CDHS"

#: Every card in a fixed order: suit-major (clubs, diamonds, hearts, spades), ace first.
DECK: tuple[Card, ...] = tuple(r + s for s in SUITS for r in RANKS)

#: Card -> bit index ``suit * 13 + rank`` (rank 0 is the ace).
CARD_INDEX: dict[Card, int] = {card: i for i, card in enumerate(DECK)}
CARD_BIT: dict[Card, int] = {card: 1 << i for i, card in enumerate(DECK)}


def rank_of(card: Card) -> int:
    """Rank index: 0 for the ace up to 12 for the king (ace is always low)."""
    return RANKS.index(card[0])


def suit_of(card: Card) -> str:
    return card[1]


def value_of(card: Card) -> int:
    """Deadwood value: ace 1, pips at face value, T/J/Q/K 10."""
    return CARD_VALUE[card]


CARD_VALUE: dict[Card, int] = {card: min(RANKS.index(card[0]) + 1, 10) for card in DECK}


def parse_card(text: object) -> Card:
    """The card a text names; anything else (``1H``, ``10H``, ``7h``, ``XX``) is refused."""
    if not isinstance(text, str) or text not in CARD_INDEX:
        raise InvalidCard(
            f"{text!r} is not a card: use rank then suit, ranks {RANKS}, suits {SUITS} (e.g. 7H)"
        )
    return text


def parse_cards(texts: Iterable[object]) -> tuple[Card, ...]:
    """Several cards at once; duplicates are refused because a deck has one of each."""
    cards = tuple(parse_card(t) for t in texts)
    if len(set(cards)) != len(cards):
        raise InvalidCard(f"duplicate card in {list(cards)}")
    return cards


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Suit-major, then rank: the order a hand is shown in."""
    return tuple(sorted(cards, key=CARD_INDEX.__getitem__))


def to_mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= CARD_BIT[card]
    return mask


def from_mask(mask: int) -> tuple[Card, ...]:
    """Cards of a 52-bit mask, in deck order."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(DECK[low.bit_length() - 1])
        mask ^= low
    return tuple(cards)
