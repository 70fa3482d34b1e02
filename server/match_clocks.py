"""The matches' clocks: the moves the server makes because time passed, not because
someone asked.

A seat whose time ran out is timed out, a paced match between two house AIs plays its
next move, a player claims a match from an opponent gone too long. Each is a deadline
in the shared table (``infra.deadlines``) that every process's sweeper fires
(``fire_due``), so a match keeps its clock whichever process is up; a paced match is
also woken from this process's own timer, sooner than a sweep. The moves themselves go
through the match service (its lock, cache and expected version), so two processes
that fire one deadline append it once. Kept apart from ``MatchService``, which plays
the moves players ask for, so each reads as one concept.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import msgspec

from domain.clock import Claim, TimeOut, clock_view, deadline, decide_claim, decide_timeout
from domain.errors import ClaimAgainstHouse, ClockNotDue, DomainError
from domain.events import TurnTimedOut
from domain.match import apply
from domain.state import MatchState
from domain.views import ClockView, PlayerView, SpectatorView
from infra.clock import now_ms
from infra.deadlines import Deadlines
from infra.errors import ConcurrencyConflict
from server.house_ai import ai_command_id, ai_seat_to_act, is_house_ai
from server.match_record import CACHE_SIZE, MatchRecord, at_ms
from server.problems import StaleVersion
from server.schemas import MatchResponse
from server.seats import seat_of

if TYPE_CHECKING:
    from server.match_service import MatchService

log = logging.getLogger("ginrummy.ai")
V = TypeVar("V", PlayerView, SpectatorView)
# (match id, seat, player id) -> since when that seat is away (ms), None while present
AwaySince = Callable[[str, int, str], Awaitable[int | None]]


class MatchClocks:
    """The clocks of one MatchService's matches: which are timed or paced, the deadlines
    written for them, this process's pace timers, and the moves those deadlines make."""

    def __init__(
        self,
        matches: MatchService,
        *,
        deadlines: Deadlines | None = None,
        next_hand_timeout_ms: int | None = None,
        ai_pace_ms: int = 0,
    ) -> None:
        self.matches = matches
        self.deadlines = deadlines
        self.next_hand_timeout_ms = next_hand_timeout_ms
        self.ai_pace_ms = ai_pace_ms
        self._wakers: dict[str, tuple[int, asyncio.Task[None]]] = {}  # paced matches' next move
        self._written: OrderedDict[str, int | None] = OrderedDict()  # last deadline we wrote

    # --- which matches run a clock ----------------------------------------------------

    def next_hand_ms(self, state: MatchState) -> int | None:
        """The next-hand timeout: only between two players (a house AI is ready at once)."""
        if any(is_house_ai(player) for player in state.players):
            return None
        return self.next_hand_timeout_ms

    @staticmethod
    def untimed(state: MatchState) -> tuple[int, ...]:
        """The house AI's seats: the server plays them at once, so their clock never runs out."""
        return tuple(seat for seat in (0, 1) if is_house_ai(state.players[seat]))

    def clock_of(self, record: MatchRecord, state: MatchState | None = None) -> ClockView | None:
        """The clock of ``state`` (the newest if None), a version of ``record``'s match."""
        state = record.state if state is None else state
        next_hand_ms = self.next_hand_ms(state)
        if record.clock.clock is None and next_hand_ms is None:
            return None  # no clock at any version: not worth folding an older one
        clock = record.clock_at(state.version)
        return clock_view(state, clock, next_hand_ms, self.untimed(state))

    def with_clock(self, record: MatchRecord, state: MatchState, view: V) -> V:
        """``view`` of ``state`` with the clock as it stood at that version: a frame for an
        older version (one of a timeout and the stand-in's move, read at once) had none,
        which the docs keep for a match without a clock."""
        clock = self.clock_of(record, state)
        return view if clock is None else msgspec.structs.replace(view, clock=clock)

    def is_timed(self, record: MatchRecord) -> bool:
        return record.clock.clock is not None or self.next_hand_ms(record.state) is not None

    def is_paced(self, state: MatchState) -> bool:
        """Two house AIs and a pace: nobody to wait for, so the server waits between moves."""
        return self.ai_pace_ms > 0 and all(is_house_ai(player) for player in state.players)

    def paced_due_ms(self, record: MatchRecord) -> int | None:
        """When a paced match's next AI decision is due: a pace after its last event."""
        if record.state.settlement is not None or ai_seat_to_act(record.state) is None:
            return None
        return at_ms(record.events[-1].recorded_at) + self.ai_pace_ms

    # --- deadlines and timers ---------------------------------------------------------

    async def schedule(self, record: MatchRecord, force: bool = False) -> None:
        """Write the match's next deadline for the sweepers of every process."""
        paced = self.is_paced(record.state)
        if self.deadlines is None or not (paced or self.is_timed(record)):
            return
        if record.state.settlement is not None:
            await self.deadlines.clear(record.state.match_id)
            self._written.pop(record.state.match_id, None)
            return
        state = record.state
        if paced:
            due_ms = self.paced_due_ms(record)
            if due_ms is not None:
                self._wake(state.match_id, due_ms)
        else:
            due = deadline(state, record.clock, self.next_hand_ms(state), self.untimed(state))
            due_ms = due.at_ms if due else None
        if (
            not force
            and state.match_id in self._written
            and self._written[state.match_id] == due_ms
        ):
            # Half a turn (a draw before its discard) leaves the deadline where it was; a
            # deadline depends on when the turn began, so no other process wrote another.
            return
        await self.deadlines.set(state.match_id, state.version, due_ms)
        self._written[state.match_id] = due_ms
        self._written.move_to_end(state.match_id)
        while len(self._written) > CACHE_SIZE:
            self._written.popitem(last=False)

    async def fire_due(self) -> int:
        """Play every overdue turn the deadline table names; any process may do it."""
        if self.deadlines is None:
            return 0
        fired = 0
        for match_id in await self.deadlines.due(now_ms()):
            try:
                fired += await self.time_out(match_id)
            except Exception:
                # the longest overdue are tried first: one that fails every time must
                # not hold up every later clock (nor end the sweeper, which would stop them all)
                log.exception(
                    "timing out match %s failed; trying again at the next sweep", match_id
                )
        return fired

    def _wake(self, match_id: str, due_ms: int) -> None:
        """Fire a paced match's next move from this process at ``due_ms``, sooner than a
        sweep would; the deadline row is there for any process if this one stops."""
        waiting = self._wakers.get(match_id)
        if waiting is not None and waiting[0] == due_ms and not waiting[1].done():
            return
        if waiting is not None:
            waiting[1].cancel()

        async def wake() -> None:
            await asyncio.sleep(max(0, due_ms - now_ms()) / 1000)
            if self._wakers.get(match_id, (None, None))[1] is asyncio.current_task():
                del self._wakers[match_id]
            try:
                await self.time_out(match_id)
            except Exception:  # the sweeper fires the row later; a waker must not die loud
                log.exception("playing the paced AI move of match %s failed", match_id)

        self._wakers[match_id] = (due_ms, asyncio.create_task(wake(), name=f"pace:{match_id}"))

    async def close(self) -> None:
        """Stop this process's wakers; the deadline rows keep every paced match going."""
        waiting = [task for _, task in self._wakers.values()]
        self._wakers.clear()
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)

    # --- the moves time makes ---------------------------------------------------------

    async def time_out(self, match_id: str) -> bool:
        """Record the timeout of the late seat(s) if it is really due, then the AI's reply.

        Two processes that fire one deadline decide the same events at the same version;
        the store records one append, the other's conflicts and changes nothing.
        """
        async with self.matches.lock(match_id):
            record = await self.matches.load(match_id)
            if self.is_paced(record.state):
                return await self._play_paced_locked(record)
            try:
                fired = await self.time_out_locked(record)
            except ConcurrencyConflict:
                return False  # someone moved (or timed it out) first: theirs stands
            if fired is None:
                await self.schedule(record, force=True)  # an old hint: put the real one back
                return False
            return fired is not record

    async def time_out_locked(self, record: MatchRecord) -> MatchRecord | None:
        """The match after the late seat(s)' timeout and the AI's reply; None if nobody's
        time has run out; ``record`` unchanged if another process recorded it first."""
        match_id, state = record.state.match_id, record.state
        command = TimeOut(now_ms(), self.next_hand_ms(state), self.untimed(state))
        try:
            events = decide_timeout(state, record.clock, command)
        except (ClockNotDue, DomainError):
            return None
        timed_out = await self.matches.commit(record, events, f"timeout:{match_id}:{state.version}")
        if timed_out is None:
            return record
        # A debug line: a match both players left times out every turn to its end, and an
        # info line each (a Python repr at that) was a hundred lines a match.
        late = [event.seat for event in events if isinstance(event, TurnTimedOut)]
        log.debug("seat(s) %s timed out in match %s", late, match_id)
        record = await self.matches.play_ai_locked(timed_out)
        await self.schedule(record)
        return record

    async def _play_paced_locked(self, record: MatchRecord) -> bool:
        """One AI decision of a paced match, if its pause is over.

        Any process may fire it, from its waker or its sweeper: all decide the same
        command at the same version, and the store's expected version lets one append.
        """
        state = record.state
        due_ms = self.paced_due_ms(record)
        if due_ms is None or now_ms() < due_ms:
            await self.schedule(record, force=True)  # an old hint: put the real one back
            return False
        seat = ai_seat_to_act(state)
        assert seat is not None
        _, events = apply(state, await self.matches.house_ai.command(state, seat))
        try:
            played = await self.matches.commit(record, events, ai_command_id(state))
        except ConcurrencyConflict:
            return False  # another process played this move first: theirs stands
        if played is None:
            return False
        await self.schedule(played)
        return True

    async def claim(self, match_id: str, player_id: str, away_since_ms: AwaySince, grace_ms: int) -> MatchResponse:  # fmt: skip
        """Claim the match from an opponent who timed out three turns in a row or has been
        away past the grace period; it settles as the opponent's resignation.
        ``away_since_ms(match_id, seat, player_id)`` says since when that seat is away."""
        matches = self.matches
        async with matches.lock(match_id):
            record = await matches.load(match_id)
            seat = seat_of(record.state, player_id)
            opponent = record.state.players[1 - seat]
            if is_house_ai(opponent) and record.state.settlement is None:  # over: match_over
                raise ClaimAgainstHouse("the house AI never leaves: resign instead")
            command = Claim(
                seat=seat,
                now_ms=now_ms(),
                grace_ms=grace_ms,
                away_since_ms=await away_since_ms(match_id, 1 - seat, opponent),
            )
            events = decide_claim(record.state, record.clock, command)
            command_id = f"claim:{match_id}:{record.state.version}:{seat}"
            try:
                claimed = await matches.commit(record, events, command_id)
            except ConcurrencyConflict as exc:
                raise StaleVersion("the match changed while you claimed it; retry") from exc
            record = claimed if claimed is not None else await matches.load(match_id)
            await self.schedule(record)
            return matches.seat_answer(record, seat)
