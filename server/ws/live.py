"""``WS /v1/matches/{id}/live``: one seat's live feed, resumable by version.

Tasks of their own per socket keep a slow or dead client from stalling anyone (and the
chat's, ``chat_feed``, beside them):

* the pump wakes on a fan-out notification, reads the events this socket has not
  sent (from the process's match cache, which reads the store), folds them, and puts
  one frame per event on a bounded queue; a full queue means the client is too slow
  and the socket is closed (the client reconnects and resumes from its version);
* the writer sends queued frames, each with a time limit;
* the reader handles resume, actions, claims, chat, pings and pongs, and closes a
  socket that stays silent for three heartbeats.

A seat's pump also says when the opponent it waits for is away, back, or may be claimed
from (``live_presence``), after the event frames of the version it speaks of. Every
socket says who sits where once, after its first frames, and again when a seat's player
is renamed (``seat_names``).

Every frame carries the match version, and the server's time as it is sent (``now_ms``,
stamped by the writer: a frame may wait in the queue, and a view's clock counts down to
deadlines on the server's clock, which a client's own may miss by seconds). Events are redacted for the seat and come
with the seat's new view, so the hidden cards never leave the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Mapping
from typing import Annotated, Any

import msgspec
from litestar import Response, WebSocket, get, websocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath

from domain.chat import stream_of as chat_stream_of
from domain.errors import quoted
from domain.match import evolve
from domain.state import MatchState
from domain.views import ClockView, PlayerView, SpectatorView, player_view, redact, spectator_view
from infra.clock import now_ms
from infra.errors import InfraError
from infra.players import Player
from server import action_keys, json_depth
from server.after import MAX_VERSION, check_after, not_a_version, parse_version, version_text
from server.auth import hash_token
from server.chat import RAW_TEXT_LIMIT
from server.fanout import Backoff
from server.limits import Allowance, RateLimited
from server.match_record import MatchRecord
from server.problems import (
    Problem,
    ServerError,
    Unauthorized,
    VersionOutOfRange,
    make_problem,
    problem_for,
    report_failure,
)
from server.query_once import refuse_repeated_parameters
from server.repeated_failures import RepeatedFailures, skipped_note
from server.schemas import ActionRequest
from server.seats import seat_of
from server.services import Services, services_of
from server.token_watch import REVOKED_DETAIL
from server.ws.chat_feed import relay_chat
from server.ws.frames import (
    ResumingAuth,
    presented_token,
    receive_message,
    signed_in_already,
    size_of,
    upgrade_required,
    with_server_time,
)
from server.ws.live_presence import OpponentPresence
from server.ws.seat_names import SeatNames

log = logging.getLogger("ginrummy.ws")

CLOSE_TOO_SLOW = 4408
CLOSE_SILENT = 4000
SEND_TIMEOUT_S = 10.0
# A reconnecting client resumes once (and better with ?after=); each resume may send
# half a queue of frames, so a client that loops on it is refused, not served.
RESUMES_ALLOWED = 5  # per socket, in any RESUME_WINDOW_S
RESUME_WINDOW_S = 10.0

_encoder = msgspec.json.Encoder()


# As HTTP's Idempotency-Key header: 1 to 200 characters (an empty key would bind every move
# of a client with an unset key to one request), and no NUL (no header has one).
SocketKey = Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=r"^[^\x00]*$")]


class ClientMessage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Any client frame; which fields matter depends on ``type`` (``FIELDS``). A field no
    frame has, or one its type does not read, is refused as over HTTP: a misspelt
    ``version`` would otherwise act with no stale-version check, silently."""

    type: str
    token: str | None = None
    after: Annotated[int, msgspec.Meta(ge=0)] | None = None  # as ?after=: -1 is no version
    action: Any = None
    version: int | None = None
    idempotency_key: SocketKey | None = None
    text: Annotated[str, msgspec.Meta(max_length=RAW_TEXT_LIMIT)] | None = None


# The fields each client frame reads besides ``type`` (asyncapi.yaml's payloads).
FIELDS: dict[str, frozenset[str]] = {
    "ping": frozenset(),
    "pong": frozenset(),
    "auth": frozenset({"token", "after"}),
    "resume": frozenset({"after"}),
    "action": frozenset({"action", "version", "idempotency_key"}),
    "chat": frozenset({"text"}),
    "claim": frozenset(),
}


def unread_fields(message: ClientMessage) -> list[str]:
    """The fields given that a frame of this type does not read (none for an unknown type:
    that is refused on its own)."""
    read = FIELDS.get(message.type)
    if read is None:
        return []
    given = (name for name in message.__struct_fields__ if name != "type")
    return [name for name in given if getattr(message, name) is not None and name not in read]


_outliving_their_socket: set[asyncio.Task[Any]] = set()  # held here, safe from the GC
_read_failures = RepeatedFailures()  # every socket meets an outage at once: one line a while


def version_parameter(query: Mapping[str, str], name: str) -> int | None:
    """``?name=N`` as a version: ASCII digits only ("²" is a digit to str.isdigit, not to
    int), no longer than a version can be; None when it is not given."""
    raw = query.get(name)
    return None if raw is None else parse_version(raw, name)


def _finished(match_id: str, task: asyncio.Task[Any]) -> None:
    """Forget a socket action; log a server failure (as HTTP logs its 5xx), whether or
    not its socket is still there to hear the problem."""
    _outliving_their_socket.discard(task)
    failure = None if task.cancelled() else task.exception()
    if isinstance(failure, Exception):
        report_failure(failure, problem_for(failure), f"a live action in match {match_id}")


def retry_after_of(exc: Exception) -> int | None:
    """A rate limit's wait in seconds, for the ``error`` frame (HTTP sends Retry-After)."""
    return getattr(exc, "retry_after_s", getattr(exc, "retry_after", None))


async def finish_actions(timeout: float) -> None:
    """Let socket actions that outlived their sockets end before the store closes."""
    if _outliving_their_socket:
        await asyncio.wait(set(_outliving_their_socket), timeout=timeout)


class TooSlow(Exception):
    """The socket's queue is full: the client does not read fast enough."""


def without_deadlines(clock: ClockView) -> ClockView:
    """An older event's clock, in a frame sent before the newest one's: as it stood (the
    banks, the timeouts, the stand-in's moves), but with no deadline, as that turn's time
    runs no more. Its deadline, still ahead for a turn that had ended, set a client's timer
    wrong (QA); a null clock, as once sent, looked like a match without one."""
    return msgspec.structs.replace(clock, deadline_ms=None, next_hand_deadline_ms=None)


class LiveSession:
    def __init__(self, socket: WebSocket[Any, Any, Any], services: Services, match_id: str) -> None:
        self.socket = socket
        self.services = services
        self.match_id = match_id
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(services.settings.ws_queue_size)
        self.watch = services.hub.watch(match_id)
        # set before the chat is read as the socket opens (``run``): nothing slips by
        self.chat_watch = services.hub.watch(chat_stream_of(match_id))
        self.player: Player | None = None
        self.seat: int | None = 0  # None: a spectator, who sees what is public to both
        self.state: MatchState | None = None
        self.record: MatchRecord | None = None  # the newest record read: its clock is shown
        self.resume_after: int | None = None
        self.start_after: int | None = None  # a reconnect's last version: events, no snapshot
        self.chat_after: int | None = None  # the chat version after which to send messages
        self.last_heard = time.monotonic()
        self.token_hash: str | None = None  # a seat's token, watched while the socket is open
        self.present = False  # counted: in its seat's presence, or the match's spectators
        self.resumes = Allowance(RESUMES_ALLOWED, RESUME_WINDOW_S)
        self.opponent: OpponentPresence | None = None  # a seat's, facing a person or a bot
        self.names: SeatNames | None = None  # the seats' names, sent again on a rename

    # --- frames -----------------------------------------------------------------------

    def enqueue(self, frame: dict[str, Any]) -> None:
        try:
            self.queue.put_nowait(_encoder.encode(frame))
        except asyncio.QueueFull as exc:
            raise TooSlow from exc

    def version(self) -> int:
        return self.state.version if self.state is not None else 0

    def view(self, state: MatchState) -> PlayerView | SpectatorView:
        matches, record = self.services.matches, self.record
        if record is None:
            return player_view(state, self.seat) if self.seat is not None else spectator_view(state)
        if self.seat is not None:
            view: PlayerView | SpectatorView = matches.seat_view(record, state, self.seat)
        else:
            view = matches.watcher_view(record, state)
        if state.version == record.state.version or view.clock is None:
            return view
        return msgspec.structs.replace(view, clock=without_deadlines(view.clock))

    def snapshot(self, state: MatchState) -> None:
        self.state = state
        self.enqueue({"type": "snapshot", "version": state.version, "view": self.view(state)})

    def error(self, problem: Problem, retry_after: int | None = None) -> None:
        frame: dict[str, Any] = {"type": "error", "version": self.version(), "problem": problem}
        if retry_after is not None:
            frame["retry_after"] = retry_after  # seconds, as HTTP's Retry-After
        self.enqueue(frame)

    # --- tasks ------------------------------------------------------------------------

    async def pump(self) -> None:
        """Turn notifications (and resume requests) into event frames, in version order.

        It also keeps the heartbeat: a ping every interval, busy or idle, and the socket
        is closed when the client has sent nothing (not even a pong) for three.
        """
        heartbeat = self.services.settings.ws_heartbeat_s
        last_ping = time.monotonic()
        retry = Backoff()
        while True:
            wait = max(0.0, last_ping + heartbeat - time.monotonic())
            look = self.opponent.seconds_to_next() if self.opponent is not None else None
            names = self.names.news.seconds_to_next() if self.names is not None else None
            woke = await self.watch.wait(
                timeout=min(s for s in (wait, retry.seconds_left(), look, names) if s is not None)
            )
            now = time.monotonic()
            if now - self.last_heard > 3 * heartbeat:
                async with asyncio.timeout(2):
                    await self.socket.close(CLOSE_SILENT, "no message for three heartbeats")
                return
            if now - last_ping >= heartbeat:
                last_ping = now
                self.enqueue({"type": "ping", "version": self.version()})
            if woke or retry.take():
                await self.catch_up_or_retry(retry)
            if self.names is not None:  # after the events: at the version the socket is at
                for frame in await self.names.frames(self.version()):
                    self.enqueue(frame)
            if self.opponent is not None:
                for frame in await self.opponent.frames(heard=lambda: self.watch.latest):
                    self.enqueue(frame)

    async def catch_up_or_retry(self, retry: Backoff) -> None:
        """``catch_up``, or, if the database fails it, again after a back-off: every
        event frame after the socket's version comes once it answers, and the socket
        (and the seat's presence) stays. Ending the socket instead sent no close frame
        and logged a traceback, and in an outage every client reconnected at once."""
        try:
            await self.catch_up()
        except InfraError as error:
            retry.failed()
            if self.opponent is not None:
                self.opponent.hold()  # the match may have ended: nothing of it until read
            if (skipped := _read_failures.due("read")) is not None:
                log.warning(
                    "a live socket's read of match %s failed; it is read again until it "
                    "answers: %s%s",
                    self.match_id,
                    error,
                    skipped_note(skipped),
                )
        else:
            retry.answered()

    async def catch_up(self) -> None:
        after, self.resume_after = self.resume_after, None
        # The cached match, as for any wake; the store only for a version it has not
        # reached (a resume past it: made on another process, not yet announced here).
        wanted = max(self.watch.latest, after or 0)
        try:
            record = await self.services.matches.load(self.match_id, at_least=wanted)
        except InfraError:
            if self.resume_after is None:  # the resume asked for is still to answer
                self.resume_after = after
            raise
        self.record = record
        assert self.state is not None
        if after is not None:
            try:  # a version the match has not reached: refused, as ?after= and HTTP's
                check_after(after, record.state.version)
            except VersionOutOfRange as exc:
                # Not resumed; the events this wake brought besides (an append's notice,
                # read in the same wake) still go, or they would wait for the next append.
                self.error(problem_for(exc))
                after = None
        if after is not None:
            behind = record.state.version - after
            if behind > self.queue.maxsize // 2:
                self.snapshot(record.state)  # too far behind: a full resync is cheaper
                self.follow_opponent(record)
                return
            # from the state last sent when the client is at or past it, else a mark
            self.state = record.state_at(after, known=self.state) if after > 0 else None
        self.send_events(record)
        self.follow_opponent(record)

    async def start(self, record: MatchRecord) -> None:
        """The first frames: the events after a reconnect's ``after``, else a snapshot;
        then the seats, named as they are now (``seat_names``), at that version.

        Given at connect time, ``after`` leaves no moment in which live events could
        pass a replay, as they can when a resume message follows the snapshot. The seats
        are followed before they are read, so a rename made meanwhile is sent after them.
        """
        self.record = record
        after, latest = self.start_after, record.state.version
        # an after past latest was refused before (check_start_after)
        if after is None or latest - after > self.queue.maxsize // 2:
            self.snapshot(record.state)
        else:
            self.state = record.state_at(after) if after > 0 else None
            self.send_events(record)
        wake = functools.partial(self.watch.notify, 0)
        self.opponent = OpponentPresence.of(self.services, record, self.seat, wake)
        self.names = SeatNames(self.services, record.state.players, wake)
        self.follow_opponent(record)
        seats = await self.names.frames(self.version())  # a failed read: the pump's
        # The writer (its first step scheduled before this one's) takes the snapshot off a
        # queue that may hold one frame: the seats of two unrated house levels are named
        # without a read, so nothing above may have let it run.
        await asyncio.sleep(0)
        for frame in seats:
            self.enqueue(frame)

    def follow_opponent(self, record: MatchRecord) -> None:
        """The opponent's presence is told of the version this socket has sent up to, so
        a presence frame's ``version`` is the socket's, after that version's events."""
        if self.opponent is not None and self.version() == record.state.version:
            self.opponent.follow(record)

    def send_events(self, record: MatchRecord) -> None:
        """An event frame for each event of ``record`` after the last one this socket sent."""
        state = self.state
        start = state.version if state is not None else 0
        for recorded in record.events[start:]:
            state = evolve(state, recorded.match_event)
            self.state = state
            self.enqueue(
                {
                    "type": "event",
                    "version": recorded.version,
                    "event": redact(recorded.match_event, self.seat),
                    # Version 1 (match_started) precedes the first deal: no table to show yet.
                    "view": self.view(state) if state.hand is not None else None,
                }
            )

    async def writer(self) -> None:
        while True:
            frame = await self.queue.get()
            # asyncio.timeout, not wait_for, which can lose a cancel (see infra/waiting.py)
            # and leave this loop running after its socket
            async with asyncio.timeout(SEND_TIMEOUT_S):
                await self.socket.send_text(with_server_time(frame).decode())

    async def reader(self) -> None:
        limit = self.services.settings.ws_max_message_bytes
        while True:
            text = await receive_message(self.socket)
            self.last_heard = time.monotonic()
            if size_of(text) > limit:  # bytes, as the docs say (not characters)
                self.error(make_problem("payload_too_large", f"messages are at most {limit} bytes"))
                continue
            try:
                message = json_depth.decode(text, ClientMessage)
            except msgspec.DecodeError as exc:  # not JSON (400), or not a message (422)
                self.error(problem_for(exc))
                continue
            await self.handle(message)

    async def handle(self, message: ClientMessage) -> None:
        if unread := unread_fields(message):
            self.error(
                make_problem(
                    "invalid_request",
                    f"{message.type!r} messages have no field {unread[0]!r}: nothing was done",
                )
            )
            return
        if message.type == "ping":
            self.enqueue({"type": "pong", "version": self.version()})
        elif message.type == "pong":
            return
        elif message.type == "auth":
            self.error(make_problem("invalid_request", self.refused_auth()))
        elif message.type == "resume":
            if message.after is None:
                self.error(make_problem("invalid_request", "resume needs 'after': a version"))
                return
            if message.after > MAX_VERSION:  # no version at all: as ?after= refuses it
                self.error(problem_for(not_a_version(version_text(message.after))))
                return
            try:
                self.resumes.spend("resumes per socket")
            except RateLimited as exc:
                self.error(problem_for(exc), exc.retry_after)  # not resumed; the socket stays
                return
            self.resume_after = message.after
            self.watch.notify(0)
        elif message.type == "action":
            await self.act(message)
        elif message.type == "chat":
            await self.chat(message)
        elif message.type == "claim":
            await self.claim()
        else:
            self.error(
                make_problem("invalid_request", f"unknown message type {quoted(message.type)}")
            )

    def refused_auth(self) -> str:
        """An ``auth`` message on an open socket: a seat's is signed in already; a
        spectator's takes no token."""
        if self.player is None:
            return "auth: a spectator's socket takes no token; nothing changed"
        return signed_in_already(self.player.id)

    async def act(self, message: ClientMessage) -> None:
        """An action over the socket: the same rules as HTTP; its events arrive as frames."""
        if self.player is None or self.seat is None:
            self.error(make_problem("spectators_cannot_act", "a spectator cannot act", 403))
            return
        try:
            client = self.socket.client
            await self.services.limits.spend(
                "actions", self.player.id, client.host if client else None
            )
            request = msgspec.convert(
                {"action": message.action, "version": message.version}, ActionRequest
            )
            acting = asyncio.create_task(
                action_keys.act(
                    self.services, self.match_id, self.player.id, request, message.idempotency_key
                )
            )
            _outliving_their_socket.add(acting)
            acting.add_done_callback(functools.partial(_finished, self.match_id))
            # A dropped connection cancels this reader; the action, once begun, still ends
            # with the AI's reply appended, as an HTTP action does when its client leaves.
            await asyncio.shield(acting)
        except Exception as exc:
            self.error(problem_for(exc), retry_after_of(exc))  # a 5xx is logged by _finished
        self.watch.notify(0)

    async def claim(self) -> None:
        """A claim over the socket: as ``POST …/claim``, the same rules and problems; the
        claim's events (``match_claimed``, ``resigned``, ``match_settled``) arrive as frames."""
        if self.player is None or self.seat is None:
            self.error(make_problem("spectators_cannot_act", "a spectator cannot claim", 403))
            return
        try:
            client = self.socket.client
            await self.services.limits.spend(  # as POST …/claim: counted with the moves
                "actions", self.player.id, client.host if client else None
            )
            claiming = asyncio.create_task(self.services.claim(self.match_id, self.player.id))
            _outliving_their_socket.add(claiming)
            claiming.add_done_callback(functools.partial(_finished, self.match_id))
            await asyncio.shield(claiming)  # once begun, it ends even if the socket drops
        except Exception as exc:
            self.error(problem_for(exc), retry_after_of(exc))  # a 5xx is logged by _finished
        self.watch.notify(0)

    async def chat(self, message: ClientMessage) -> None:
        """A chat message over the socket: as ``POST …/chat``; it comes back as a frame."""
        if self.player is None or self.seat is None:
            self.error(make_problem("spectators_cannot_chat", "a spectator reads the chat", 403))
            return
        if message.text is None:
            self.error(make_problem("invalid_request", "chat needs 'text': a string"))
            return
        try:
            client = self.socket.client
            await self.services.limits.spend(  # as POST …/chat: counted with the moves
                "actions", self.player.id, client.host if client else None
            )
            await self.services.chat.post(self.match_id, self.player.id, message.text)
        except Exception as exc:
            problem = problem_for(exc)
            report_failure(exc, problem, f"a chat message in match {self.match_id}")
            self.error(problem, retry_after_of(exc))

    # --- lifecycle --------------------------------------------------------------------

    def read_after_parameter(self) -> None:
        """``?after=N`` and ``?chat_after=N``: refused, as HTTP refuses ``/events?after=-1``,
        unless a version (so a client's bug is told, not answered with a quiet snapshot).
        A parameter given twice is refused first: which one counts would be a guess."""
        refuse_repeated_parameters(self.socket.scope.get("query_string", b""))
        self.start_after = version_parameter(self.socket.query_params, "after")
        self.chat_after = version_parameter(self.socket.query_params, "chat_after")

    async def authenticate(self) -> Player:
        self.read_after_parameter()
        token, after = await presented_token(self.socket, ResumingAuth)
        if after is not None:  # sent with the auth message: as ``?after=``
            self.start_after = after
        self.token_hash = hash_token(token)
        return await self.services.player_for_token(token)

    async def admit(self) -> MatchRecord:
        """Who is on the socket, and the match as it is when they arrive."""
        self.player = await self.authenticate()
        record = await self.services.matches.play_ai(self.match_id)
        self.seat = seat_of(record.state, self.player.id)
        self.check_start_after(record)
        # a seat's socket: that seat of this match is here (not its player's other matches)
        await self.services.presence.arrive_at_seat(self.match_id, self.seat)
        self.present = True
        return record

    def check_start_after(self, record: MatchRecord) -> None:
        """A reconnect's ``after`` (``?after=`` or the ``auth`` message's) past the match's
        last version is refused, as ``resume`` and HTTP's ``/events?after=`` refuse it
        (``server/after.py``): it was answered with a snapshot, as if the client had
        asked for none. Checked once the caller may see the match."""
        if self.start_after is not None:
            check_after(self.start_after, record.state.version)

    async def depart(self) -> None:
        """Take the socket out of what counts it (``admit`` put it there)."""
        if self.seat is not None:
            await self.services.presence.leave_seat(self.match_id, self.seat)

    async def leave(self) -> None:
        """Called once the socket is done, whatever ended it, its opening too. A write the
        database fails is said, not raised: the socket is gone either way, and the row
        this process no longer refreshes goes stale (``infra/process_rows.py``)."""
        if not self.present:
            return
        self.present = False
        try:
            await self.depart()
        except InfraError as error:
            if (skipped := _read_failures.due("leave")) is not None:
                log.warning(
                    "a socket of match %s closed, but its presence could not be written: %s%s",
                    self.match_id,
                    error,
                    skipped_note(skipped),
                )

    async def refuse(self, problem: Problem) -> None:
        """One error frame, then close with 4000 + its status (4401, 4404, 4503...)."""
        frame = {"type": "error", "version": self.version(), "problem": problem, "now_ms": now_ms()}
        async with asyncio.timeout(SEND_TIMEOUT_S):
            await self.socket.send_text(_encoder.encode(frame).decode())
            await self.socket.close(4000 + problem.status, problem.rule)

    async def run(self) -> None:
        try:
            record = await self.admit()
            # Where its chat starts: the store's now, read once it is let in (a refused
            # client costs no read) and after its chat watch is set (no message slips by).
            chat = await self.services.chat.load(self.match_id)
        except (ServerError, InfraError, TimeoutError) as exc:
            if isinstance(exc, InfraError) and (skipped := _read_failures.due("open")) is not None:
                log.warning(
                    "a socket of match %s could not open, its database read failed: %s%s",
                    self.match_id,
                    exc,
                    skipped_note(skipped),
                )
            # Left before the refusal is sent: a client told it was refused must not find
            # itself still counted (a spectator, or a seat as present) when it looks.
            try:
                await self.leave()
            finally:
                await self.refuse(
                    problem_for(Unauthorized("timeout") if isinstance(exc, TimeoutError) else exc)
                )
            return
        except BaseException:  # cancelled (the server stops) or failed as it opened
            await self.leave()  # admitted, perhaps: then counted, and never to be left
            raise
        watch = self.services.token_watch
        dead = watch.hold(self.token_hash) if self.token_hash is not None else asyncio.Event()
        revoked = asyncio.create_task(dead.wait())
        # The writer sends the first frames as ``start`` queues them (a queue may hold one
        # frame), before any other task may queue its own.
        tasks: list[asyncio.Task[Any]] = [revoked, asyncio.create_task(self.writer())]
        try:
            await self.start(record)
            tasks += [
                asyncio.create_task(self.pump()),
                asyncio.create_task(self.reader()),
                asyncio.create_task(relay_chat(self, chat)),
            ]
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            if revoked in done:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                with contextlib.suppress(Exception):  # the client may be gone already
                    await self.refuse(problem_for(Unauthorized(REVOKED_DETAIL)))  # 4401
            for task in done:
                failure = task.exception()
                if isinstance(failure, TooSlow | TimeoutError):
                    with contextlib.suppress(Exception):  # bounded: its buffer may be full
                        async with asyncio.timeout(2):
                            await self.socket.close(CLOSE_TOO_SLOW, "client too slow; resume")
                elif failure is not None and not isinstance(failure, WebSocketDisconnect | OSError):
                    # OSError: the server's WebSocket layer found the client gone mid-send
                    log.error("live socket failed", exc_info=failure)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.token_hash is not None:
                watch.release(self.token_hash, dead)
            self.services.hub.unwatch(self.watch)
            self.services.hub.unwatch(self.chat_watch)
            if self.opponent is not None:
                self.opponent.close()
            if self.names is not None:
                self.names.close()
            await self.leave()


@get("/v1/matches/{match_id:str}/live", include_in_schema=False, sync_to_thread=False)
def live_over_plain_http() -> Response[bytes]:
    return upgrade_required()


async def serve(session: LiveSession) -> None:
    """Run an accepted socket's session to its end (a seat's or a spectator's); a client
    that hangs up is no error, and the session stops watching the match either way."""
    try:
        await session.run()
    except WebSocketDisconnect:
        pass
    finally:
        session.services.hub.unwatch(session.watch)
        session.services.hub.unwatch(session.chat_watch)


@websocket("/v1/matches/{match_id:str}/live", name="live")
async def live(socket: WebSocket[Any, Any, Any], match_id: FromPath[str]) -> None:
    await socket.accept()
    await serve(LiveSession(socket, services_of(socket.app.state), match_id))
