"""Database driver failures as the infra error family, for every module that talks to
the database.

The event store, the projections and the tables beside them (players, tokens,
presence, deadlines...) all wrap their statements in ``translate_errors``, so a lost
connection is one ``StoreUnavailable`` whichever of them met it, and the server maps
that to one problem. It lives apart from the event store because most of its users
are not event stores.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import exc as sa_exc

from infra.database import NUL_REFUSED
from infra.errors import (
    ConcurrencyConflict,
    InfraError,
    StoreUnavailable,
    UnstorableText,
)

# PostgreSQL's "character not in repertoire" and "untranslatable character": U+0000.
_UNSTORABLE_TEXT = ("22021", "22P05")
# "query_canceled" (a statement_timeout, or pg_cancel_backend) and "lock_not_available"
# (a lock_timeout): the statement was stopped, not refused, and its transaction rolled
# back, so asking again is safe; an operator sets these on the database or its role.
_TIMED_OUT = ("57014", "55P03")


@contextmanager
def translate_errors() -> Iterator[None]:
    """Driver failures become the infra family: a lost connection, or a statement the
    database stopped for taking too long, is StoreUnavailable (503; ask again).

    A unique violation on (stream, version) can only mean another writer got there
    first, so it is a ConcurrencyConflict (the head lock makes this a backstop only).
    """
    try:
        yield
    except InfraError:
        raise
    except sa_exc.IntegrityError as error:
        raise ConcurrencyConflict(f"a concurrent append won: {error.orig}") from error
    except sa_exc.DBAPIError as error:
        sqlstate = getattr(error.orig, "sqlstate", None)
        if sqlstate in _UNSTORABLE_TEXT:
            raise UnstorableText(NUL_REFUSED) from error
        if sqlstate in _TIMED_OUT:
            raise StoreUnavailable(f"the database did not answer in time: {error.orig}") from error
        if error.connection_invalidated or isinstance(
            error, (sa_exc.OperationalError, sa_exc.InterfaceError)
        ):
            raise StoreUnavailable(f"the database connection failed: {error.orig}") from error
        if _is_connection_error(error.orig):
            raise StoreUnavailable(f"the database connection failed: {error.orig}") from error
        raise
    except (sa_exc.TimeoutError, OSError, ConnectionError) as error:
        raise StoreUnavailable(f"the database is unreachable: {error}") from error


def _is_connection_error(orig: BaseException | None) -> bool:
    """asyncpg's connection-loss errors, recognised by class name to avoid importing it.

    SQLAlchemy's adapter wraps the driver's exception, so the cause is checked too.
    """
    names: set[str] = set()
    for error in (orig, orig.__cause__ if orig is not None else None):
        if error is not None:
            names.update(cls.__name__ for cls in type(error).__mro__)
    return bool(
        names
        & {
            "PostgresConnectionError",
            "ConnectionDoesNotExistError",
            "AdminShutdownError",
            "ConnectionFailureError",
            "InterfaceError",
            "CannotConnectNowError",
            "InvalidCatalogNameError",  # the database itself is gone: retry once it is back
            "InvalidAuthorizationSpecificationError",  # no such role, or refused by pg_hba
            "InvalidPasswordError",
        }
    )
