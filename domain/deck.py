"""Decks derived from a match seed, and the commitments that make a deal checkable.

The shuffle uses SHA-256 in counter mode rather than ``random`` so that a seed gives
the same decks on every Python version, and revealing one hand's deck says nothing
about the seed or the other hands.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator

from domain.cards import DECK, Card


def _stream(key: bytes) -> Iterator[int]:
    counter = 0
    while True:
        yield from hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
        counter += 1


def _key(seed: str, purpose: str) -> bytes:
    return hashlib.sha256(f"{purpose}:{seed}".encode()).digest()


def shuffled_deck(seed: str, hand_number: int) -> tuple[Card, ...]:
    """An unbiased Fisher-Yates shuffle driven by the seed and the hand number."""
    stream = _stream(_key(seed, f"deck:{hand_number}"))
    cards = list(DECK)
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        while True:  # rejection sampling on one byte: no modulo bias
            byte = next(stream)
            if byte < 256 - 256 % bound:
                break
        j = byte % bound
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def deal_salt(seed: str, hand_number: int) -> str:
    return _key(seed, f"salt:{hand_number}").hex()


def deck_commitment(deck: tuple[Card, ...], salt: str) -> str:
    """What a client recomputes to check a revealed deck: sha256 of ``salt:deck``."""
    return hashlib.sha256(f"{salt}:{''.join(deck)}".encode()).hexdigest()


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(f"seed:{seed}".encode()).hexdigest()


def first_dealer(seed: str) -> int:
    """The first hand's dealer, drawn from the seed."""
    return _key(seed, "dealer")[0] & 1


def deal(
    deck: tuple[Card, ...], dealer: int
) -> tuple[tuple[tuple[Card, ...], tuple[Card, ...]], Card, tuple[Card, ...]]:
    """Ten each, alternately from the non-dealer; the 21st card up; the rest is the stock."""
    first = deck[0:20:2]
    second = deck[1:20:2]
    hands = (first, second) if dealer == 1 else (second, first)
    return hands, deck[20], deck[21:]
