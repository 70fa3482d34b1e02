"""The server's half of a fair deal: whose server seed a match uses, and each seat's seed.

Each player always holds the commitment of its next server seed (shown by
POST /v1/players and GET /v1/me), so a seed the player gives afterwards cannot have
been chosen by the server against it. A new match or table takes that seed (the player
gets a fresh one at once) and adds one client seed per seat: the one the player gave,
else one the server draws at random (``by: "server"``: the log says the seat trusted
the server), and for a house AI seat an empty one (``by: "house"``), since the house
is the server and must not pick anything after seeing the player's seed.
"""

from __future__ import annotations

import secrets

from domain.errors import quoted
from domain.seeds import HOUSE, SERVER, ClientSeed
from infra.players import Players
from server.problems import PlayerNotFound

CLIENT_SEED_BYTES = 16


def seat_seed(player: str, given: str | None, now_ms: int) -> ClientSeed:
    """A person's or a bot's seed: the one it gave, else a random one the log marks."""
    if given is not None:
        return ClientSeed(seed=given, by=player, at_ms=now_ms)
    return ClientSeed(seed=secrets.token_hex(CLIENT_SEED_BYTES), by=SERVER, at_ms=now_ms)


def house_seed(now_ms: int) -> ClientSeed:
    return ClientSeed(seed="", by=HOUSE, at_ms=now_ms)


async def take_server_seed(players: Players, player: str) -> tuple[str, int]:
    """The player's committed server seed and when it was committed; it is replaced."""
    taken = await players.take_seed(player)
    if taken is None:
        raise PlayerNotFound(f"no player {quoted(player)}")
    return taken
