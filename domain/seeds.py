"""Client seeds: each seat's part of a fair deal, and the rule they must keep.

The server seed is committed to first (its hash is published); then each seat gives a
client seed, which the server could not have known when it committed. A seed is
public as soon as it is given: without the server seed it says nothing about a deck.
"""

from __future__ import annotations

import re

import msgspec

from domain import errors

#: 1-64 letters, digits or ``._~-``; never ``:``, which separates the seeds in the HMAC
#: message, so two different pairs of seeds never give the same message.
CLIENT_SEED_PATTERN = r"^[A-Za-z0-9._~-]{1,64}$"
SERVER = "server"  # ``by`` of a seed the server drew at random for a seat that gave none
HOUSE = "house"  # ``by`` of a house AI seat's seed: empty, the house adds nothing


class ClientSeed(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One seat's seed, who gave it and when (the server's clock, in ms).

    ``by`` is the player who gave the seed; ``server`` when the seat gave none and the
    server drew one at random for it; ``house`` for a house AI seat, which adds nothing
    (its seed is empty): the house is the server, whose part is its committed seed.
    """

    seed: str
    by: str
    at_ms: int


def check_client_seed(given: ClientSeed, committed_ms: int | None, who: str) -> None:
    """A usable seed (empty only for the house), given no earlier than the server's
    commitment: a seed given before it could have been chosen against."""
    if committed_ms is None:
        raise errors.InvalidClientSeed("a client seed needs the time of the server's commitment")
    house = given.by == HOUSE and given.seed == ""
    if not house and not re.fullmatch(CLIENT_SEED_PATTERN, given.seed):
        raise errors.InvalidClientSeed(f"{who}'s client seed must be 1-64 letters, digits or ._~-")
    if given.at_ms < committed_ms:
        raise errors.InvalidClientSeed(
            f"{who}'s client seed was given before the server committed to its seed"
        )
