"""Shared database fixtures: real SQLite files and a real PostgreSQL, migrated to head.

PostgreSQL comes from ``TEST_DATABASE_URL`` (``scripts/test-env.sh`` starts the local
server and sets it). Each test session (and each pytest-xdist worker: `make test` runs
two) creates its own database on that server and drops it at the end, so sessions
running at the same time never collide; every test then starts from empty tables.
Without PostgreSQL the PostgreSQL tests skip, except under ``CI=true``, where they fail.

Fixtures: ``pg_url`` / ``sqlite_url`` (an empty migrated database), ``db_url``
(parametrised over both), ``store`` (an open SqlEventStore on ``db_url``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from infra.migrate import upgrade
from infra.scratch_database import (
    create_scratch_database,
    drop_scratch_database,
    execute_as_admin,
)
from infra.sql_event_store import SqlEventStore
from infra.store import open_store

# Every table a test may write, emptied before each PostgreSQL test.
_TABLES = (
    "events",
    "commands",
    "players",
    "tokens",
    "rate_limits",
    "idempotency_keys",
    "projection_checkpoints",
    "matches",
    "player_stats",
    "stats_seats",
    "snapshots",
    "ratings",
    "rating_history",
    "rated_matches",
    "seat_presence",
    "stream_presence",
    "spectators",
    "player_blocks",
)


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _postgres_missing(reason: str) -> None:
    if _under_ci():
        pytest.fail(f"PostgreSQL is required when CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def _pg_session_url() -> Iterator[str]:
    server_url = os.environ.get("TEST_DATABASE_URL")
    if not server_url:
        _postgres_missing("TEST_DATABASE_URL is not set (source scripts/test-env.sh)")
        return
    try:
        # Durability across an OS crash is not under test; commit latency would dominate.
        url = asyncio.run(
            create_scratch_database(server_url, "ginrummy_t", "synchronous_commit = off")
        )
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        _postgres_missing(f"PostgreSQL at {make_url(server_url).host} unreachable: {error}")
        return
    try:
        upgrade(url)
        yield url
    finally:
        asyncio.run(drop_scratch_database(url))


@pytest.fixture
async def pg_url(_pg_session_url: str) -> str:
    """The session's private PostgreSQL database, with every table emptied."""
    await execute_as_admin(
        _pg_session_url,
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
