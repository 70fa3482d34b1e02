"""A socket that only sends: authenticate, then relay an endless stream of frames.

The player stream and the lobby's list are such sockets: the client says nothing that
matters (any message is read and dropped, a close ends it; only an ``auth`` message, the
socket signed in already, is answered, with an error frame), the server sends frames
until the client leaves. The match sockets (``live``, ``watch``) take actions and
resumes, so they have a session of their own (``live.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypeVar

import msgspec
from litestar import Response, WebSocket
from litestar.exceptions import WebSocketDisconnect

from infra.clock import now_ms
from infra.errors import InfraError
from server import json_depth
from server.auth import bearer_token, hash_token
from server.problems import (
    InvalidRequest,
    ServerError,
    Unauthorized,
    make_problem,
    naming_the_field,
    problem_for,
    problem_response,
)
from server.query_once import refuse_repeated_parameters
from server.services import Services, services_of
from server.token_watch import REVOKED_DETAIL, until_set

_encoder = msgspec.json.Encoder()


def with_server_time(frame: bytes) -> bytes:
    """A match socket's encoded frame (a JSON object) with ``now_ms``, the server's time
    as it goes out: the view's clock gives deadlines on the server's clock, and a client
    counts down ``deadline_ms - now_ms`` from when the frame came, not against its own
    clock, which may be wrong by seconds. Added to the bytes as they are sent, so a frame
    that waited in the queue tells the time it left, and the frame is encoded once."""
    return b'%s,"now_ms":%d}' % (frame[:-1], now_ms())


Frames = Callable[[Services, str], AsyncIterator[dict[str, Any]]]


async def receive_message(socket: WebSocket[Any, Any, Any]) -> str | bytes:
    """The client's next message, text or binary. Litestar's ``receive_text`` reads a
    binary message as ``""``, which hid its size and content: a binary message is read
    as JSON in UTF-8, as a text one, and counts its bytes against the same limit."""
    event = await socket.receive()
    if event["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(detail="disconnect event", code=event["code"])
    text: str | None = event.get("text")  # type: ignore[assignment]
    data: bytes | None = event.get("bytes")  # type: ignore[assignment]
    return text if text is not None else (data or b"")


def size_of(message: str | bytes) -> int:
    """A message's size in bytes, as ``GINRUMMY_WS_MAX_MESSAGE_BYTES`` counts it."""
    return len(message.encode()) if isinstance(message, str) else len(message)


def upgrade_required() -> Response[bytes]:
    """The answer to a plain GET of a socket's address: 426 names the protocol
    (RFC 9110 §15.5.22)."""
    problem = make_problem(
        "upgrade_required", "open a WebSocket to this address; see asyncapi.yaml"
    )
    return problem_response(problem, {"Upgrade": "websocket", "Connection": "Upgrade"})


AUTH_TIMEOUT_S = 10.0
NEEDS_AUTH = "the first message must be {'type':'auth','token':...}"


class _Typed(msgspec.Struct, frozen=True):
    type: str


class AuthMessage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A socket's first message when its token came neither as a header nor as
    ``?token=``: a browser's WebSocket sends no header, and a proxy may log a URL. Read
    as strictly as the other client messages: a misspelt field was dropped, so a
    reconnect's ``aftr`` got a snapshot in place of the replay it asked for."""

    type: str
    token: str | None = None


class ResumingAuth(AuthMessage, frozen=True, forbid_unknown_fields=True):
    """A match socket's ``auth`` message, which may carry a reconnect's ``after``."""

    after: Annotated[int, msgspec.Meta(ge=0)] | None = None  # as ?after=: -1 is no version


A = TypeVar("A", bound=AuthMessage)


def auth_of(message: str | bytes, shape: type[A]) -> A:
    """The first message as an ``auth`` message of ``shape``. One that is no ``auth``
    message (not JSON, no ``type``, another type) or has no token: 4401, it signs in
    nothing. One that is an ``auth`` message of the wrong shape (a field it has not, an
    ``after`` that is no version, a key twice): 4422 ``invalid_request`` naming the field,
    as any other client message; it was a 4401 that said the token was missing."""
    try:
        typed = json_depth.decode(message, _Typed)
    except json_depth.RepeatedKey as exc:  # "token" twice: which one signs in is no guess
        raise InvalidRequest(str(exc)) from exc
    except msgspec.DecodeError as exc:  # not JSON, not an object, or no string ``type``
        raise Unauthorized(NEEDS_AUTH) from exc
    if typed.type != "auth":
        raise Unauthorized(NEEDS_AUTH)
    try:
        first = json_depth.decode(message, shape)
    except msgspec.ValidationError as exc:
        raise InvalidRequest(naming_the_field(str(exc))) from exc
    except msgspec.DecodeError as exc:  # JSON too deep to read, say
        raise Unauthorized(NEEDS_AUTH) from exc
    if not first.token:
        raise Unauthorized(NEEDS_AUTH)
    return first


def signed_in_already(player_id: str | None = None) -> str:
    """Why an ``auth`` message on a signed-in socket is refused (naming the player where
    the socket knows it): ignored, it left a client that sent another player's token
    believing it had switched players."""
    who = f", as player {player_id}" if player_id is not None else ""
    return (
        f"auth: this socket is signed in already{who}; nothing changed. To sign in as "
        "another player, open another socket"
    )


def is_auth(message: str | bytes) -> bool:
    """Whether a message on a signed-in socket is an ``auth`` message: dropped with the
    rest, it left a client that sent another player's token believing it had switched."""
    try:
        return json_depth.decode(message, _Typed).type == "auth"
    except msgspec.DecodeError:  # not JSON, or no ``type``: read and dropped, as before
        return False


async def presented_token(
    socket: WebSocket[Any, Any, Any], shape: type[AuthMessage] = AuthMessage
) -> tuple[str, int | None]:
    """The token from the bearer header, ``?token=`` or an ``auth`` first message of
    ``shape``, and the ``after`` a ``ResumingAuth`` may carry (None otherwise): every
    socket signs in so."""
    header = socket.headers.get("authorization")
    if header:
        return bearer_token(header), None
    token = socket.query_params.get("token")
    if token:
        return str(token), None
    async with asyncio.timeout(AUTH_TIMEOUT_S):
        first = auth_of(await receive_message(socket), shape)
    return str(first.token), first.after if isinstance(first, ResumingAuth) else None


async def relay(socket: WebSocket[Any, Any, Any], frames_for: Frames) -> None:
    """Accept, authenticate (bearer header, ``?token=`` or an ``auth`` first message),
    then send ``frames_for``'s frames for the player until either side closes; a bad
    token, or one revoked or expired while the socket is open: an error frame, 4401."""
    await socket.accept()
    services = services_of(socket.app.state)
    try:
        refuse_repeated_parameters(socket.scope.get("query_string", b""))
        token, _ = await presented_token(socket)  # no replay here: no ``after`` either
        player = await services.player_for_token(token)
    except TimeoutError:
        await refuse(socket, Unauthorized(NEEDS_AUTH))
        return
    except (ServerError, InfraError) as exc:  # a bad token, or a database that failed
        await refuse(socket, exc)
        return
    token_hash = hash_token(token)
    dead = services.token_watch.hold(token_hash)
    try:
        await relay_frames(socket, frames_for(services, player.id), dead)
    finally:
        services.token_watch.release(token_hash, dead)
    if dead.is_set():
        with contextlib.suppress(Exception):  # the client may be gone already
            await refuse(socket, Unauthorized(REVOKED_DETAIL))


async def refuse(socket: WebSocket[Any, Any, Any], exc: ServerError | InfraError) -> None:
    """An error frame with the problem, then close with 4000 + its status."""
    problem = problem_for(exc)
    async with asyncio.timeout(10):
        await socket.send_text(_encoder.encode({"type": "error", "problem": problem}).decode())
        await socket.close(4000 + problem.status, problem.rule)


async def relay_frames(
    socket: WebSocket[Any, Any, Any], frames: AsyncIterator[dict[str, Any]], dead: asyncio.Event
) -> None:
    """Send the frames until the client leaves or ``dead`` is set. A message over
    ``GINRUMMY_WS_MAX_MESSAGE_BYTES`` gets an ``error`` frame (``payload_too_large``),
    as on the match sockets, and the socket stays open. Frames that end on a database
    failure end the socket with its problem (``store_unavailable``: 4503), not a bare
    close the client cannot tell from a normal one."""
    limit = services_of(socket.app.state).settings.ws_max_message_bytes
    sending = asyncio.Lock()  # the frames and an error frame, one whole message at a time

    async def send(frame: dict[str, Any]) -> None:
        async with sending:
            await socket.send_text(_encoder.encode(frame).decode())

    async def send_frames() -> None:
        try:
            async for frame in until_set(frames, dead):
                await send(frame)
        except InfraError as exc:  # the frames could not begin (the database failed): say so
            problem = problem_for(exc)
            await send({"type": "error", "problem": problem})
            async with asyncio.timeout(10):
                await socket.close(4000 + problem.status, problem.rule)

    async def read_until_closed() -> None:
        while True:
            message = await receive_message(socket)  # anything it says is a sign of life
            if size_of(message) > limit:
                problem = make_problem("payload_too_large", f"messages are at most {limit} bytes")
                await send({"type": "error", "problem": problem})
            elif is_auth(message):
                problem = make_problem("invalid_request", signed_in_already())
                await send({"type": "error", "problem": problem})

    tasks = [asyncio.create_task(send_frames()), asyncio.create_task(read_until_closed())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(WebSocketDisconnect, asyncio.CancelledError, OSError):
            await asyncio.gather(*tasks, return_exceptions=True)
