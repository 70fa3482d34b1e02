"""The PostgreSQL append: a whole group in one call of ``ginrummy_append`` (migrations 0008, 0018).

The statement-by-statement path costs six to eight round trips per group and builds
each statement in Python; here the group goes to the server as one JSON document and
the function takes the head lock, decides each append in arrival order exactly as
``append_plan.plan`` does, inserts, moves the head and queues the NOTIFY. The
statement is one module-level ``text`` construct, so SQLAlchemy compiles it once and
asyncpg prepares it once per connection. Run in autocommit it is one round trip: the
statement's implicit transaction holds the head lock until its commit, which is what
the ordering argument needs (docs/event-store.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy import DateTime, Text, bindparam, text
from sqlalchemy.ext.asyncio import AsyncConnection

from infra.append_plan import (
    AppendRequest,
    Decided,
    conflict,
    used_on_another_stream,
    used_with_another_payload,
)
from infra.errors import InfraError
from infra.event_store import AppendResult

APPEND = text("SELECT ginrummy_append(CAST(:group_ AS jsonb), :now)").bindparams(
    bindparam("group_", type_=Text), bindparam("now", type_=DateTime(timezone=True))
)

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder()


async def append_group(
    conn: AsyncConnection, requests: list[AppendRequest], now: datetime
) -> Decided:
    """Append ``requests`` in one statement on ``conn`` (which owns the transaction)."""
    group = [
        {
            "s": r.stream_id,
            "v": r.expected_version,
            "c": r.command_id,
            "h": r.command_hash,
            "e": r.encoded,
            "d": r.after_previous,
        }
        for r in requests
    ]
    raw = await conn.execute(APPEND, {"group_": _encoder.encode(group).decode(), "now": now})
    answer: dict[str, Any] = _decoder.decode(raw.scalar_one())
    outcomes = [_outcome(r, entry, now) for r, entry in zip(requests, answer["out"], strict=True)]
    return Decided(int(answer["start"]), int(answer["head"]), outcomes)


def _outcome(request: AppendRequest, entry: list[Any], now: datetime) -> AppendResult | InfraError:
    kind = entry[0]
    if kind == "ok":
        _, first, last, position = entry
        return AppendResult(request.stream_id, first, last, position, recorded_at=now)
    if kind == "dup":
        _, first, last, position = entry
        return AppendResult(request.stream_id, first, last, position, duplicate=True)
    if kind == "conflict":
        return conflict(request, int(entry[1]))
    if kind == "unwritten":
        return conflict(request, int(entry[1]), unwritten_before=True)
    if kind == "other_stream":
        return used_on_another_stream(request)
    if kind == "other_payload":
        return used_with_another_payload(request)
    raise ValueError(f"ginrummy_append answered {entry!r}")  # a function from another version
