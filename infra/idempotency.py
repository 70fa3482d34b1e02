"""Idempotency keys: a (player, key) is bound to the first request that claims it.

``claim`` is insert-if-absent and returns whichever binding won, so of two concurrent
requests with one key exactly one may act; ``answer`` then keeps its response for
retries. A request that is refused gives its key back (``release``): a refusal leaves
nothing behind, so the key may name a corrected request.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.schema import idempotency_keys
from infra.sql_event_store import translate_errors

PENDING = 0  # the status of a key whose request has not answered (yet, or ever)


class StoredResponse(msgspec.Struct, frozen=True):
    player_id: str
    key: str
    request_hash: str
    status: int
    body: bytes
    created_at: datetime


class IdempotencyKeys:
    """The ``idempotency_keys`` table; the engine is the store's (``store.engine``)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def get(self, player_id: str, key: str) -> StoredResponse | None:
        query = select(idempotency_keys).where(
            idempotency_keys.c.player_id == player_id, idempotency_keys.c.key == key
        )
        with translate_errors():
            async with self.engine.connect() as conn:
                row = (await conn.execute(query)).first()
        if row is None:
            return None
        created_at = row.created_at
        if created_at.tzinfo is None:
            created_at = created_at.replace(tzinfo=UTC)
        return StoredResponse(
            player_id=row.player_id,
            key=row.key,
            request_hash=row.request_hash,
            status=row.status,
            body=bytes(row.body),
            created_at=created_at,
        )

    async def claim(self, player_id: str, key: str, request_hash: str) -> StoredResponse:
        """Bind the key to this request unless it is bound already; return the binding.

        A request claims its key before it acts, so of two concurrent requests with one
        key only the one whose hash the binding holds may act; the other compares the
        hashes and is refused before it changes anything. Until the request answers,
        the binding's status is ``PENDING``.
        """
        values = {
            "player_id": player_id,
            "key": key,
            "request_hash": request_hash,
            "status": PENDING,
            "body": b"",
            "created_at": datetime.now(UTC),
        }
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        statement = dialect.insert(idempotency_keys).values(**values).on_conflict_do_nothing()
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(statement)
        stored = await self.get(player_id, key)
        assert stored is not None  # rows are never deleted while a request can race
        return stored

    async def answer(
        self, player_id: str, key: str, request_hash: str, status: int, body: bytes
    ) -> None:
        """Keep the answer of the request that claimed the key, for its retries."""
        statement = (
            update(idempotency_keys)
            .where(
                idempotency_keys.c.player_id == player_id,
                idempotency_keys.c.key == key,
                idempotency_keys.c.request_hash == request_hash,
            )
            .values(status=status, body=body)
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(statement)

    async def release(self, player_id: str, key: str, request_hash: str) -> None:
        """Unbind a key whose request was refused, unless it has answered meanwhile."""
        statement = delete(idempotency_keys).where(
            idempotency_keys.c.player_id == player_id,
            idempotency_keys.c.key == key,
            idempotency_keys.c.request_hash == request_hash,
            idempotency_keys.c.status == PENDING,
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(statement)
