"""Two players seen together never go by names that pass for each other.

Seen together: the seats of a match in play, the two ends of an open challenge (a rematch
offer included). A seat or a challenge between two such names is the table's to refuse
(``domain.table``, told ``same_name``, read here); a rename to the name of a player one is
seen with is refused here. Each holds the names it brings together still while it checks
and records them (``Players.names_held``: advisory locks on PostgreSQL, so across server
processes too): a rename racing a seat never ends with both done.

Names are not unique otherwise: guests cannot sign in again, so a name held for good by
every guest who ever typed it would be squatted.
"""

from __future__ import annotations

import contextlib

from sqlalchemy.ext.asyncio import AsyncEngine

from domain.errors import NameTaken
from domain.text import same_name
from infra.clock import now_ms
from infra.players import Player, Players
from infra.projections import Projector
from infra.projections.queries import seen_with
from server.house_ai import is_house_ai

# Held by every rename, as if a player's name: renames take turns with each other (they
# are rare, and counted in the rate limits), so a rename need not hold the names of all
# the players it is seen with. No player's id has a colon.
RENAMES = "names:renames"


class NameService:
    def __init__(self, players: Players, projector: Projector, engine: AsyncEngine) -> None:
        self.players = players
        self.projector = projector
        self.engine = engine

    def held(self, one: str, other: str | None) -> contextlib.AbstractAsyncContextManager[None]:
        """``Players.names_held`` for a step that may bring two players' names together:
        nothing to hold unless both are people. The house AI's name is one no player may
        take, so it is never compared (``alike``); held, it made every challenge to the
        house, on every process, wait for every other in one queue."""
        if other is None or is_house_ai(one) or is_house_ai(other):
            return contextlib.nullcontext()
        return self.players.names_held(one, other)

    async def alike(self, one: str, other: str) -> bool:
        """Whether two players' names pass for each other, read now (the house AI's name
        is one no player may take: it is never read)."""
        if is_house_ai(one) or is_house_ai(other) or one == other:
            return False
        names = await self.players.kinds_and_names({one, other})
        return one in names and other in names and same_name(names[one][1], names[other][1])

    async def rename(self, player_id: str, name: str) -> Player | None:
        """Give a player a new name, unless it passes for the name of a player it is seen
        with (``seen_with``: an opponent in a match in play, the other end of an open
        challenge): ``NameTaken``, and the old name stays. None if there is no such
        player.

        Held meanwhile: the player's own name, so no seat or challenge of its own slips
        in between the check and the rename (those hold it too), and ``RENAMES``, which
        every rename holds, so no rename of a player it is seen with does either. Not
        the names of those players, one lock each: a player sent a challenge by each of
        thousands of guests took thousands of advisory locks in one transaction (enough
        to fill PostgreSQL's lock table), and waited for any one of them."""
        async with self.players.names_held(RENAMES, player_id):
            await self.projector.catch_up("matches")
            await self.projector.catch_up("lobby")
            await self.projector.catch_up("blocks")
            seen = await seen_with(self.engine, player_id, now_ms())
            others = await self.players.kinds_and_names({id for id in seen if not is_house_ai(id)})
            for other, (_, other_name) in others.items():
                if same_name(name, other_name):
                    raise NameTaken(
                        f"name: {name.strip()!r} passes for the name of {other_name!r} "
                        f"(player {other}), whom you play or challenge, or who "
                        "challenges you: nobody could tell you apart; choose another"
                    )
            return await self.players.rename(player_id, name)
