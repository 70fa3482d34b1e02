"""The next deadline of every timed match, shared by every server process.

One row per match: the moment its seat to act runs out of time, computed from the
match's log at ``version``. A row written for an older version never overwrites a
newer one, so two processes that append in turn leave the later deadline. The row is
only a hint: whoever fires it reads the match and decides from its log, and the
store's expected version lets exactly one timeout be recorded.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.database import one_statement, upsert_dialect
from infra.driver_errors import translate_errors
from infra.schema import match_deadlines


class Deadlines:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        dialect = upsert_dialect(engine.dialect.name == "postgresql")
        self._insert = dialect.insert  # both dialects upsert with ON CONFLICT

    async def set(self, match_id: str, version: int, due_ms: int | None) -> None:
        """The deadline after ``version`` (None: no clock runs now)."""
        upsert = self._insert(match_deadlines).values(
            match_id=match_id, version=version, due_ms=due_ms
        )
        upsert = upsert.on_conflict_do_update(
            index_elements=["match_id"],
            set_={"version": version, "due_ms": due_ms},
            where=match_deadlines.c.version <= version,
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(upsert)

    async def clear(self, match_id: str) -> None:
        """The match is settled: it has no deadline any more."""
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    delete(match_deadlines).where(match_deadlines.c.match_id == match_id)
                )

    async def due(self, now_ms: int, limit: int = 100) -> list[str]:
        """Matches whose deadline has passed, the longest overdue first."""
        c = match_deadlines.c
        query = (
            select(c.match_id)
            .where(c.due_ms.is_not(None), c.due_ms <= now_ms)
            .order_by(c.due_ms)
            .limit(limit)
        )
        with translate_errors():
            async with one_statement(self.engine) as conn:
                return [row[0] for row in (await conn.execute(query)).all()]

    async def due_ms(self, match_id: str) -> int | None:
        query = select(match_deadlines.c.due_ms).where(match_deadlines.c.match_id == match_id)
        with translate_errors():
            async with one_statement(self.engine) as conn:
                return (await conn.execute(query)).scalar_one_or_none()
