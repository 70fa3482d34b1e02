"""An action with an idempotency key: the one rule both HTTP and the socket follow.

A key names one request of one player: the match and the body (``request_hash``).
The same request again gets the first answer and changes nothing; any other request
with that key (another action, version, match or channel) is IdempotencyKeyReused and
changes nothing. A refused request (an illegal move, a stale version, no seat) leaves
nothing behind, its key included. The key is claimed before acting, so two concurrent
requests with one key can never both act, nor can the one that acted be told it
reused its key. The answer is not stored: a retry finds its command in the log.
"""

from __future__ import annotations

import hashlib

import msgspec

from domain.commands import AnySeatCommand
from domain.errors import DomainError
from infra.errors import IdempotencyMismatch
from server.problems import IdempotencyKeyReused, ServerError
from server.schemas import ActionRequest, ActionResponse, to_command
from server.services import Services


def request_hash(match_id: str, request: ActionRequest) -> str:
    return hashlib.sha256(match_id.encode() + b"\n" + msgspec.json.encode(request)).hexdigest()


async def act(
    services: Services, match_id: str, player_id: str, request: ActionRequest, key: str | None
) -> ActionResponse:
    """Act for the player; with a key, at most once per key."""

    def command_for(seat: int) -> AnySeatCommand:
        return to_command(request.action, seat)

    if key is None:
        return await services.matches.act(match_id, player_id, command_for, request.version)
    digest = request_hash(match_id, request)
    if await services.idempotency.claim(player_id, key, digest) != digest:
        raise IdempotencyKeyReused("this idempotency key was used for a different request")
    try:
        # A retry finds its command in the log by this id and is answered from there.
        return await services.matches.act(
            match_id,
            player_id,
            command_for,
            request.version,
            command_id=f"key:{player_id}:{key}",
            command_hash=digest,
        )
    except IdempotencyMismatch as exc:  # the log knows the key with another request
        await services.idempotency.release(player_id, key, digest)  # that one keeps the key
        raise IdempotencyKeyReused("this idempotency key was used for a different request") from exc
    except (DomainError, ServerError):  # refused before anything was written
        await services.idempotency.release(player_id, key, digest)
        raise
