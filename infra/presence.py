"""Who is connected, shared by every server process through the database.

Each process counts the live sockets and player streams of each player and writes
one row (player, process), refreshed every ``REFRESH_S`` while any is open. A player
is connected while some fresh row counts a socket; otherwise it has been away since
the newest row's time (when its last socket closed, or when a killed process last
refreshed). A player with no row at all has never connected (away since ever).
Spectator sockets do not count: presence is about a seat.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.schema import presence
from infra.sql_event_store import translate_errors

REFRESH_S = 5.0
FRESH_MS = 20_000
KEEP_MS = 7 * 24 * 3600 * 1000  # rows of players away this long are forgotten


def _now_ms() -> int:
    return int(time.time() * 1000)


class Presence:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.process_id = uuid.uuid4().hex
        self._local: Counter[str] = Counter()
        dialect = postgresql if engine.dialect.name == "postgresql" else sqlite
        self._insert = dialect.insert

    async def arrive(self, player_id: str) -> None:
        self._local[player_id] += 1
        await self._write(player_id)

    async def leave(self, player_id: str) -> None:
        self._local[player_id] -= 1
        if self._local[player_id] <= 0:
            del self._local[player_id]
        await self._write(player_id)

    async def away_since(self, player_id: str) -> int | None:
        """None while connected; else when the player was last seen connected (0: never)."""
        query = select(presence.c.sockets, presence.c.updated_ms).where(
            presence.c.player_id == player_id
        )
        with translate_errors():
            async with self.engine.connect() as conn:
                rows = (await conn.execute(query)).all()
        fresh = _now_ms() - FRESH_MS
        if any(sockets > 0 and updated > fresh for sockets, updated in rows):
            return None
        return max((updated for _, updated in rows), default=0)

    async def refresh(self) -> None:
        """Rewrite this process's rows of connected players; forget very old rows."""
        for player_id in list(self._local):
            await self._write(player_id)
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    delete(presence).where(presence.c.updated_ms < _now_ms() - KEEP_MS)
                )

    async def _write(self, player_id: str) -> None:
        row = {
            "player_id": player_id,
            "process_id": self.process_id,
            "sockets": self._local.get(player_id, 0),
            "updated_ms": _now_ms(),
        }
        upsert = self._insert(presence).values(row)
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    upsert.on_conflict_do_update(
                        index_elements=["player_id", "process_id"],
                        set_={"sockets": row["sockets"], "updated_ms": row["updated_ms"]},
                    )
                )
