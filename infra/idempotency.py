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

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from infra.schema import idempotency_keys
from infra.sql_event_store import translate_errors


class IdempotencyKeys:
    """The ``idempotency_keys`` table; the engine is the store's."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def claim(self, player_id: str, key: str, request_hash: str) -> str:
        """Bind the key to this request unless it is bound already; the bound request's hash.

        A caller whose hash comes back different is refused before it changes anything.
        Every keyed action pays for this before it acts, so on PostgreSQL it is one
        statement in autocommit, one round trip, where a transaction would take four
        (and each round trip waits its turn on a busy event loop); the read that
        finds another request's binding runs only when the insert found one.
        """
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        insert = (
            dialect.insert(idempotency_keys)
            .values(
                player_id=player_id,
                key=key,
                request_hash=request_hash,
                created_at=datetime.now(UTC),
            )
            .on_conflict_do_nothing()
            .returning(idempotency_keys.c.request_hash)
        )
        bound = select(idempotency_keys.c.request_hash).where(
            idempotency_keys.c.player_id == player_id, idempotency_keys.c.key == key
        )
        with translate_errors():
            while True:
                async with self._statements() as conn:
                    found = (await conn.execute(insert)).scalar_one_or_none()
                    if found is None:
                        found = (await conn.execute(bound)).scalar_one_or_none()
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
