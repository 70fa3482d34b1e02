"""Apply the Alembic migrations programmatically (the server at start-up, the tests).

Several server processes may start at once against one PostgreSQL: the upgrade runs in
one transaction holding an advisory lock, so they take turns and the later ones find
the schema already at head.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection

from infra.database import create_engine, resolve_url

ROOT = Path(__file__).resolve().parent.parent
MIGRATION_LOCK = 7_466_954_251  # an arbitrary advisory-lock key, ours alone


def alembic_config() -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return config


async def upgrade_async(url: str | None = None, revision: str = "head") -> None:
    await _run(url, lambda cfg: command.upgrade(cfg, revision))


async def downgrade_async(url: str | None = None, revision: str = "base") -> None:
    await _run(url, lambda cfg: command.downgrade(cfg, revision))


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Synchronous form, for scripts and CLIs that are not inside an event loop."""
    asyncio.run(upgrade_async(url, revision))


def downgrade(url: str | None = None, revision: str = "base") -> None:
    asyncio.run(downgrade_async(url, revision))


async def _run(url: str | None, action: object) -> None:
    engine = create_engine(resolve_url(url))

    def run(connection: Connection) -> None:
        if connection.dialect.name == "postgresql":
            connection.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
        config = alembic_config()
        config.attributes["connection"] = connection
        action(config)  # type: ignore[operator]

    try:
        async with engine.connect() as conn:
            conn = await conn.execution_options(ginrummy_begin_immediate=True)
            async with conn.begin():
                await conn.run_sync(run)
    finally:
        await engine.dispose()
