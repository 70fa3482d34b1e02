"""Snapshots: a match's folded state saved at a version, so loading it folds only the tail.

A snapshot is a cache, never the truth: the state is msgpack of ``MatchState`` tagged
with ``SNAPSHOT_SCHEMA``; when ``MatchState`` changes shape, bump it and old snapshots
are ignored (the state is folded from the events instead). One that no longer decodes
is ignored the same way. Loading from a snapshot plus the later events gives the same
state as folding every event (tested).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import msgspec
from sqlalchemy import select

from domain.errors import quoted
from domain.match import fold
from domain.state import MatchState
from infra.database import upsert_dialect
from infra.driver_errors import translate_errors
from infra.errors import StreamNotFound
from infra.schema import snapshots
from infra.sql_event_store import SqlEventStore

log = logging.getLogger(__name__)

SNAPSHOT_SCHEMA = 2  # 2: HandState.acknowledged, MatchState.watch_code
_decoder = msgspec.msgpack.Decoder(MatchState)


async def save_snapshot(store: SqlEventStore, state: MatchState) -> None:
    """Save ``state`` as the match's snapshot at ``state.version`` (idempotent)."""
    dialect = upsert_dialect(store.is_postgres)
    statement = (
        dialect.insert(snapshots)
        .values(
            stream_id=state.match_id,
            version=state.version,
            schema_version=SNAPSHOT_SCHEMA,
            state=msgspec.msgpack.encode(state),
            recorded_at=datetime.now(UTC),
        )
        .on_conflict_do_nothing()
    )
    with translate_errors():
        async with store.engine.begin() as conn:
            await conn.execute(statement)


async def latest_snapshot(
    store: SqlEventStore, match_id: str, at_most: int | None = None
) -> MatchState | None:
    """The newest usable snapshot at or before version ``at_most`` (None if there is none)."""
    query = (
        select(snapshots.c.version, snapshots.c.state)
        .where(snapshots.c.stream_id == match_id)
        .where(snapshots.c.schema_version == SNAPSHOT_SCHEMA)
        .order_by(snapshots.c.version.desc())
    )
    if at_most is not None:
        query = query.where(snapshots.c.version <= at_most)
    with translate_errors():
        async with store.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
    for row in rows:
        try:
            state = _decoder.decode(row.state)
        except (msgspec.DecodeError, msgspec.ValidationError):
            log.warning("ignoring an undecodable snapshot of %s at %s", match_id, row.version)
            continue
        if state.version == row.version and state.match_id == match_id:
            return state
    return None


async def load_state(store: SqlEventStore, match_id: str, at: int | None = None) -> MatchState:
    """The state after event ``at`` (the last if None): snapshot plus the events after it."""
    base = await latest_snapshot(store, match_id, at)
    after = base.version if base is not None else 0
    limit = None if at is None else max(at - after, 0)
    tail = await store.read_stream(match_id, after_version=after, limit=limit)
    if base is None and not tail:
        raise StreamNotFound(f"no match {quoted(match_id)}")
    if not tail:
        assert base is not None
        return base
    return fold((r.match_event for r in tail), base)
