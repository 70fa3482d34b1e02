"""An action with an idempotency key: the one rule both HTTP and the socket follow.

A key names one request of one player: the match and the body (``request_hash``).
The same request again gets the first answer and changes nothing; any other request
with that key (another action, version, match or channel) is IdempotencyKeyReused and
changes nothing. A refused request (an illegal move, a stale version, no seat) leaves
nothing behind, its key included. The answer is not stored: a retry finds its command
in the log.

The key is bound where the action is written: its command id and hash go into the
log in the append's own transaction, whose command-id check refuses any other request
with that id, so a keyed action costs the round trips of an unkeyed one. Before it
decides, a request is refused if this process is acting on the key for another
request (``KeysInFlight``) or if the match's log holds the key with another hash (the
match service's check); only a refused request asks the log whether the key was bound
to another match's request, so that it is told of the reuse rather than of its refusal.
"""

from __future__ import annotations

import hashlib

import msgspec
from msgspec import UNSET

from domain.commands import AnySeatCommand
from domain.errors import DomainError
from infra.errors import IdempotencyMismatch
from server.problems import IdempotencyKeyReused, ServerError
from server.schemas import ActionRequest, ActionResponse, to_command
from server.services import Services

REUSED = "this idempotency key was used for a different request"


def request_hash(match_id: str, request: ActionRequest) -> str:
    """The request as the match will read it: an action's optional ``seat`` may only be
    the caller's own (the match checks it on a retry too), so with or without it a body
    is the same request, and a client may add or drop it between retries."""
    seatless = msgspec.structs.replace(request.action, seat=UNSET)
    canonical = msgspec.structs.replace(request, action=seatless)
    return hashlib.sha256(match_id.encode() + b"\n" + msgspec.json.encode(canonical)).hexdigest()


def key_command_id(player_id: str, key: str) -> str:
    """The command id a keyed action is logged under: the key's binding."""
    return f"key:{player_id}:{key}"


async def act(
    services: Services, match_id: str, player_id: str, request: ActionRequest, key: str | None
) -> ActionResponse:
    """Act for the player; with a key, at most once per key."""

    def command_for(seat: int) -> AnySeatCommand:
        return to_command(request.action, seat)

    if key is None:
        return await services.matches.act(match_id, player_id, command_for, request.version)
    digest = request_hash(match_id, request)
    command_id = key_command_id(player_id, key)
    with services.keys_in_flight.hold(player_id, key, digest) as held:
        if not held:
            raise IdempotencyKeyReused(REUSED)
        try:
            # A retry finds its command in the log by this id and is answered from there.
            return await services.matches.act(
                match_id,
                player_id,
                command_for,
                request.version,
                command_id=command_id,
                command_hash=digest,
            )
        except IdempotencyMismatch as exc:  # the log knows the key with another request
            raise IdempotencyKeyReused(REUSED) from exc
        except (DomainError, ServerError) as refusal:  # nothing was written
            bound = await services.store.command_hash(command_id)
            if bound is not None and bound != digest:
                raise IdempotencyKeyReused(REUSED) from refusal
            raise
