"""Open the store the server runs on: the configured database, migrated to head.

With no URL and no ``GINRUMMY_DATABASE_URL``, it is the embedded SQLite file
``./data/ginrummy.sqlite3``, so a fresh checkout runs with no database set up.
"""

from __future__ import annotations

from infra.database import MAX_CONNECTIONS, create_engine, resolve_url
from infra.event_store import EventStore
from infra.migrate import upgrade_async
from infra.sql_event_store import SqlEventStore, translate_errors


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
        with translate_errors():
            await upgrade_async(url)
    return SqlEventStore(create_engine(url, connections), url)


def _conforms(store: SqlEventStore) -> EventStore:
    """Never called: mypy checks here that SqlEventStore honours the EventStore contract."""
    return store
