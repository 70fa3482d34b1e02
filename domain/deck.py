"""Decks derived from a match's seeds, and the commitments that make a deal checkable.

A fair match has a secret server seed, committed to before any player gave a seed,
and one client seed per seat: each hand's deck, salt and the first dealer are an
HMAC-SHA256 of the server seed over the client seeds and the hand number, so neither
the server nor a player could choose them (docs/fair-deal.md). A match recorded with a
single seed (before client seeds, or a practice match whose seed a player chose) keeps
the older derivation from that seed alone, so its log replays unchanged.

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


ClientSeeds = tuple[str, str]


def _key(seed: str, purpose: str, client_seeds: ClientSeeds | None = None) -> bytes:
    """The key for one purpose (``deck:3``, ``salt:3``, ``dealer``).

    Fair: HMAC-SHA256 keyed with the server seed over ``purpose:seed0:seed1``.
    Single seed (older and practice matches): sha256 of ``purpose:seed``.
    """
    if client_seeds is None:
        return hashlib.sha256(f"{purpose}:{seed}".encode()).digest()
    message = ":".join((purpose, *client_seeds))
    return hmac.new(seed.encode(), message.encode(), hashlib.sha256).digest()


def shuffled_deck(
    seed: str, hand_number: int, client_seeds: ClientSeeds | None = None
) -> tuple[Card, ...]:
    """An unbiased Fisher-Yates shuffle driven by the seeds and the hand number."""
    stream = _stream(_key(seed, f"deck:{hand_number}", client_seeds))
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


def deal_salt(seed: str, hand_number: int, client_seeds: ClientSeeds | None = None) -> str:
    return _key(seed, f"salt:{hand_number}", client_seeds).hex()


def deck_commitment(deck: tuple[Card, ...], salt: str) -> str:
    """What a client recomputes to check a revealed deck: sha256 of ``salt:deck``."""
    return hashlib.sha256(f"{salt}:{''.join(deck)}".encode()).hexdigest()


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(f"seed:{seed}".encode()).hexdigest()


def first_dealer(seed: str, client_seeds: ClientSeeds | None = None) -> int:
    """The first hand's dealer, drawn from the seeds."""
    return _key(seed, "dealer", client_seeds)[0] & 1


def deal(
    deck: tuple[Card, ...], dealer: int
) -> tuple[tuple[tuple[Card, ...], tuple[Card, ...]], Card, tuple[Card, ...]]:
    """Ten each, alternately from the non-dealer; the 21st card up; the rest is the stock."""
    first = deck[0:20:2]
    second = deck[1:20:2]
    hands = (first, second) if dealer == 1 else (second, first)
    return hands, deck[20], deck[21:]
