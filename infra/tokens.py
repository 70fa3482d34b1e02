"""Bearer tokens: each player's valid tokens, as hashes, with an optional expiry.

A token is valid while its row exists and its expiry (epoch ms, NULL: never) is ahead.
Rotating a token deletes its row and inserts the new one in one transaction, so of two
rotations of one token exactly one succeeds; revoking deletes every row of a player.
Every server process reads this one table, so a revocation holds on all of them as
soon as their short-lived trust (server/known_tokens.py) lapses.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime

import msgspec
from sqlalchemy import bindparam, delete, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from infra.database import one_statement
from infra.driver_errors import translate_errors
from infra.players import Player, player_from_row
from infra.schema import players, sign_in_codes, tokens

# The lookup of a token this process does not trust yet (server/known_tokens.py): built once.
_HOLDER = (
    select(players, tokens.c.expires_ms)
    .join(tokens, tokens.c.player_id == players.c.id)
    .where(tokens.c.token_hash == bindparam("token_hash"))
)
_CHUNK = 500  # hashes per IN (...) list when checking many open sockets' tokens at once


class TokenHolder(msgspec.Struct, frozen=True):
    """A valid token's player and the moment (epoch ms) it stops working, if any."""

    player: Player
    expires_ms: int | None

    def valid_at(self, now_ms: int) -> bool:
        return self.expires_ms is None or now_ms < self.expires_ms


async def insert_token(
    conn: AsyncConnection, token_hash: str, player_id: str, expires_ms: int | None
) -> None:
    """A new token row, in the caller's transaction (an issue, a rotation, a redeemed
    sign-in code)."""
    await conn.execute(
        insert(tokens).values(
            token_hash=token_hash,
            player_id=player_id,
            created_at=datetime.now(UTC),
            expires_ms=expires_ms,
        )
    )


class Tokens:
    """The ``tokens`` table; the engine is the store's (``store.engine``)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def holder(self, token_hash: str) -> TokenHolder | None:
        """The token's player and expiry, or None if no such token exists (any more)."""
        with translate_errors():
            async with one_statement(self.engine) as conn:
                row = (await conn.execute(_HOLDER, {"token_hash": token_hash})).first()
        if row is None:
            return None
        return TokenHolder(player=player_from_row(row), expires_ms=row.expires_ms)

    async def issue(self, player_id: str, token_hash: str, expires_ms: int | None) -> None:
        """Another token for an existing player (a second device, a bot of its own)."""
        with translate_errors():
            async with self.engine.begin() as conn:
                await insert_token(conn, token_hash, player_id, expires_ms)

    async def rotate(self, old_hash: str, new_hash: str, expires_ms: int | None) -> bool:
        """Replace a token by a new one; False (nothing changed) if the old one is gone."""
        with translate_errors():
            async with self.engine.begin() as conn:
                owner = (
                    await conn.execute(
                        delete(tokens)
                        .where(tokens.c.token_hash == old_hash)
                        .returning(tokens.c.player_id)
                    )
                ).scalar_one_or_none()
                if owner is None:
                    return False
                await insert_token(conn, new_hash, owner, expires_ms)
        return True

    async def revoke_all(self, player_id: str) -> set[str]:
        """Delete every token of the player ("sign out everywhere"), and its sign-in code,
        which would make another; the hashes deleted. The code goes first: a redeem that
        spent it meanwhile has its token committed before the tokens are deleted, so that
        token goes too (on PostgreSQL each statement sees what committed before it)."""
        statement = (
            delete(tokens).where(tokens.c.player_id == player_id).returning(tokens.c.token_hash)
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    delete(sign_in_codes).where(sign_in_codes.c.player_id == player_id)
                )
                return {row[0] for row in await conn.execute(statement)}

    async def valid(self, token_hashes: Collection[str], now_ms: int) -> set[str]:
        """Those of the hashes that are still valid tokens at ``now_ms``."""
        wanted = sorted(set(token_hashes))
        found: set[str] = set()
        with translate_errors():
            async with self.engine.connect() as conn:
                for start in range(0, len(wanted), _CHUNK):
                    query = select(tokens.c.token_hash).where(
                        tokens.c.token_hash.in_(wanted[start : start + _CHUNK]),
                        or_(tokens.c.expires_ms.is_(None), tokens.c.expires_ms > now_ms),
                    )
                    found.update(row[0] for row in await conn.execute(query))
        return found
