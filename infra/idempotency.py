"""Idempotency keys for HTTP requests: the first response to a (player, key) is kept.

``put`` is insert-if-absent and returns whichever response won, so two concurrent
requests with one key both answer with the same stored response.
"""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.schema import idempotency_keys
from infra.sql_event_store import translate_errors


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

    async def put(
        self, player_id: str, key: str, request_hash: str, status: int, body: bytes
    ) -> StoredResponse:
        """Store the response unless one is stored already; return the one that is stored.

        The caller compares ``request_hash`` of the result with its own to detect a key
        reused for a different request.
        """
        values = {
            "player_id": player_id,
            "key": key,
            "request_hash": request_hash,
            "status": status,
            "body": body,
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
