"""The infrastructure's error family, mapped to HTTP problems in one place in ``server/``."""

from __future__ import annotations


class InfraError(Exception):
    """Base of every storage failure."""

    rule = "infra_error"


class ConcurrencyConflict(InfraError):
    """The stream moved on since the caller read it: expected version is stale."""

    rule = "concurrency_conflict"

    def __init__(
        self,
        message: str,
        *,
        stream_id: str | None = None,
        expected: int | None = None,
        actual: int | None = None,
    ) -> None:
        super().__init__(message)
        self.stream_id = stream_id
        self.expected = expected
        self.actual = actual


class StreamNotFound(InfraError):
    """No events exist for that stream (match) id."""

    rule = "stream_not_found"


class IdempotencyMismatch(InfraError):
    """A command id was reused with a different payload."""

    rule = "idempotency_mismatch"


class UndecodableEvent(InfraError):
    """A stored payload that does not decode as a known event type; names its position."""

    rule = "undecodable_event"

    def __init__(self, message: str, *, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class StoreUnavailable(InfraError):
    """The database could not be reached or the connection was lost; safe to retry."""

    rule = "store_unavailable"


class LockWaitTimeout(InfraError):
    """What the request needs (a player's name, say) stayed held by another request past
    the wait allowed: nothing was done; safe to retry a moment later."""

    rule = "busy"
    retry_after_s = 1


class ProjectionsBehind(InfraError):
    """Readiness refused: this process's read models are too far behind the log."""

    rule = "projections_behind"


class AlreadyExists(InfraError):
    """A row with that unique key (a player id or token hash) is already stored."""

    rule = "already_exists"


class UnstorableText(InfraError):
    """Text the database cannot hold or look up: PostgreSQL refuses U+0000 in text."""

    rule = "unstorable_text"


class BadDatabaseUrl(InfraError):
    """The configured database URL names no database this server can use."""

    rule = "bad_database_url"


class SchemaTooNew(InfraError):
    """The database's schema revision is one this code does not know: a newer server's."""

    rule = "schema_too_new"


class MigrationFailed(InfraError):
    """A migration was refused by the database; its transaction left the schema as it was."""

    rule = "migration_failed"
