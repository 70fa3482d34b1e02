"""One live stream per player: challenges, matches that start, and matches awaiting a move.

A bot connects once and plays any number of matches from it (as lichess's
``/api/stream/event``). The stream follows the process's fan-out hub, which hears
every append of this process at once and every other process's through the global
log's tailer; on each move it re-reads the streams that moved and says what changed
for this player. What it announces is derived from the log, never kept in memory
alone, so a reconnect starts again from the truth: the open challenges, and every
active match where the player is to act.

Frames (JSON objects, one per line over HTTP):
  ``challenge``         a challenge addressed to you, or sent by you, is open (said
                        again when the player at its other end renames)
  ``challenge_closed``  it was accepted (``match_id``), declined, cancelled or expired
  ``match_started``     a match in which you hold a seat has begun (from a table, a
                        challenge, a rematch, or POST /v1/matches against the house
                        AI), or one you started to watch (POST /v1/house-matches:
                        ``seat`` null, ``watching`` true), whichever process started it
  ``your_turn``         a match waits for your move at ``version``; ``match`` is the
                        match as your seat sees it (GET /v1/matches/{id}'s body but for
                        ``seats`` and ``spectators``), so a bot plays from the stream alone
  ``match_finished``    a match of yours is settled
  ``opponent_away``, ``opponent_back``, ``claimable``
                        the opponent you wait for left (and from when you may claim),
                        came back, or may be claimed from now (``server.claim_watch``)
  ``ping``              nothing happened for a while (keeps proxies from closing it),
                        and the first frame when nothing is open on connecting

A read that fails once the stream runs (the database dropped the connection, timed a
statement out, or is down) is owed, not skipped: the stream reads that stream again
after a back-off (``Owed``), keeps pinging meanwhile, and sends what it owes once the
database answers. Closing instead would not do: a reconnect says only what is open
now, so a ``match_finished`` or a ``challenge_closed`` it missed would never be said.
A read that fails while connecting ends the stream (an ``error`` frame, 503
``store_unavailable``): nothing has been said yet, so a reconnect loses nothing.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import msgspec

from domain.events import MatchStarted
from domain.state import MatchState
from domain.table import TableState
from infra.errors import InfraError
from infra.projections import matches_for_player
from infra.projections.lobby import TABLE_STREAM_PREFIX
from server.challenge_names import ChallengeNames
from server.claim_watch import ClaimWatch
from server.fanout import Backoff, Quiet
from server.house_ai import ai_seat_to_act, is_house_ai
from server.http.tables import table_view
from server.match_record import MatchRecord
from server.problems import MatchNotFound
from server.repeated_failures import RepeatedFailures, skipped_note
from server.services import Services

log = logging.getLogger("ginrummy.stream")

# The active matches a stream's greeting lists, newest first: each one's log is read, and
# a player's abandoned matches against the house never end (about 1 ms each, measured).
GREETED_MATCHES = 1000
RETRY_FIRST_S = 0.5  # a failed read is tried again this long after...
RETRY_AT_MOST_S = 10.0  # ...doubling while it fails, up to this

_failures = RepeatedFailures()  # every stream meets an outage at once: one line a while


class Owed:
    """The reads a stream failed and must make again: each stream that moved with the
    version it was woken for, and the matches announced as started, tried again after
    a ``Backoff`` (0.5 s, doubling to 10 s while the database keeps failing)."""

    def __init__(self) -> None:
        self.moved: dict[str, int] = {}
        self.started: list[str] = []
        self.backoff = Backoff(RETRY_FIRST_S, RETRY_AT_MOST_S)

    def move(self, stream_id: str, version: int) -> None:
        self.moved[stream_id] = max(version, self.moved.get(stream_id, 0))

    def start(self, match_id: str) -> None:
        if match_id not in self.started:
            self.started.append(match_id)

    def after_round(self, retried: bool) -> None:
        """Schedule what is owed after a round of reads (``retried``: it retried some).
        What was owed before waits for its retry as scheduled, or a server whose streams
        move all the time would push it back for ever."""
        if not (self.moved or self.started):
            if retried:
                self.backoff.answered()  # the next failure starts over
        elif not self.backoff.scheduled:
            self.backoff.failed()

    def take_due(self) -> tuple[dict[str, int], list[str]]:
        """What is owed, if its retry is due (and then forgotten here: a read that fails
        again is owed again); else nothing."""
        if not self.backoff.take():
            return {}, []
        moved, started = self.moved, self.started
        self.moved, self.started = {}, []
        return moved, started


def merged(older: dict[str, int], newer: dict[str, int]) -> dict[str, int]:
    """Streams that moved, each with the newest version either saw."""
    both = dict(older)
    for stream_id, version in newer.items():
        both[stream_id] = max(version, both.get(stream_id, 0))
    return both


class PlayerStream:
    def __init__(self, services: Services, player_id: str) -> None:
        self.services = services
        self.player_id = player_id
        self.announced: dict[str, str] = {}  # table id -> last status announced
        self.turns: dict[str, int] = {}  # match id -> version last announced as your turn
        self.finished: set[str] = set()
        self.owed = Owed()

    def _follow(self) -> None:
        """Hear of moves, presence and renames: taken as the stream starts, not as it is
        made, since only a started stream runs the ``finally`` that lets go of them (a
        client that leaves before the first frame never starts it)."""
        services, player_id = self.services, self.player_id
        self.hose = services.hub.firehose(player_id)
        self.claims = ClaimWatch.under(
            services.presence, services.settings.absence_grace_s, self.hose.poke
        )
        self.names = ChallengeNames(services, player_id, self.hose.poke)

    async def frames(self) -> AsyncIterator[dict[str, Any]]:
        """Every frame for this player, forever; the caller stops iterating to leave."""
        self._follow()
        try:
            await self.services.presence.arrive_on_stream(self.player_id)  # in every match
        except BaseException as error:  # what _follow took is let go (a retrying client's too)
            self._let_go()
            if isinstance(error, InfraError):
                self._cannot_connect(error)
            raise
        try:
            try:
                opening = await self._opening_frames()
            except InfraError as error:
                self._cannot_connect(error)
                raise
            for frame in opening:
                yield frame
            if not opening:  # nothing open: a client still learns at once that it is connected
                yield {"type": "ping"}
            quiet = Quiet(self.services.settings.stream_ping_s)
            owed = self.owed
            while True:
                for frame in await self.claims.frames(lambda id_: self.hose.pending.get(id_, 0)):
                    yield frame
                    quiet.sent()
                waits = (
                    self.claims.seconds_to_next(),
                    owed.backoff.seconds_left(),
                    self.names.news.seconds_to_next(),
                )
                timeout = min([quiet.left(), *(s for s in waits if s is not None)])
                moved = await self.hose.wait(timeout=timeout)
                started = self.hose.take_started()
                retried, retried_started = owed.take_due()
                moved = merged(retried, moved)
                started = list(dict.fromkeys([*retried_started, *started]))
                for stream_id, version in moved.items():
                    for frame in await self._frames_for(stream_id, version):
                        yield frame
                        quiet.sent()
                # After the moves: a table's challenge_closed comes before its match_started.
                for match_id in started:
                    for frame in await self._started_frames(match_id):
                        yield frame
                        quiet.sent()
                for frame in await self.names.frames():  # the other end renamed
                    yield frame
                    quiet.sent()
                owed.after_round(retried=bool(retried or retried_started))
                if quiet.due():  # other players' streams wake this one too: not quiet
                    yield {"type": "ping"}
                    quiet.sent()
        finally:
            self._let_go()
            await self._leave()

    def _let_go(self) -> None:
        """Stop hearing of moves, presence and renames: the stream is done."""
        self.services.hub.close_firehose(self.hose)
        self.claims.close()
        self.names.close()

    async def _leave(self) -> None:
        """The stream is no longer present. A database that fails the write is said, not
        raised: the stream ends either way (its consumer may be gone), and the row this
        process stops refreshing goes stale, as a killed process's does."""
        try:
            await self.services.presence.leave_stream(self.player_id)
        except InfraError as error:
            if (skipped := _failures.due("leave")) is not None:
                log.warning(
                    "a player stream closed, but its presence could not be written: %s%s",
                    error,
                    skipped_note(skipped),
                )

    async def _opening_frames(self) -> list[dict[str, Any]]:
        """What is open now: each challenge, then each active match, oldest first. Made
        whole before any is sent, so a read that fails sends none of them."""
        frames: list[dict[str, Any]] = []
        for table in await self.services.tables.challenges_of(self.player_id):
            frames += await self._table_frames(table)
        await self.services.projector.catch_up("matches")
        active = await matches_for_player(  # a bot may play more than a page's 100
            self.services.store.engine, self.player_id, "active", limit=GREETED_MATCHES
        )
        for row in reversed(active):  # oldest first
            frames += await self._match_frames(row.match_id)
        return frames

    def _cannot_connect(self, error: InfraError) -> None:
        """The opening reads failed: the stream ends with the problem (the transports send
        it), which loses nothing, as nothing was said yet; a reconnect starts afresh."""
        if (skipped := _failures.due("connect")) is not None:
            log.warning(
                "a player stream could not open, its database read failed: %s%s",
                error,
                skipped_note(skipped),
            )

    async def _frames_for(self, stream_id: str, version: int) -> list[dict[str, Any]]:
        try:
            if stream_id.startswith(TABLE_STREAM_PREFIX):
                table = await self.services.tables.load(
                    stream_id.removeprefix(TABLE_STREAM_PREFIX), at_least=version
                )
                return await self._table_frames(table)
            if stream_id not in self.turns:
                return []  # not this player's: its matches are known from tables and at connect
            return await self._match_frames(stream_id, at_least=version)
        except MatchNotFound:
            return []
        except InfraError as error:  # the frames it would have given are owed
            self._owe(stream_id, error)
            self.owed.move(stream_id, version)
            return []
        except Exception as error:  # a table that vanished, say: never end the stream for it
            if getattr(error, "rule", None) == "table_not_found":
                return []
            raise

    async def _started_frames(self, match_id: str) -> list[dict[str, Any]]:
        """A match announced as started (by this process or, through the tailer, another)."""
        try:
            return await self._match_frames(match_id)
        except MatchNotFound:
            return []
        except InfraError as error:
            self._owe(match_id, error)
            self.owed.start(match_id)
            return []

    def _owe(self, stream_id: str, error: InfraError) -> None:
        """A read failed: say so (once a while), and keep still on the match's presence,
        which the record kept may no longer tell (the match may have ended)."""
        self.claims.hold(stream_id)
        if (skipped := _failures.due("read")) is not None:
            log.warning(
                "a player stream's read of %s failed; it is read again until it answers: %s%s",
                stream_id,
                error,
                skipped_note(skipped),
            )

    async def _table_frames(self, table: TableState) -> list[dict[str, Any]]:
        involved = self.player_id in (table.host, table.invitee, table.guest)
        if not involved or (table.invitee is None and table.guest is None):
            return []  # an open public table is the lobby's news, not this player's
        before = self.announced.get(table.table_id)
        if before == table.status:
            return []
        # Announced once its frames are made: a read that fails on the way leaves it to say.
        view = await table_view(self.services, table, self.player_id)
        if table.status == "open":
            self.announced[table.table_id] = table.status
            self.names.said(view)
            return [{"type": "challenge", "challenge": view}]
        self.names.closed(table.table_id)
        frames: list[dict[str, Any]] = []
        if before is not None:
            frames.append(
                {
                    "type": "challenge_closed",
                    "table_id": table.table_id,
                    "status": table.status,
                    "match_id": table.match_id,
                }
            )
        if table.status == "started" and table.match_id is not None:
            await self.services.tables.ensure_match(table)
            frames += await self._match_frames(table.match_id)
        self.announced[table.table_id] = table.status
        return frames

    async def _match_frames(
        self, match_id: str, at_least: int | None = None
    ) -> list[dict[str, Any]]:
        """``match_started`` the first time a match of this player is seen while it runs,
        then ``your_turn`` at each version where it must act, ``match_finished`` once.
        A match the player only watches (its host) gets the first and the last."""
        if match_id in self.finished:
            return []
        known = match_id in self.turns
        record = await self.services.matches.load(match_id, at_least=at_least)
        if ai_seat_to_act(record.state) is not None:
            # Left for the house AI by a crash between two appends: let it move first,
            # or a bot waiting for its turn would wait for ever.
            record = await self.services.matches.play_ai(match_id)
        state = record.state
        seat = self._seat(state)
        watching = seat is None and self._hosts(record)
        if seat is None and not watching:
            return []
        frames: list[dict[str, Any]] = []
        if not known:
            self.turns[match_id] = 0
            frames.append(
                {
                    "type": "match_started",
                    "match_id": match_id,
                    "seat": seat,
                    "players": state.players,
                    "watching": watching,
                    # the seats' and the host's to share: a seeded house match's host
                    # has no other way back to it once the answer that started it is lost
                    "watch_code": state.watch_code,
                }
            )
        if seat is not None and not is_house_ai(state.players[1 - seat]):
            self.claims.follow(record, seat)  # the house AI never leaves
        if state.settlement is not None:
            self.finished.add(match_id)
            self.turns.pop(match_id, None)
            self.claims.forget(match_id)
            frames.append(
                {
                    "type": "match_finished",
                    "match_id": match_id,
                    "version": state.version,
                    "winner": state.settlement.winner,
                }
            )
        elif seat is not None and seat in state.to_act() and self.turns[match_id] < state.version:
            self.turns[match_id] = state.version
            frames.append(
                {
                    "type": "your_turn",
                    "match_id": match_id,
                    "version": state.version,
                    "match": self._seat_match(record, seat),
                }
            )
        return frames

    def _seat_match(self, record: MatchRecord, seat: int) -> dict[str, Any]:
        """The match as ``seat`` sees it, as GET /v1/matches/{id} answers it: a bot needs
        no read per turn. Built from the record this frame was decided on (its seat view
        is kept per seat, so the match's own socket and the answer to the move share it):
        no read of the store. Who sits where is ``match_started``'s and GET's (two reads
        of names and ratings), and so is how many watch (a read on every process's
        counts): neither is a move's business, so neither is read per turn."""
        answer = self.services.matches.seat_answer(record, seat)
        body: dict[str, Any] = msgspec.to_builtins(answer)
        del body["seats"], body["spectators"]
        return body

    def _hosts(self, record: MatchRecord) -> bool:
        """Whether this player started the match to watch it (two house AIs)."""
        first = record.events[0].match_event if record.events else None
        return isinstance(first, MatchStarted) and first.host == self.player_id

    def _seat(self, state: MatchState) -> int | None:
        for seat, player in enumerate(state.players):
            if player == self.player_id:
                return seat
        return None
