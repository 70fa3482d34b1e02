"""Apply the Alembic migrations programmatically (the server at start-up, the tests).

Several server processes may start at once against one PostgreSQL: the upgrade runs in
one transaction holding an advisory lock, so they take turns and the later ones find
the schema already at head. A database this code cannot migrate is one clear error
(SchemaTooNew for a newer server's database, MigrationFailed when the database
refuses a step), and an upgrade that ran is logged with its revisions.

A database already at head, as at nearly every start, is told by one query against the
head read from the migration files' ``revision`` lines (``head_of_files``), without
Alembic: importing it (Mako, and Pygments through Mako) and loading every migration
script was a fifth of a server start's CPU, twice a start (``serve`` then the lifespan).
Anything else (no version table, an older, newer or unknown revision, a migration file
whose lines do not read plainly) goes the whole way, under the lock, as before.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import exc as sa_exc
from sqlalchemy import text
from sqlalchemy.engine import Connection

from infra.database import create_engine, resolve_url
from infra.errors import MigrationFailed, SchemaTooNew

log = logging.getLogger("ginrummy.migrate")

ROOT = Path(__file__).resolve().parent.parent
MIGRATION_LOCK = 7_466_954_251  # an arbitrary advisory-lock key, ours alone
VERSIONS = ROOT / "migrations" / "versions"
VERSION_TABLE = "alembic_version"  # Alembic's default, which migrations/env.py keeps

if TYPE_CHECKING:
    from alembic.config import Config

# A migration file's own lines, as the Alembic template writes them:
# ``revision: str = "0025"`` and ``down_revision: str | None = "0024"`` (or ``None``).
_REVISION = re.compile(r'^revision(?::[^=\n]*)? = "(\w+)"$', re.MULTILINE)
_DOWN_REVISION = re.compile(r'^down_revision(?::[^=\n]*)? = (?:"(\w+)"|None)$', re.MULTILINE)


@functools.cache
def head_of_files() -> str | None:
    """This code's head revision, read from the migration files' lines without Alembic;
    None when any file does not read plainly (a merge, a tuple, another spelling) or the
    files do not make one line of revisions: then only Alembic says, and it is asked."""
    revisions: dict[str, str | None] = {}
    for path in VERSIONS.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        revision = _REVISION.findall(source)
        down = _DOWN_REVISION.findall(source)
        if len(revision) != 1 or len(down) != 1 or revision[0] in revisions:
            return None
        revisions[revision[0]] = down[0] or None
    heads = set(revisions) - set(revisions.values())
    roots = [revision for revision, down in revisions.items() if down is None]
    if len(heads) != 1 or len(roots) != 1 or not set(revisions.values()) - {None} <= set(revisions):
        return None
    return heads.pop()


def _at_head_of_files(connection: Connection) -> bool:
    """Whether the database's one schema revision is ``head_of_files``: nothing to do."""
    head = head_of_files()
    if head is None or not connection.dialect.has_table(connection, VERSION_TABLE):
        return False
    rows = connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).all()
    return [row[0] for row in rows] == [head]


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return config


async def upgrade_async(url: str | None = None, revision: str = "head") -> None:
    def upgrade(config: Config) -> None:
        from alembic import command

        command.upgrade(config, revision)

    await _run(url, upgrade, done_at_head=revision == "head")


async def downgrade_async(url: str | None = None, revision: str = "base") -> None:
    def downgrade(config: Config) -> None:
        from alembic import command

        command.downgrade(config, revision)

    await _run(url, downgrade)


def upgrade(url: str | None = None, revision: str = "head") -> None:
    """Synchronous form, for scripts and CLIs that are not inside an event loop."""
    asyncio.run(upgrade_async(url, revision))


def downgrade(url: str | None = None, revision: str = "base") -> None:
    asyncio.run(downgrade_async(url, revision))


async def _run(
    url: str | None, action: Callable[[Config], None], *, done_at_head: bool = False
) -> None:
    """``action`` under the lock. ``done_at_head``: it has nothing to do at head, so a
    database at head is left as it is, unlocked (a process migrating it meanwhile holds
    its change uncommitted, so this one sees it behind and waits its turn for the lock)."""
    engine = create_engine(resolve_url(url))

    def run(connection: Connection) -> None:
        if done_at_head and _at_head_of_files(connection):
            return
        from alembic.script import ScriptDirectory
        from alembic.util import CommandError

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
            action(config)
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
        head_here = head_of_files()
        if head_here is not None and _at_head_of_files(connection):
            return head_here, head_here
        from alembic.script import ScriptDirectory

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
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()
