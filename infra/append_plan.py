"""Deciding a group of appends: pure logic, so one transaction can commit many at once.

Given what the database holds for the group's streams and command ids (read under the
head lock), ``plan`` walks the appends in arrival order, exactly as if each ran alone
in turn: a later append sees the versions and command ids of the earlier ones. It
returns each append's answer and the rows to insert; nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from infra.errors import ConcurrencyConflict, IdempotencyMismatch, InfraError
from infra.event_store import AppendResult


@dataclass
class AppendRequest:
    """One append: a stream, the version it expects, and its encoded events."""

    stream_id: str
    expected_version: int
    encoded: list[tuple[str, int, str]]  # (type, schema_version, payload JSON)
    command_id: str | None = None
    command_hash: str | None = None
    # Written only if the append just before it in the group was newly written: the
    # follow-up of a chain (a player's move, then the house AI's reply decided on it).
    after_previous: bool = False


@dataclass
class StoredCommand:
    """A command id's first result, as recorded in the ``commands`` table."""

    stream_id: str
    command_hash: str | None
    first_version: int
    last_version: int
    last_position: int


@dataclass
class Plan:
    outcomes: list[AppendResult | InfraError] = field(default_factory=list)
    event_rows: list[dict[str, Any]] = field(default_factory=list)
    command_rows: list[dict[str, Any]] = field(default_factory=list)
    head: int = 0


@dataclass
class Decided:
    """What a group's transaction did: the head before and after, and each answer."""

    start: int
    head: int
    outcomes: list[AppendResult | InfraError]


def plan(
    group: list[AppendRequest],
    versions: dict[str, int],
    commands: dict[str, StoredCommand],
    head: int,
    now: datetime,
) -> Plan:
    """The outcome of each append and the rows to write; ``versions``/``commands`` are
    the stored state of the group's streams and command ids (missing = none)."""
    versions, commands = dict(versions), dict(commands)
    result = Plan(head=head)
    previous_written = False
    for request in group:
        if request.after_previous and not previous_written:
            outcome: AppendResult | InfraError | None = conflict(
                request, versions.get(request.stream_id, 0), unwritten_before=True
            )
        else:
            outcome = _decide(request, versions, commands)
        previous_written = outcome is None
        if outcome is not None:
            result.outcomes.append(outcome)
            continue
        n, expected = len(request.encoded), request.expected_version
        result.event_rows += [
            {
                "position": result.head + i,
                "stream_id": request.stream_id,
                "version": expected + i,
                "type": type_,
                "schema_version": schema_version,
                "payload": payload,
                "recorded_at": now,
                "command_id": request.command_id,
            }
            for i, (type_, schema_version, payload) in enumerate(request.encoded, start=1)
        ]
        result.head += n
        versions[request.stream_id] = expected + n
        appended = AppendResult(
            request.stream_id, expected + 1, expected + n, result.head, recorded_at=now
        )
        result.outcomes.append(appended)
        if request.command_id is not None:
            stored = StoredCommand(
                request.stream_id, request.command_hash, expected + 1, expected + n, result.head
            )
            commands[request.command_id] = stored
            result.command_rows.append(
                {"command_id": request.command_id, "recorded_at": now, **vars(stored)}
            )
    return result


def _decide(
    request: AppendRequest, versions: dict[str, int], commands: dict[str, StoredCommand]
) -> AppendResult | InfraError | None:
    """A refusal or a duplicate's first result; None when the append goes ahead.

    The command id is checked first: a retry after success carries a stale version and
    must still get the first result, not a conflict. A command id names one append to
    one stream, so the same id on another stream is a mismatch, whatever its hash.
    """
    first = commands.get(request.command_id) if request.command_id is not None else None
    if first is not None:
        if first.stream_id != request.stream_id:
            return used_on_another_stream(request)
        if request.command_hash is not None and first.command_hash != request.command_hash:
            return used_with_another_payload(request)
        return AppendResult(
            first.stream_id, first.first_version, first.last_version, first.last_position, True
        )
    current = versions.get(request.stream_id, 0)
    if current != request.expected_version:
        return conflict(request, current)
    return None


# The refusals, shared with the PostgreSQL function's answers (infra/append_pg.py), so
# both paths refuse in the same words.


def used_on_another_stream(request: AppendRequest) -> IdempotencyMismatch:
    return IdempotencyMismatch(
        f"command id {request.command_id!r} was already used on another stream"
    )


def used_with_another_payload(request: AppendRequest) -> IdempotencyMismatch:
    return IdempotencyMismatch(
        f"command id {request.command_id!r} was already used with a different payload"
    )


def conflict(
    request: AppendRequest, current: int, *, unwritten_before: bool = False
) -> ConcurrencyConflict:
    """The refusal of ``request``: the stream moved, or (``unwritten_before``) the
    append before it in its chain was not written, so this one must not be either."""
    message = (
        f"not written to stream {request.stream_id!r}: the append before it in its chain was not"
        if unwritten_before
        else f"stream {request.stream_id!r} is at version {current}, not {request.expected_version}"
    )
    return ConcurrencyConflict(
        message,
        stream_id=request.stream_id,
        expected=request.expected_version,
        actual=current,
    )
