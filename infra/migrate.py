"""Apply the Alembic migrations programmatically (the server at start-up, the tests).

Several server processes may start at once against one PostgreSQL: the upgrade runs in
one transaction holding an advisory lock, so they take turns and the later ones find
the schema already at head. A database this code cannot migrate is one clear error
(SchemaTooNew for a newer server's database, MigrationFailed when the database
refuses a step), and an upgrade that ran is logged with its revisions.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import exc as sa_exc
from sqlalchemy import text
from sqlalchemy.engine import Connection

from infra.database import create_engine, resolve_url
from infra.errors import MigrationFailed, SchemaTooNew

log = logging.getLogger("ginrummy.migrate")

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
        before = _revision(connection)
        known = ScriptDirectory.from_config(config)
        head = known.get_current_head()
        if before is not None and before not in {s.revision for s in known.walk_revisions()}:
            raise SchemaTooNew(
                f"the database is at schema revision {before}, which this server does not"
                f" know (it knows up to {head}): run the newer server it came from"
            )
        try:
            action(config)  # type: ignore[operator]
        except (CommandError, sa_exc.DBAPIError) as error:
            cause = getattr(error, "orig", None) or error
            reason = (
                str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
            )
            raise MigrationFailed(
                f"migrating the database from schema revision {before or 'none'} failed,"
                f" and nothing was changed: {reason}"
            ) from error
        after = _revision(connection)
        if after != before:
            log.info("database schema migrated from revision %s to %s", before or "none", after)

    try:
        async with engine.connect() as conn:
            conn = await conn.execution_options(ginrummy_begin_immediate=True)
            async with conn.begin():
                await conn.run_sync(run)
    finally:
        await engine.dispose()


async def schema_revisions(url: str | None = None) -> tuple[str | None, str]:
    """The database's schema revision and this code's head, without changing anything.

    For commands that only read (``ginrummy replay``): they must not migrate a database
    that an older server may still be using. SchemaTooNew, as for an upgrade, when the
    database is at a revision this code does not know.
    """
    engine = create_engine(resolve_url(url, create_dirs=False))

    def read(connection: Connection) -> tuple[str | None, str]:
        known = ScriptDirectory.from_config(alembic_config())
        head = known.get_current_head()
        assert head is not None
        current = _revision(connection)
        if current is not None and current not in {s.revision for s in known.walk_revisions()}:
            raise SchemaTooNew(
                f"the database is at schema revision {current}, which this code does not"
                f" know (it knows up to {head}): run the newer version it came from"
            )
        return current, head

    try:
        async with engine.connect() as conn:
            return await conn.run_sync(read)
    finally:
        await engine.dispose()


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()
