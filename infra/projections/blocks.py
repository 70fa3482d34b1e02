"""Read model: who blocks whom, one row per block in force, from the ``blocks:<id>`` streams.

Every process shares this table, so a block recorded on one process is seen by all of
them once their projector has caught up; the lobby and the chat catch it up before they
ask (read your own writes, and another process's), as the lobby does its tables. The
questions are all about a pair of players, or one player's own list, so the primary key
(blocker, blocked) answers each with an index lookup.
"""

from __future__ import annotations

from sqlalchemy import Select, Table, and_, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.blocks import STREAM_PREFIX, PlayerBlocked, PlayerUnblocked
from infra.database import upsert_dialect
from infra.driver_errors import translate_errors
from infra.event_store import RecordedEvent
from infra.schema import player_blocks


class BlocksProjection:
    name = "blocks"
    tables: tuple[Table, ...] = (player_blocks,)

    async def apply(self, conn: AsyncConnection, recorded: RecordedEvent) -> None:
        event = recorded.event
        if not isinstance(event, PlayerBlocked | PlayerUnblocked):
            return
        blocker = recorded.stream_id.removeprefix(STREAM_PREFIX)
        if isinstance(event, PlayerBlocked):
            dialect = upsert_dialect(conn.dialect.name == "postgresql")
            await conn.execute(  # a block is folded once; a replay finds the row gone first
                dialect.insert(player_blocks)
                .values(blocker=blocker, blocked=event.player, blocked_ms=event.blocked_ms)
                .on_conflict_do_nothing()
            )
            return
        c = player_blocks.c
        await conn.execute(
            delete(player_blocks).where(c.blocker == blocker, c.blocked == event.player)
        )


async def blocks_between(engine: AsyncEngine, one: str, other: str) -> set[tuple[str, str]]:
    """The blocks in force between two players, as (blocker, blocked): none, one or both."""
    c = player_blocks.c
    query = select(c.blocker, c.blocked).where(
        or_(
            and_(c.blocker == one, c.blocked == other),
            and_(c.blocker == other, c.blocked == one),
        )
    )
    with translate_errors():
        async with engine.connect() as conn:
            return {(row.blocker, row.blocked) for row in (await conn.execute(query)).all()}


def blocked_by(blocker: str) -> Select[tuple[str]]:
    """A subquery of the players ``blocker`` blocks, for a lobby query to leave out."""
    return select(player_blocks.c.blocked).where(player_blocks.c.blocker == blocker)


def blockers_of(blocked: str) -> Select[tuple[str]]:
    """A subquery of the players who block ``blocked``, for a lobby query to leave out."""
    return select(player_blocks.c.blocker).where(player_blocks.c.blocked == blocked)
