"""Read model: the lobby's tables, one row each, folded from the ``table:<id>`` streams.

Every process shares this table in the database, so a table opened on one process is
listed by all of them. Whether a table is still open depends on the clock as well as
the log (an open table past ``expires_ms`` is closed even before its TableExpired is
recorded), so the query compares ``expires_ms`` with the caller's now.
"""

from __future__ import annotations

import msgspec
from sqlalchemy import Table, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.rules import Clock
from domain.table import TableCancelled, TableDeclined, TableExpired, TableJoined, TableOpened
from infra.driver_errors import translate_errors
from infra.event_store import RecordedEvent
from infra.projections.blocks import blocked_by, blockers_of
from infra.schema import lobby_tables

TABLE_STREAM_PREFIX = "table:"


class LobbyRow(msgspec.Struct, frozen=True):
    table_id: str
    host: str
    rules_name: str
    rules: str
    status: str
    opened_ms: int
    expires_ms: int
    hints: int = 1
    seed_commitment: str | None = None
    rated: bool = False
    clock: Clock | None = None  # here, so the list reads no table's stream


class LobbyProjection:
    name = "lobby"
    tables: tuple[Table, ...] = (lobby_tables,)

    async def apply(self, conn: AsyncConnection, recorded: RecordedEvent) -> None:
        event = recorded.event
        if isinstance(event, TableOpened):
            await conn.execute(
                insert(lobby_tables).values(
                    table_id=event.table_id,
                    host=event.host,
                    rules_name=event.rules.name,
                    rules=msgspec.json.encode(event.rules).decode(),
                    private=int(event.private or event.invitee is not None),
                    invitee=event.invitee,
                    rematch_of=event.rematch_of,
                    status="open",
                    opened_ms=event.opened_ms,
                    expires_ms=event.expires_ms,
                    last_position=recorded.position,
                    hints=int(event.hints),
                    seed_commitment=event.seed_commitment,
                    rated=int(event.rated),
                    clock=None
                    if event.clock is None
                    else msgspec.json.encode(event.clock).decode(),
                )
            )
            return
        values: dict[str, object]
        if isinstance(event, TableJoined):
            values = {"status": "started", "guest": event.guest, "match_id": event.match_id}
        elif isinstance(event, TableCancelled):
            values = {"status": "cancelled"}
        elif isinstance(event, TableDeclined):
            values = {"status": "declined"}
        elif isinstance(event, TableExpired):
            values = {"status": "expired"}
        else:
            return
        table_id = recorded.stream_id.removeprefix(TABLE_STREAM_PREFIX)
        await conn.execute(
            update(lobby_tables)
            .where(lobby_tables.c.table_id == table_id)
            .values(last_position=recorded.position, **values)
        )


async def open_public_tables(
    engine: AsyncEngine,
    now_ms: int,
    rules_name: str | None = None,
    limit: int = 100,
    viewer: str | None = None,
) -> list[LobbyRow]:
    """Public tables waiting for an opponent at ``now_ms``, the newest first. As
    ``viewer`` sees them: never a table whose host blocks the viewer (it could not sit
    there) or whom the viewer blocks (catch the blocks projection up first)."""
    c = lobby_tables.c
    query = (
        select(
            c.table_id,
            c.host,
            c.rules_name,
            c.rules,
            c.status,
            c.opened_ms,
            c.expires_ms,
            c.hints,
            c.seed_commitment,
            c.rated,
            c.clock,
        )
        .where(c.status == "open", c.private == 0, c.expires_ms > now_ms)
        .order_by(c.opened_ms.desc(), c.table_id)
        .limit(limit)
    )
    if rules_name is not None:
        query = query.where(c.rules_name == rules_name)
    if viewer is not None:
        query = query.where(c.host.not_in(blocked_by(viewer)), c.host.not_in(blockers_of(viewer)))
    with translate_errors():
        async with engine.connect() as conn:
            rows = (await conn.execute(query)).all()
    return [
        LobbyRow(
            *row[:9],
            rated=bool(row.rated),
            clock=None if row.clock is None else msgspec.json.decode(row.clock, type=Clock),
        )
        for row in rows
    ]


async def open_challenges(engine: AsyncEngine, player: str, now_ms: int) -> list[str]:
    """Open challenges addressed to ``player`` or sent by it, oldest first; those sent to
    it by a player it blocks are left out (the blocks projection: catch it up first)."""
    c = lobby_tables.c
    query = (
        select(c.table_id)
        .where(
            c.status == "open",
            c.expires_ms > now_ms,
            c.invitee.is_not(None),
            (c.host == player) | ((c.invitee == player) & c.host.not_in(blocked_by(player))),
        )
        .order_by(c.opened_ms, c.table_id)
    )
    with translate_errors():
        async with engine.connect() as conn:
            return [row[0] for row in (await conn.execute(query)).all()]


async def open_tables_of(
    engine: AsyncEngine, host: str, now_ms: int
) -> list[tuple[str, str | None]]:
    """Every table ``host`` has open at ``now_ms`` (public, private, seeks, challenges and
    rematch offers), oldest first, each with its invitee (None: not a challenge)."""
    c = lobby_tables.c
    query = (
        select(c.table_id, c.invitee)
        .where(c.status == "open", c.expires_ms > now_ms, c.host == host)
        .order_by(c.opened_ms, c.table_id)
    )
    with translate_errors():
        async with engine.connect() as conn:
            return [(row.table_id, row.invitee) for row in (await conn.execute(query)).all()]


async def overdue_tables(engine: AsyncEngine, now_ms: int, limit: int = 100) -> list[str]:
    """Open tables whose time has run out but whose TableExpired is not recorded yet."""
    c = lobby_tables.c
    query = (
        select(c.table_id)
        .where(c.status == "open", c.expires_ms <= now_ms)
        .order_by(c.expires_ms)
        .limit(limit)
    )
    with translate_errors():
        async with engine.connect() as conn:
            return [row[0] for row in (await conn.execute(query)).all()]
