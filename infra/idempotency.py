"""Idempotency keys: a (player, key) is bound to the first request that claims it.

``claim`` is insert-if-absent and returns the request the key is bound to, so of two
concurrent requests with one key exactly one may act. Only the binding is kept: the
answer to a retry is computed again from the log, where the request's command id
finds its events. A request that is refused gives its key back (``release``): a
refusal leaves nothing behind, so the key may name a corrected request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from sqlalchemy import DateTime, Text, bindparam, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from infra.schema import idempotency_keys
from infra.sql_event_store import translate_errors

_COLUMNS = ("player_id", "key", "request_hash", "created_at")
_CLAIM_SQLITE = (
    sqlite.insert(idempotency_keys)
    .values({name: bindparam(name) for name in _COLUMNS})
    .on_conflict_do_nothing()
    .returning(idempotency_keys.c.request_hash)
)
# The claim commits asynchronously (``synchronous_commit`` off for its own transaction
# alone, set in the statement itself): it does not wait for its WAL flush (measured:
# 1.6 ms against 4.3-6.4 ms). Nothing is lost that matters: it is visible to every
# other request at commit as before, so two requests still cannot both claim a key;
# and the action's append, a synchronous commit later in the same WAL, flushes the
# claim with it. A crash can lose only a claim whose action was never appended, and
# a retry then claims and acts afresh (the log's command id is the lasting record).
_ASYNC_COMMIT = select(func.set_config("synchronous_commit", "off", True)).subquery("async_commit")
_CLAIM_PG = (
    postgresql.insert(idempotency_keys)
    .from_select(
        list(_COLUMNS),
        select(
            bindparam("player_id", type_=Text),
            bindparam("key", type_=Text),
            bindparam("request_hash", type_=Text),
            bindparam("created_at", type_=DateTime(timezone=True)),
        ).select_from(_ASYNC_COMMIT),
    )
    .on_conflict_do_nothing()
    .returning(idempotency_keys.c.request_hash)
)
_BOUND = select(idempotency_keys.c.request_hash).where(
    idempotency_keys.c.player_id == bindparam("player_id"),
    idempotency_keys.c.key == bindparam("key"),
)


class IdempotencyKeys:
    """The ``idempotency_keys`` table; the engine is the store's."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def claim(self, player_id: str, key: str, request_hash: str) -> str:
        """Bind the key to this request unless it is bound already; the bound request's hash.

        A caller whose hash comes back different is refused before it changes anything.
        Every keyed action pays for this before it acts, so on PostgreSQL it is one
        statement in autocommit, one round trip, where a transaction would take four
        (and each round trip waits its turn on a busy event loop), committed without
        waiting for its flush (``_CLAIM_PG``); the read that finds another request's
        binding runs only when the insert found one.
        """
        params = {
            "player_id": player_id,
            "key": key,
            "request_hash": request_hash,
            "created_at": datetime.now(UTC),
        }
        insert = _CLAIM_PG if self.engine.dialect.name == "postgresql" else _CLAIM_SQLITE
        with translate_errors():
            while True:
                async with self._statements() as conn:
                    found = (await conn.execute(insert, params)).scalar_one_or_none()
                    if found is None:
                        found = (await conn.execute(_BOUND, params)).scalar_one_or_none()
                if found is not None:
                    return str(found)
                # Released between the insert and the read by a refused request: claim again.

    @asynccontextmanager
    async def _statements(self) -> AsyncIterator[AsyncConnection]:
        """Each statement its own transaction on PostgreSQL; one transaction on SQLite."""
        if self.engine.dialect.name == "postgresql":
            async with self.engine.connect() as conn:
                yield await conn.execution_options(isolation_level="AUTOCOMMIT")
        else:
            async with self.engine.begin() as conn:
                yield conn

    async def release(self, player_id: str, key: str, request_hash: str) -> None:
        """Unbind a key whose request was refused (only if it is still bound to it)."""
        statement = delete(idempotency_keys).where(
            idempotency_keys.c.player_id == player_id,
            idempotency_keys.c.key == key,
            idempotency_keys.c.request_hash == request_hash,
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(statement)
