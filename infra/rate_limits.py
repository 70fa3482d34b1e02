"""Fixed-window request counters in the shared database, so every process counts together.

One row per (key, window start): a hit is an upsert that adds one and returns the new
count, in one statement, so two processes counting the same key at once both see
their own increment and the limit is not multiplied by the number of workers. Old
windows are deleted by ``sweep``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.database import upsert_dialect
from infra.driver_errors import translate_errors
from infra.schema import rate_limits


class RateCounters:
    """The ``rate_limits`` table; the engine is the store's."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._postgres = engine.dialect.name == "postgresql"

    async def hit(self, keys: Sequence[str], window_start: int) -> dict[str, int]:
        """Count one hit on each (distinct) key in this window; each key's count so far."""
        if not keys:
            return {}
        dialect = upsert_dialect(self._postgres)
        upsert = dialect.insert(rate_limits).values(
            [{"key": key, "window_start": window_start, "hits": 1} for key in keys]
        )
        statement = upsert.on_conflict_do_update(
            index_elements=[rate_limits.c.key, rate_limits.c.window_start],
            set_={"hits": rate_limits.c.hits + 1},
        ).returning(rate_limits.c.key, rate_limits.c.hits)
        with translate_errors():
            if self._postgres:  # one statement, one round trip: no transaction around it
                async with self.engine.connect() as conn:
                    conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                    rows = (await conn.execute(statement)).all()
            else:
                async with self.engine.begin() as conn:
                    rows = (await conn.execute(statement)).all()
        return {row.key: int(row.hits) for row in rows}

    async def sweep(self, before: int) -> None:
        """Forget the windows that started before ``before``."""
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(delete(rate_limits).where(rate_limits.c.window_start < before))
