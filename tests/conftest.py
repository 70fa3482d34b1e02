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
import functools
import os
import shutil
import ssl
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx._transports.default as httpx_transports
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
    "sign_in_codes",
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


def _share_one_tls_context() -> None:
    """Every httpx client of the tests shares one default TLS context, built once.

    httpx builds one per client (a CA bundle parsed, ~20 ms of CPU each), and the tests
    make thousands of clients, all speaking plain HTTP to 127.0.0.1: CPU taken from the
    servers under test on two cores. The context is the one httpx would build (for the
    same SSL_CERT_FILE / SSL_CERT_DIR); a client given ``verify`` or a certificate still
    gets its own.
    """
    made = httpx_transports.create_ssl_context
    if getattr(made, "shared", False):
        return

    @functools.cache
    def default(trust_env: bool, cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
        return made(trust_env=trust_env)

    def create_ssl_context(
        verify: ssl.SSLContext | str | bool = True, cert: Any = None, trust_env: bool = True
    ) -> ssl.SSLContext:
        if verify is True and cert is None:
            return default(
                trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
            )
        return made(verify=verify, cert=cert, trust_env=trust_env)

    create_ssl_context.shared = True  # type: ignore[attr-defined]
    httpx_transports.create_ssl_context = create_ssl_context


_share_one_tls_context()


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
