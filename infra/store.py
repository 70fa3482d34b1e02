"""Open the store the server runs on: the configured database, migrated to head.

With no URL and no ``GINRUMMY_DATABASE_URL``, it is the embedded SQLite file
``./data/ginrummy.sqlite3``, so a fresh checkout runs with no database set up.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

from sqlalchemy import exc as sa_exc

from infra.database import MAX_CONNECTIONS, create_engine, describe, resolve_url, sqlite_file
from infra.driver_errors import translate_errors
from infra.errors import BadDatabaseUrl
from infra.event_store import EventStore
from infra.migrate import schema_revisions, upgrade_async
from infra.sql_event_store import SqlEventStore


async def open_store(
    url: str | None = None, *, migrate: bool = True, connections: int = MAX_CONNECTIONS
) -> SqlEventStore:
    """The store for ``url`` (or the environment's, or the embedded default).

    ``migrate`` applies the Alembic migrations first; several processes may do so at once.
    ``connections``: the most PostgreSQL connections it holds at once (each kept once opened).
    An unreachable database raises StoreUnavailable.
    """
    url = resolve_url(url)
    if migrate:
        with translate_errors(), _a_database_file(url):
            await upgrade_async(url)
    return SqlEventStore(create_engine(url, connections), url)


@contextlib.contextmanager
def _a_database_file(url: str) -> Iterator[None]:
    """SQLite's "file is not a database" as ``BadDatabaseUrl``: the URL names some other
    file (or a damaged one), which no retry mends, so it is the setting's fault; said so
    in one line by ``serve`` and by the maintenance commands alike. Told by SQLite's own
    error code: any other database error keeps its own name."""
    try:
        yield
    except sa_exc.DatabaseError as error:
        file = sqlite_file(url)
        code = getattr(error.orig, "sqlite_errorcode", None)  # extended: the low byte is the kind
        if (
            file is None
            or code is None
            or code & 0xFF not in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)
        ):
            raise
        raise BadDatabaseUrl(f"{file} is not a SQLite database: {error.orig}") from error


class NotOpened(Exception):
    """A maintenance command's database, refused before anything is read: the command's
    one line, never an HTTP answer (so not an ``InfraError``, each of which is one)."""

    rule = "not_opened"


class NoDatabase(NotOpened):
    """No SQLite file where the command looked (it was run in another directory)."""

    rule = "no_database"


class SchemaBehind(NotOpened):
    """The database is behind this code's schema, and a maintenance command never migrates."""

    rule = "schema_behind"


async def open_existing_store(url: str | None = None) -> SqlEventStore:
    """The store a maintenance command reads (``ginrummy replay``, ``verify``, the projection
    rebuilds), which never migrates: run from a newer checkout while the old servers still
    use the database, a migration would change tables under them (README, "Upgrading").
    A schema behind this code's is ``SchemaBehind``, and a SQLite file that is not there
    ``NoDatabase`` (no ``data/`` directory is made for it: run from another directory,
    that is the likely mistake); each leaves everything as it was."""
    url = resolve_url(url, create_dirs=False)
    file = sqlite_file(url)
    if file is not None and not file.exists():
        raise NoDatabase(
            f"there is no SQLite file {file}; run this where the server runs (beside its"
            " data/ directory) or set GINRUMMY_DATABASE_URL"
        )
    with translate_errors(), _a_database_file(url):
        revision, head = await schema_revisions(url)
    if revision != head:
        raise SchemaBehind(
            f"{describe(url)} is at schema revision {revision or 'none'}, this version needs"
            f" {head}: stop the old version's servers and start this version's once (it"
            " migrates the database), then run this again"
        )
    return await open_store(url, migrate=False)


def _conforms(store: SqlEventStore) -> EventStore:
    """Never called: mypy checks here that SqlEventStore honours the EventStore contract."""
    return store
