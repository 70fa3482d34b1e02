"""Alembic environment for both databases, driven by infra/migrate.py.

``infra.migrate`` hands over an open (sync-facing) connection in
``config.attributes["connection"]``; run from the ``alembic`` command line instead, the
URL is resolved like the server's (GINRUMMY_DATABASE_URL, else the embedded SQLite).
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from infra.database import create_engine, resolve_url
from infra.schema import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
elif context.is_offline_mode():
    context.configure(url=resolve_url(config.get_main_option("sqlalchemy.url")), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_async(resolve_url(config.get_main_option("sqlalchemy.url"))))
