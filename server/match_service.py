"""The match service: the server's one path from a request to appended events.

It loads a match from this process's log of it (``server/match_log.py``: a cache
that catches up with one ``read_stream`` when asked, and takes this process's own
appends without reading them back), checks the caller's seat and version, appends the
player's events, then plays every house-AI seat (a player id ``ai:<level>``, in either seat) until a person
or a bot is to act again. The AI's reply is decided before the player's move is
appended, and the two commit together as a chain (``EventStore.append_chain``): one
transaction, and a reply never lands on a state it was not decided on. Should the
reply fail or not go with the move, the move is appended alone and leaves the AI to
act; every entry point lets the AI catch up first, so a match never stalls.
A match between two house AIs is *paced* instead (``ai_pace_ms``): its moves, like
timeouts and claims, are the clocks' (``server/match_clocks.py``), which play them
through this service's lock, cache and ``commit``.
Appends go through the store's expected version, so several processes (or a stale
cache) can never write over each other: the loser re-reads and tries again.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence

from domain.commands import AnySeatCommand, NextHand, StartMatch
from domain.errors import DomainError, NotYourTurn, quoted, shortened
from domain.events import Dealt, Event, HandAcknowledged, MatchStarted, TurnTimedOut
from domain.match import apply, evolve
from domain.rules import Clock, Rules
from domain.seeds import ClientSeed
from domain.state import MatchState
from domain.views import PlayerView, SpectatorView, player_view, spectator_view
from infra.clock import now_ms
from infra.deadlines import Deadlines
from infra.errors import ConcurrencyConflict, IdempotencyMismatch
from infra.event_store import Batch, EventStore, RecordedEvent
from server.ai_thinking import AiThinker
from server.house_ai import AI_PREFIX, HouseAi, ai_command_id, ai_seat_to_act
from server.match_clocks import MatchClocks
from server.match_log import MatchLog
from server.match_record import MatchRecord, RecordCache
from server.problems import StaleVersion
from server.schemas import ActionResponse, MatchResponse
from server.seats import seat_of, versioned

VIEWS_KEPT = 256  # the newest view of the matches' seats last shown, for the next asker

log = logging.getLogger("ginrummy.ai")


def _ready_since(record: MatchRecord, version: int, command: AnySeatCommand) -> bool:
    """Between hands only the other seat's readiness may have come since ``version``:
    saying "ready" then is still what the player saw fit, so it is not a stale move
    (two people who click "next hand" together would otherwise get a 409)."""
    return (
        isinstance(command, NextHand)
        and record.state.phase == "hand_over"
        and 0 < version < record.state.version
        and all(isinstance(r.event, HandAcknowledged) for r in record.events[version:])
    )


def _timed_out_this_hand(record: MatchRecord, seat: int) -> str | None:
    """Why a move out of turn may have come too late: the seat's time ran out this hand
    and the stand-in played for it (a client that sent no ``version`` is told only "not
    your turn" otherwise). None if no turn of the seat's timed out since the deal."""
    for recorded in reversed(record.events):
        event = recorded.event
        if isinstance(event, Dealt):
            return None
        if isinstance(event, TurnTimedOut) and event.seat == seat:
            return (
                f"your time ran out at version {recorded.version}, and the stand-in "
                "played that turn for you"
            )
    return None


class MatchService:
    """Plays the moves players ask for, and the house AI's replies, on a cached log."""

    def __init__(
        self,
        store: EventStore,
        *,
        ai_time_cap_ms: float | None = None,
        on_append: Callable[[str, int], None] | None = None,
        on_start: Callable[[MatchStarted], None] | None = None,
        deadlines: Deadlines | None = None,
        next_hand_timeout_ms: int | None = None,
        ai_pace_ms: int = 0,
        thinker: AiThinker | None = None,
    ) -> None:
        self.store = store
        # threads only, unless the server gives a pool of processes
        self.house_ai = HouseAi(thinker or AiThinker(), ai_time_cap_ms)
        self.clocks = MatchClocks(
            self,
            deadlines=deadlines,
            next_hand_timeout_ms=next_hand_timeout_ms,
            ai_pace_ms=ai_pace_ms,
        )
        self.match_log = MatchLog(store, on_append)
        self._on_start = on_start or (lambda started: None)
        # (match id, seat) -> the record and that seat's view of its newest state
        self._views: OrderedDict[tuple[str, int], tuple[MatchRecord, PlayerView]] = OrderedDict()

    # --- reading ----------------------------------------------------------------------

    @property
    def records(self) -> RecordCache:
        return self.match_log.records

    async def load(self, match_id: str, at_least: int | None = None) -> MatchRecord:
        """The match caught up with the store (``MatchLog.load``)."""
        return await self.match_log.load(match_id, at_least)

    def lock(self, match_id: str) -> asyncio.Lock:
        return self.match_log.lock(match_id)

    async def view(self, match_id: str, player_id: str) -> MatchResponse:
        record = await self.play_ai(match_id)
        return self.seat_answer(record, seat_of(record.state, player_id))

    def seat_answer(self, record: MatchRecord, seat: int) -> MatchResponse:
        """The match as ``seat`` sees it now: what GET answers, a claim returns and a
        player stream's ``your_turn`` carries, built in this one place so they agree."""
        state = record.state
        return MatchResponse(
            match_id=state.match_id,
            seat=seat,
            version=state.version,
            view=self.seat_view(record, state, seat),
            now_ms=now_ms(),
            rated=state.rated,
            watch_code=state.watch_code,  # a seat's to share; never a spectator's
            finished_at_ms=record.settled_at_ms(),
        )

    def seat_view(self, record: MatchRecord, state: MatchState, seat: int) -> PlayerView:
        """A seat's view of ``state`` (a version of ``record``'s match); the newest
        version also shows the clock.

        The newest version's view is kept per seat, for that record: an action's answer
        and the same seat's socket (its frame for the last event) ask for it within
        milliseconds, and it was built for each. Only the same seat ever gets it back.
        """
        if state.version != record.state.version:
            return self.clocks.with_clock(record, state, player_view(state, seat))
        key = (record.state.match_id, seat)
        kept = self._views.get(key)
        if kept is not None and kept[0] is record:
            self._views.move_to_end(key)
            return kept[1]
        view = self.clocks.with_clock(record, state, player_view(state, seat))
        self._views[key] = (record, view)
        self._views.move_to_end(key)
        while len(self._views) > VIEWS_KEPT:
            self._views.popitem(last=False)
        return view

    def watcher_view(self, record: MatchRecord, state: MatchState) -> SpectatorView:
        return self.clocks.with_clock(record, state, spectator_view(state))

    # --- the clocks (``MatchClocks``), for the app's sweeper and shutdown --------

    async def fire_due(self) -> int:
        """Play every overdue turn the deadline table names (``MatchClocks.fire_due``)."""
        return await self.clocks.fire_due()

    async def close(self) -> None:
        """Stop this process's timers (the clocks' pace wakers) at shutdown."""
        await self.clocks.close()

    # --- writing ----------------------------------------------------------------------

    async def start(
        self,
        players: tuple[str, str],
        rules: Rules,
        seed: str | None,
        match_id: str | None = None,
        watch_code: str | None = None,
        *,
        client_seeds: tuple[ClientSeed, ClientSeed] | None = None,
        seed_committed_ms: int | None = None,
        hints: bool = True,
        rated: bool = False,
        clock: Clock | None = None,
        host: str | None = None,
    ) -> str:
        """Start a match between any two players (a person, a bot or ``ai:<level>``);
        with a ``watch_code`` only those who give it may watch; ``rated`` as
        ``server.ratings.rated_for`` decided it.

        With ``client_seeds`` the deal is fair and ``seed`` is the committed server seed
        (server/fair_deal.py); without them ``seed`` (random if None) alone fixes the
        deal, and the match is practice.
        The first append is at version 0, so a given ``match_id`` starts once: a second
        start is a ConcurrencyConflict and writes nothing.
        """
        match_id = match_id or uuid.uuid4().hex
        start = StartMatch(
            match_id=match_id,
            players=players,
            rules=rules,
            seed=seed if seed is not None else secrets.token_hex(16),
            watch_code=watch_code,
            client_seeds=client_seeds,
            seed_committed_ms=seed_committed_ms,
            hints=hints,
            rated=rated,
            clock=clock,
            host=host,
        )
        _, events = apply(None, start)
        result = await self.match_log.append(match_id, 0, events)
        self.match_log.tell_listeners(match_id, result.last_version)
        if isinstance(events[0], MatchStarted):
            self._on_start(events[0])  # the player streams of its seats and host hear of it
        async with self.lock(match_id):
            record = await self.play_ai_locked(await self.load(match_id))
            await self.clocks.schedule(record)
        return match_id

    async def act(
        self,
        match_id: str,
        player_id: str,
        command_for: Callable[[int], AnySeatCommand],
        version: int | None,
        command_id: str | None = None,
        command_hash: str | None = None,
    ) -> ActionResponse:
        """Apply the caller's command at the current version, then the AI's reply.

        ``command_id`` (from an Idempotency-Key) makes a retry return the first answer:
        if the log already holds that command, nothing is decided or appended again.

        It trusts this process's cache first (no read): the append's expected version
        catches a cache that another process made stale, and then, as on any refusal
        decided from the cache, the match is read again and the command retried once.
        So an action costs one commit (the move and the AI's reply as a chain; two in a
        timed match) and, usually, no read. A stale cache found out only at that commit
        throws away the reply the AI thought out on it, and the AI thinks again.
        """
        command_id = command_id or f"cmd:{uuid.uuid4().hex}"
        async with self.lock(match_id):
            cached = self.records.get(match_id)
            record = cached if cached is not None else await self.load(match_id)
            verified = cached is None
            while True:
                try:
                    return await self._act_locked(
                        record, player_id, command_for, version, command_id, command_hash
                    )
                except (StaleVersion, ConcurrencyConflict, DomainError) as exc:
                    if not verified:
                        record, verified = await self.load(match_id), True
                        continue
                    if isinstance(exc, ConcurrencyConflict):
                        raise StaleVersion(
                            "the match changed while you acted; refresh and retry"
                        ) from exc
                    raise

    async def _act_locked(
        self,
        record: MatchRecord,
        player_id: str,
        command_for: Callable[[int], AnySeatCommand],
        version: int | None,
        command_id: str,
        command_hash: str | None,
    ) -> ActionResponse:
        match_id = record.state.match_id
        seat = seat_of(record.state, player_id)
        command = command_for(seat)  # a retry's body too: a seat not the caller's is refused
        if ai_seat_to_act(record.state) is not None:
            # Left over from a crash, perhaps this very command's: its retry must
            # answer with the AI's reply, as the first try would have.
            record = await self.play_ai_locked(record)
        earlier = next((r for r in record.events if r.command_id == command_id), None)
        if earlier is not None:
            # The same command id with another body is a reuse, as the store's append has it.
            if (
                command_hash is not None
                and await self.store.command_hash(command_id) != command_hash
            ):
                raise IdempotencyMismatch(
                    f"command id {quoted(command_id)} was used for another request"
                )
            return self._answer(record, seat, earlier.version)
        if self.clocks.is_timed(record):
            # A move after the seat's time ran out is too late, even if no sweeper has
            # fired yet: the timeout comes first, and the move is then stale.
            record = await self.clocks.time_out_locked(record) or record
        state = record.state
        if (
            version is not None
            and version != state.version
            and not _ready_since(record, version, command)
        ):
            raise StaleVersion(
                f"you acted on version {shortened(str(version))}; the match is at version "
                f"{state.version}"
            )
        try:
            after, events = apply(state, command)
        except NotYourTurn as refusal:
            if (late := _timed_out_this_hand(record, seat)) is not None:
                raise NotYourTurn(f"{refusal}; {late}") from refusal
            raise
        chain = [(events, command_id)]
        if command_hash is not None and self._would_reply(record, after):
            await self._refuse_a_key_bound_elsewhere(command_id, command_hash)
        reply = await self._reply_to(record, after)
        if reply:
            chain.append((reply, ai_command_id(after)))
        batches = [Batch(e, c, command_hash if c == command_id else None) for e, c in chain]
        results = await self.match_log.append_chain(match_id, state.version, batches)
        result = results[0]
        if result.duplicate:
            record = await self.load(match_id)
        else:
            for (appended, appended_id), written in zip(chain, results, strict=False):
                record = self.match_log.remember(record, appended, written, appended_id)
            self.match_log.tell_listeners(match_id, results[-1].last_version)
        record = await self.play_ai_locked(record)  # the reply, if it did not go with the move
        await self.clocks.schedule(record)
        return self._answer(record, seat, result.first_version, before=state)

    def _answer(
        self,
        record: MatchRecord,
        seat: int,
        first_version: int,
        before: MatchState | None = None,
    ) -> ActionResponse:
        """The answer to the command whose events start at ``first_version``.

        It is a pure function of the log (the command's events, then the AI appends
        that follow it), so a retried request gets the same answer even if the first
        one was cut off by a crash; only ``now_ms`` is the retry's own. ``before``, the
        state the command was applied to, spares refolding the match from its start,
        which grows with the match.
        """
        if before is not None and before.version == first_version - 1:
            state = before
        else:
            state = record.state_at(first_version - 1)
        human_command = record.events[first_version - 1].command_id
        shown: list[RecordedEvent] = []
        for recorded in record.events[first_version - 1 :]:
            command = recorded.command_id or ""
            if command != human_command and not command.startswith(AI_PREFIX):
                break
            state = evolve(state, recorded.match_event)
            shown.append(recorded)
        return ActionResponse(
            match_id=state.match_id,
            seat=seat,
            version=state.version,
            view=self.seat_view(record, state, seat),
            events=versioned(shown, seat),
            now_ms=now_ms(),
        )

    async def play_ai(self, match_id: str) -> MatchRecord:
        """Let the AI catch up if it is its turn (after a crash, or a new match); the
        match as it is then, so a caller needs no second read."""
        record = await self.load(match_id)
        if ai_seat_to_act(record.state) is None or self.clocks.is_paced(record.state):
            return record
        async with self.lock(match_id):
            return await self.play_ai_locked(await self.load(match_id))

    async def play_ai_locked(self, record: MatchRecord) -> MatchRecord:
        """Play the AI seats' turns from ``record`` until nobody else must act; append them
        at once. Between hands an AI seat says it is ready as soon as the hand ends.
        A paced match (two house AIs) is left to its deadlines: one move at a time."""
        match_id = record.state.match_id
        if self.clocks.is_paced(record.state):
            return record
        while True:
            pending = await self.house_ai.moves(record.state)
            if not pending:
                return record
            try:
                played = await self.commit(record, pending, ai_command_id(record.state))
            except ConcurrencyConflict:
                record = await self.load(match_id)  # another process moved it: look again
                continue
            return played if played is not None else await self.load(match_id)

    def _would_reply(self, record: MatchRecord, state: MatchState) -> bool:
        """Whether ``_reply_to`` would think out the house AI's reply to reach ``state``."""
        return (
            ai_seat_to_act(state) is not None
            and not self.clocks.is_paced(state)
            and not self.clocks.is_timed(record)
        )

    async def _refuse_a_key_bound_elsewhere(self, command_id: str, command_hash: str) -> None:
        """Refuse a keyed move whose key the log binds to another request, before the AI
        thinks out its reply. The append would refuse it anyway, and a refusal changes
        nothing, so it could be sent again and again with any move: had the AI thought
        first, the answer's timing would tell how the AI, on its hidden hand, weighs each
        hypothetical move. A key used in this match is found in the cached log for free;
        one used in another match costs this one read (only when a reply is thought out)."""
        bound = await self.store.command_hash(command_id)
        if bound is not None and bound != command_hash:
            raise IdempotencyMismatch(
                f"command id {quoted(command_id)} was used for another request"
            )

    async def _reply_to(self, record: MatchRecord, state: MatchState) -> list[Event]:
        """The AI's reply to a move, decided before the move is appended so the two can
        commit together. None in a paced match, nor in a timed one: a clock charges
        each seat up to its event's recorded time, and one commit would charge the
        player for the AI's thinking. Should deciding fail, the move goes in alone and
        the reply is decided again after it, where a failure is reported as it always
        was (and every entry point lets the AI catch up, so nothing stalls)."""
        if not self._would_reply(record, state):
            return []
        try:
            return await self.house_ai.moves(state)
        except Exception as error:
            log.warning(
                "the AI's reply in match %s at version %s failed before the move was "
                "appended (%r): the move goes in alone and the reply is tried after it",
                state.match_id,
                state.version,
                error,
            )
            return []

    async def commit(
        self, record: MatchRecord, events: Sequence[Event], command_id: str
    ) -> MatchRecord | None:
        """Append ``events`` as ``command_id`` on ``record``'s version and tell the
        listeners: the record after them, or None if the log already holds that command
        (a retry, or another process that fired the same deadline). ConcurrencyConflict
        if the match moved on; each caller decides whether that is the player's error."""
        match_id = record.state.match_id
        result = await self.match_log.append(match_id, record.state.version, events, command_id)
        if result.duplicate:
            return None
        record = self.match_log.remember(record, events, result, command_id)
        self.match_log.tell_listeners(match_id, result.last_version)
        return record
