"""Spectator counts shared by every server process through the database.

Each process keeps its own count of spectator sockets per match and writes it as one
row (match, process); the total is the sum of the rows refreshed within ``fresh_ms``.
A process refreshes its rows every ``refresh_s`` (``GINRUMMY_PRESENCE_REFRESH_S``) while
it has spectators, so a process that was killed stops counting within ``fresh_ms`` (four
refreshes), and a restart starts from zero.
"""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.clock import now_ms
from infra.database import one_statement
from infra.driver_errors import translate_errors
from infra.process_rows import REFRESH_S, CountedRows, ProcessRows, fresh_ms
from infra.schema import spectators

# Every view of a match reads this: built once, so SQLAlchemy neither rebuilds nor
# re-keys it per request.
_COUNT = select(func.coalesce(func.sum(spectators.c.watchers), 0)).where(
    spectators.c.match_id == bindparam("match_id"),
    spectators.c.updated_ms > bindparam("fresh_after"),
)


class Spectators:
    def __init__(self, engine: AsyncEngine, refresh_s: float = REFRESH_S) -> None:
        self.engine = engine
        self.fresh_ms = fresh_ms(refresh_s)
        self._watchers = CountedRows(spectators, ("match_id",), "watchers", keep_empty=False)
        self._rows = ProcessRows(engine, self._watchers)
        self.process_id = self._rows.process_id

    async def arrive(self, match_id: str) -> None:
        """A spectator socket opened here; not admitted (nor counted) if it cannot be written."""
        await self._rows.arrive(self._watchers, (match_id,))

    async def leave(self, match_id: str) -> None:
        await self._rows.leave(self._watchers, (match_id,))

    async def count(self, match_id: str) -> int:
        """Spectators of the match on every process whose count is fresh."""
        params = {"match_id": match_id, "fresh_after": now_ms() - self.fresh_ms}
        with translate_errors():
            async with one_statement(self.engine) as conn:
                return int((await conn.execute(_COUNT, params)).scalar_one())

    async def counts(self, match_ids: list[str]) -> dict[str, int]:
        """``count`` for several matches in one query (a listing); a match nobody
        watches is 0."""
        if not match_ids:
            return {}
        query = (
            select(spectators.c.match_id, func.sum(spectators.c.watchers))
            .where(
                spectators.c.match_id.in_(match_ids),
                spectators.c.updated_ms > now_ms() - self.fresh_ms,
            )
            .group_by(spectators.c.match_id)
        )
        with translate_errors():
            async with one_statement(self.engine) as conn:
                found = {row[0]: int(row[1]) for row in await conn.execute(query)}
        return {match_id: found.get(match_id, 0) for match_id in match_ids}

    async def refresh(self) -> None:
        """Rewrite this process's rows (still watched) and drop stale rows of dead ones."""
        await self._rows.refresh({spectators: now_ms() - 10 * self.fresh_ms})
