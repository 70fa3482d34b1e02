"""Engines for the two supported databases, configured so the store's guarantees hold.

SQLite: WAL (readers never block the writer), a long busy timeout, and transactions we
begin ourselves, so a write transaction can be ``BEGIN IMMEDIATE``: it takes the write
lock before reading the log head, which is what serialises appends on SQLite. It also
refuses U+0000 in any text it is given, to write or to look up, as PostgreSQL does
(``UnstorableText``): an answer must not depend on the backend (a match id with a NUL
was a 404 on SQLite and a 422 on PostgreSQL).
PostgreSQL: asyncpg with a pool of ``MAX_CONNECTIONS`` (a setting), each kept once opened.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from types import ModuleType
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from infra.errors import BadDatabaseUrl, UnstorableText

DEFAULT_SQLITE_PATH = Path("data") / "ginrummy.sqlite3"
URL_ENV = "GINRUMMY_DATABASE_URL"
IMMEDIATE = "ginrummy_begin_immediate"  # execution option: a write transaction on SQLite


def resolve_url(url: str | None = None, *, create_dirs: bool = True) -> str:
    """The async URL to use: the argument, else $GINRUMMY_DATABASE_URL, else embedded SQLite.

    Plain ``postgresql://`` and ``sqlite:///`` URLs get their async driver added, so an
    operator can paste the URL every other tool understands. ``create_dirs`` makes a
    SQLite file's directory, so that a server can create the file; a command that only
    reads passes False, so that running it in the wrong directory leaves no ``data/``.
    """
    url = url or os.environ.get(URL_ENV) or None
    if url is None:
        if create_dirs:
            DEFAULT_SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{DEFAULT_SQLITE_PATH}"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as error:  # its message would repeat the password
        raise BadDatabaseUrl(f"{URL_ENV} is not a database URL") from error
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+asyncpg")
    elif parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    if parsed.drivername not in ("postgresql+asyncpg", "sqlite+aiosqlite"):
        raise BadDatabaseUrl(f"{URL_ENV} must name PostgreSQL or SQLite, not {parsed.drivername!r}")
    if parsed.drivername == "sqlite+aiosqlite":
        if parsed.database in (None, "", ":memory:"):
            raise BadDatabaseUrl(f"{URL_ENV} must name a SQLite file: memory is not shared")
        if create_dirs:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    if "sslmode" in parsed.query:  # libpq's name; asyncpg's engine argument is ``ssl``
        query = dict(parsed.query)
        query["ssl"] = query.pop("sslmode")
        parsed = parsed.set(query=query)
    if parsed.drivername == "postgresql+asyncpg":
        unknown = sorted(set(parsed.query) - ASYNCPG_OPTIONS)
        if unknown:  # asyncpg would fail its first connect with a TypeError and a traceback
            raise BadDatabaseUrl(
                f"{URL_ENV} has options the PostgreSQL driver does not take: {', '.join(unknown)}"
                " (sslmode, and asyncpg.connect's keyword arguments, are understood)"
            )
    return parsed.render_as_string(hide_password=False)


# What a PostgreSQL URL's query may hold: asyncpg.connect's keyword arguments that a URL
# can carry, and the two SQLAlchemy's asyncpg dialect takes for itself.
ASYNCPG_OPTIONS = frozenset(
    {
        "host",
        "port",
        "user",
        "password",
        "database",
        "passfile",
        "service",
        "servicefile",
        "timeout",
        "statement_cache_size",
        "max_cached_statement_lifetime",
        "max_cacheable_statement_size",
        "command_timeout",
        "ssl",
        "direct_tls",
        "server_settings",
        "target_session_attrs",
        "krbsrvname",
        "gsslib",
        "prepared_statement_cache_size",
        "prepared_statement_name_func",
    }
)


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names (absolute), or None for PostgreSQL."""
    if not is_sqlite(url):
        return None
    return Path(make_url(url).database or "").resolve()


def describe(url: str) -> str:
    """The database a URL names, for a message or a log line: the SQLite file's absolute
    path, or the PostgreSQL database, host and port; never a user, password or query
    parameter (``?password=`` and ``?sslkey=`` are as secret as the password)."""
    file = sqlite_file(url)
    if file is not None:
        return f"the SQLite file {file}"
    parsed = make_url(url)
    host = parsed.host or parsed.query.get("host") or "localhost"  # a socket dir: ?host=
    return f"the PostgreSQL database {parsed.database} on {host}:{parsed.port or 5432}"


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def asyncpg_dsn(url: str) -> str:
    """The libpq-style DSN asyncpg wants, for the tailer's own LISTEN connection."""
    parsed = make_url(url).set(drivername="postgresql")
    if "ssl" in parsed.query:  # back to libpq's name, which a DSN uses
        query = dict(parsed.query)
        query["sslmode"] = query.pop("ssl")
        parsed = parsed.set(query=query)
    return parsed.render_as_string(hide_password=False)


# A fixed pool: every connection opened is kept, and past the limit a request waits for
# one to come back instead of opening more. A connection closed on its return was
# opened again by the next burst, on a request's critical path, and a connect costs tens
# of milliseconds of the event loop (TCP, the SSL request PostgreSQL may refuse,
# start-up): with 20 kept and 20 more allowed, an open loop of 300 actions/s over 64
# matches opened 131 connections in 40 s (64 ms each, median). Twenty held at once is
# plenty for a process on two cores (64 clients: 1,000 actions/s against 973 with the
# old pool), and keeps the budget of two processes, a test or a benchmark's pgbench under
# PostgreSQL's default 100 (benchmarks/RESULTS-server.md, 2026-12-03). The process
# holds at most ``connections`` (``GINRUMMY_DB_CONNECTIONS``).
MAX_CONNECTIONS = 20


def create_engine(url: str | None = None, connections: int = MAX_CONNECTIONS) -> AsyncEngine:
    url = resolve_url(url)
    if is_sqlite(url):
        engine = create_async_engine(url, connect_args={"timeout": 60}, hide_parameters=True)
        _configure_sqlite(engine)
        return engine
    engine = create_async_engine(
        url,
        pool_size=connections,
        max_overflow=0,
        hide_parameters=True,
        connect_args={"server_settings": {"application_name": application_name()}},
    )
    _skip_closed_connections(engine)
    return engine


def _skip_closed_connections(engine: AsyncEngine) -> None:
    """A pooled connection the database has closed is replaced at checkout, not used.

    A PostgreSQL restart or ``pg_terminate_backend`` closes every session the pool kept;
    the first request to draw one was answered 503 (the pool then replaces the others).
    The driver learns of the close as soon as the event loop reads it, so asking it
    costs no round trip, where SQLAlchemy's ``pool_pre_ping`` sends three (BEGIN, ``;``,
    ROLLBACK) on every checkout: measured side by side on a move's round trip, see the
    commit that added this. A session lost without a word (a silent network) still
    fails its request, as it would have failed the ping; so does one drawn in the
    moment between the database's goodbye (its FATAL message, which asyncpg has read)
    and the socket's close, a state asyncpg shows through no public call: that request
    is answered 503 and the next checkout replaces the session.
    """

    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if dbapi_connection.driver_connection.is_closed():
            raise DisconnectionError("the database closed this pooled connection")


def application_name(role: str = "") -> str:
    """What this process's PostgreSQL sessions are called in ``pg_stat_activity``: the
    program and the process id (``ginrummy 4242``, the tailer's ``ginrummy 4242 listen``),
    so an operator can tell which server holds a connection, a lock or a transaction."""
    return f"ginrummy {os.getpid()}" + (f" {role}" if role else "")


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        immediate = conn.get_execution_options().get(IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    @event.listens_for(engine.sync_engine, "handle_error")
    def _end_interrupted_statement(context: Any) -> None:
        """Close the cursor of a statement cut short before its connection is discarded.

        SQLAlchemy discards a connection whose statement was cancelled (an exit exception
        counts as a disconnect) without closing that statement's cursor. But aiosqlite's
        thread runs the statement anyway, and a SQLite connection closed while a statement
        still steps (RETURNING rows, or a read in a write transaction, not all read) stays
        open as a "zombie", keeping its transaction and the write lock until the cursor is
        freed by the garbage collector, which the server runs rarely: every other write
        waited and failed. This close is queued behind the statement in aiosqlite's
        thread, so it runs before the connection's close.
        """
        cursor = getattr(context.execution_context, "cursor", None)
        if context.is_disconnect and cursor is not None:
            with suppress(Exception):  # the connection may really be gone
                cursor.close()

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _refuse_nul(
        _conn: Any, _cursor: Any, _statement: str, parameters: Any, _context: Any, many: bool
    ) -> None:
        for row in parameters if many else (parameters,):
            values = row.values() if isinstance(row, dict) else (row or ())
            if any(isinstance(value, str) and "\x00" in value for value in values):
                raise UnstorableText(NUL_REFUSED)


NUL_REFUSED = "text with the NUL character (U+0000) cannot be stored or looked up"


@asynccontextmanager
async def one_statement(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A pooled connection for a single statement (a read, or one atomic upsert).

    On PostgreSQL it runs outside any transaction: otherwise asyncpg sends a BEGIN
    before the statement and the pool a ROLLBACK after it, three round trips for one
    (``SELECT 1`` measured 3.6 ms against 1.1 ms of wall time, 0.8 against 0.4 ms of
    client CPU, on the 2-core machine). A single statement sees one snapshot either
    way. SQLite keeps its own BEGIN (in-process, no round trip to save).
    """
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn


def upsert_dialect(postgres: bool) -> ModuleType:
    """The dialect whose ``insert`` upserts (both say ON CONFLICT), imported only when
    used: SQLAlchemy's PostgreSQL dialect was 25 ms of a SQLite server's start."""
    if postgres:
        from sqlalchemy.dialects import postgresql

        return postgresql
    from sqlalchemy.dialects import sqlite

    return sqlite
