"""Spectator counts shared by every server process through the database.

Each process keeps its own count of spectator sockets per match and writes it as one
row (match, process); the total is the sum of the rows refreshed within ``FRESH_MS``.
A process refreshes its rows every ``REFRESH_S`` while it has spectators, so a process
that was killed stops counting within ``FRESH_MS``, and a restart starts from zero.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.database import one_statement
from infra.schema import spectators
from infra.sql_event_store import translate_errors

REFRESH_S = 5.0
FRESH_MS = 20_000
# Every view of a match reads this: built once, so SQLAlchemy neither rebuilds nor
# re-keys it per request.
_COUNT = select(func.coalesce(func.sum(spectators.c.watchers), 0)).where(
    spectators.c.match_id == bindparam("match_id"),
    spectators.c.updated_ms > bindparam("fresh_after"),
)


def _now_ms() -> int:
    return int(time.time() * 1000)


class Spectators:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.process_id = uuid.uuid4().hex
        self._local: Counter[str] = Counter()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._insert = dialect.insert  # both dialects upsert with ON CONFLICT

    async def arrive(self, match_id: str) -> None:
        self._local[match_id] += 1
        try:
            await self._write(match_id)
        except BaseException:
            self._forget(match_id)  # not admitted: it must not count
            raise

    def _forget(self, match_id: str) -> None:
        self._local[match_id] -= 1
        if self._local[match_id] <= 0:
            del self._local[match_id]

    async def leave(self, match_id: str) -> None:
        self._forget(match_id)
        await self._write(match_id)

    async def count(self, match_id: str) -> int:
        """Spectators of the match on every process whose count is fresh."""
        params = {"match_id": match_id, "fresh_after": _now_ms() - FRESH_MS}
        with translate_errors():
            async with one_statement(self.engine) as conn:
                return int((await conn.execute(_COUNT, params)).scalar_one())

    async def refresh(self) -> None:
        """Rewrite this process's rows (still watched) and drop stale rows of dead ones."""
        for match_id in list(self._local):
            await self._write(match_id)
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    delete(spectators).where(spectators.c.updated_ms < _now_ms() - 10 * FRESH_MS)
                )

    async def _write(self, match_id: str) -> None:
        watchers = self._local.get(match_id, 0)
        with translate_errors():
            async with self.engine.begin() as conn:
                if watchers == 0:
                    await conn.execute(
                        delete(spectators).where(
                            spectators.c.match_id == match_id,
                            spectators.c.process_id == self.process_id,
                        )
                    )
                    return
                row = {
                    "match_id": match_id,
                    "process_id": self.process_id,
                    "watchers": watchers,
                    "updated_ms": _now_ms(),
                }
                upsert = self._insert(spectators).values(row)
                await conn.execute(
                    upsert.on_conflict_do_update(
                        index_elements=["match_id", "process_id"],
                        set_={"watchers": watchers, "updated_ms": row["updated_ms"]},
                    )
                )
