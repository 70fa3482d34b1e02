"""Throwaway PostgreSQL databases beside a given one, for tests and benchmarks.

Every test session, end-to-end server and benchmark run gets a database of its own,
so concurrent runs never see, empty or drop each other's data.
"""

from __future__ import annotations

import uuid

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy.engine import make_url

from infra.database import asyncpg_dsn


async def execute_as_admin(server_url: str, *statements: str) -> None:
    """Run statements on the database ``server_url`` names (outside any transaction)."""
    conn = await asyncpg.connect(asyncpg_dsn(server_url), timeout=10)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


async def create_scratch_database(server_url: str, prefix: str, *settings: str) -> str:
    """A new empty database on the same server; returns its URL (same driver).

    ``settings`` are ``name = value`` pairs applied with ``ALTER DATABASE … SET``.
    """
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    await execute_as_admin(
        server_url,
        f'CREATE DATABASE "{name}"',
        *(f'ALTER DATABASE "{name}" SET {setting}' for setting in settings),
    )
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


async def drop_scratch_database(url: str) -> None:
    """Drop the database ``url`` names, closing any session still connected to it."""
    parsed = make_url(url)
    admin = parsed.set(database="postgres").render_as_string(hide_password=False)
    await execute_as_admin(admin, f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
