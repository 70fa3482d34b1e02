"""Shared database fixtures: real SQLite files and a real PostgreSQL, migrated to head.

PostgreSQL comes from ``TEST_DATABASE_URL`` (``scripts/test-env.sh`` starts the local
server and sets it). Each test session creates its own database on that server and
drops it at the end, so helpers running tests at the same time never collide; every
test then starts from empty tables. Without PostgreSQL the PostgreSQL tests skip,
except under ``CI=true``, where they fail.

Fixtures: ``pg_url`` / ``sqlite_url`` (an empty migrated database), ``db_url``
(parametrised over both), ``store`` (an open SqlEventStore on ``db_url``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from infra.database import asyncpg_dsn
from infra.migrate import upgrade
from infra.sql_event_store import SqlEventStore
from infra.store import open_store

# Every table a test may write, emptied before each PostgreSQL test.
_TABLES = (
    "events",
    "commands",
    "players",
    "idempotency_keys",
    "projection_checkpoints",
    "matches",
    "player_stats",
    "stats_seats",
    "snapshots",
)


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _postgres_missing(reason: str) -> None:
    if _under_ci():
        pytest.fail(f"PostgreSQL is required when CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


async def _admin(dsn: str, *statements: str) -> None:
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def _pg_session_url() -> Iterator[str]:
    server_url = os.environ.get("TEST_DATABASE_URL")
    if not server_url:
        _postgres_missing("TEST_DATABASE_URL is not set (source scripts/test-env.sh)")
        return
    name = f"ginrummy_t_{uuid.uuid4().hex[:12]}"
    admin_dsn = asyncpg_dsn(server_url)
    try:
        # Durability across an OS crash is not under test; commit latency would dominate.
        asyncio.run(
            _admin(
                admin_dsn,
                f"CREATE DATABASE {name}",
                f"ALTER DATABASE {name} SET synchronous_commit = off",
            )
        )
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        _postgres_missing(f"PostgreSQL at {make_url(server_url).host} unreachable: {error}")
        return
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    try:
        upgrade(url)
        yield url
    finally:
        asyncio.run(_admin(admin_dsn, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture
async def pg_url(_pg_session_url: str) -> str:
    """The session's private PostgreSQL database, with every table emptied."""
    await _admin(
        asyncpg_dsn(_pg_session_url),
        *(f"DELETE FROM {table}" for table in _TABLES),
        "UPDATE log_head SET position = 0",
    )
    return _pg_session_url


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.sqlite3"
    upgrade(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture
def sqlite_url(_sqlite_template: Path, tmp_path: Path) -> str:
    """A fresh migrated SQLite file (a copy of one migrated once per session)."""
    path = tmp_path / "store.sqlite3"
    shutil.copyfile(_sqlite_template, path)
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty migrated database; every test using it runs on both backends."""
    fixture = "sqlite_url" if request.param == "sqlite" else "pg_url"
    url: str = request.getfixturevalue(fixture)
    return url


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[SqlEventStore]:
    opened = await open_store(db_url, migrate=False)
    try:
        yield opened
    finally:
        await opened.close()
