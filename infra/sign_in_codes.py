"""One-time sign-in codes: a player's way onto another device, as hashes with an expiry.

A code works only while the token that made it does: the page's "Sign out" rotates its
token, and a code shown on a shared computer must not outlive that; a code written just
after a "sign out everywhere" (by a process that still trusted the revoked token for a
moment) dies with the token too, since the redeem asks for the issuer in its own DELETE.

A player has at most one live code (its row, keyed by the player too): a new one
replaces it. Redeeming deletes the code's row and inserts a token in one transaction,
with the expiry in the DELETE's own condition, so of two redeems of one code exactly
one gets a token, on SQLite (writes take turns) and PostgreSQL (the second DELETE
waits on the first's row lock, then finds the row gone) alike.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.database import upsert_dialect
from infra.driver_errors import translate_errors
from infra.schema import sign_in_codes, tokens
from infra.tokens import insert_token


class SignInCodes:
    """The ``sign_in_codes`` table; the engine is the store's."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._postgres = engine.dialect.name == "postgresql"

    async def replace(
        self, player_id: str, code_hash: str, issuer_hash: str, expires_ms: int, now_ms: int
    ) -> None:
        """The player's one live code is now this one, made with the token ``issuer_hash``;
        codes of anyone expired by ``now_ms`` go too (the table holds only what can still
        be redeemed, or nearly)."""
        dialect = upsert_dialect(self._postgres)
        row = {
            "code_hash": code_hash,
            "player_id": player_id,
            "created_at": datetime.now(UTC),
            "expires_ms": expires_ms,
            "issuer_hash": issuer_hash,
        }
        upsert = dialect.insert(sign_in_codes).values(row)
        upsert = upsert.on_conflict_do_update(
            index_elements=[sign_in_codes.c.player_id],
            set_={
                "code_hash": upsert.excluded.code_hash,
                "created_at": upsert.excluded.created_at,
                "expires_ms": upsert.excluded.expires_ms,
                "issuer_hash": upsert.excluded.issuer_hash,
            },
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                await conn.execute(
                    delete(sign_in_codes).where(sign_in_codes.c.expires_ms <= now_ms)
                )
                await conn.execute(upsert)

    async def redeem(
        self, code_hash: str, now_ms: int, token_hash: str, token_expires_ms: int | None
    ) -> str | None:
        """Spend the code for a new token (stored as ``token_hash``); its player's id, or
        None (nothing changed) if no live code has that hash: wrong, expired or spent."""
        issuer_live = (
            select(tokens.c.token_hash)
            .where(
                tokens.c.token_hash == sign_in_codes.c.issuer_hash,
                or_(tokens.c.expires_ms.is_(None), tokens.c.expires_ms > now_ms),
            )
            .exists()
        )
        spend = (
            delete(sign_in_codes)
            .where(
                sign_in_codes.c.code_hash == code_hash,
                sign_in_codes.c.expires_ms > now_ms,
                issuer_live,  # signed out (rotated, revoked) since: the code died with it
            )
            .returning(sign_in_codes.c.player_id)
        )
        with translate_errors():
            async with self.engine.begin() as conn:
                player_id = (await conn.execute(spend)).scalar_one_or_none()
                if player_id is None:
                    return None
                await insert_token(conn, token_hash, player_id, token_expires_ms)
        return str(player_id)
