"""Move clocks and absence as a pure decider beside the match's.

The clock needs to know *when* each event happened, and the rules decider never reads
a clock. So the clock state is a fold over (match state after the event, event, the
time the store recorded it) triples: the log already records every event's time, so
no move event grows an ``at_ms`` field and old matches replay unchanged. The server's
own clock enters only as ``now_ms`` in the two commands here, ``TimeOut`` and ``Claim``.

A clock runs only while exactly one seat is to act in a hand. Between hands each seat
that has not said it is ready has ``next_hand_timeout_ms`` (given by the server, which
sets it only for two players: a house AI is always ready at once).
"""

from __future__ import annotations

import hashlib
from typing import Literal

import msgspec
from msgspec.structs import replace

from domain import errors
from domain.ai import Level, choose
from domain.commands import NextHand, Resign
from domain.events import (
    Dealt,
    Discarded,
    Drew,
    Event,
    HandAcknowledged,
    Knocked,
    LaidOff,
    MatchClaimed,
    MatchSettled,
    MatchStarted,
    TurnTimedOut,
    UpCardPassed,
    UpCardTaken,
)
from domain.match import apply, decide, evolve, fold
from domain.rules import MIN_CLOCK_MS, Clock
from domain.state import MatchState
from domain.views import ClockView, player_view

# timeouts in a row after which the opponent may claim the match, unless it has as many
TIMEOUTS_TO_CLAIM = 3
STAND_IN: Level = "easy"  # the house AI level that plays a turn whose time ran out

# A seat's own moves in a turn: each resets its run of timeouts. Its "ready" between
# hands (HandAcknowledged) is no turn and times out apart (never counted), so it shows
# the seat is there (last_acted_ms) but clears no run: else reading each hand's result
# would wipe three timeouts and the claim they allow.
_SEAT_MOVES = (UpCardTaken, UpCardPassed, Drew, Discarded, Knocked, LaidOff)


class ClockState(msgspec.Struct, frozen=True, gc=False):
    """The clock folded from the log (times in ms since the epoch)."""

    clock: Clock | None = None
    running: int | None = None  # the seat whose move clock runs, if any
    since_ms: int = 0  # when ``running``'s turn began
    bank_ms: tuple[int, int] = (0, 0)  # each seat's bank at the start of its turn
    hand_over_ms: int | None = None  # when the hand in ``hand_over`` ended
    in_a_row: tuple[int, int] = (0, 0)  # each seat's timeouts in a row
    stand_in: int | None = None  # the seat whose turn the house AI is playing
    last_acted_ms: tuple[int, int] = (0, 0)  # each seat's last move of its own
    # indices in this hand's ``moves`` that the stand-in made (the seat did not choose them)
    stand_in_moves: tuple[int, ...] = ()


class Deadline(msgspec.Struct, frozen=True):
    """When the late ``seats`` run out of time."""

    at_ms: int
    seats: tuple[int, ...]
    between_hands: bool = False


# --- commands ----------------------------------------------------------------------


class TimeOut(msgspec.Struct, frozen=True):
    """The server's clock says ``now_ms``: play for every seat whose time has run out."""

    now_ms: int
    next_hand_timeout_ms: int | None = None
    untimed: tuple[int, ...] = ()  # seats whose clock never runs out (the house AI's)


class Claim(msgspec.Struct, frozen=True):
    """``seat`` claims the match. ``away_since_ms`` is when the opponent's last live
    connection closed (None: connected now); ``grace_ms`` is how long away is allowed."""

    seat: int
    now_ms: int
    grace_ms: int
    away_since_ms: int | None


# --- fold ----------------------------------------------------------------------------


def _running(state: MatchState) -> int | None:
    if state.phase in ("hand_over", "match_over"):
        return None
    to_act = state.to_act()
    return to_act[0] if len(to_act) == 1 else None


def _set(pair: tuple[int, int], seat: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def advance(clock: ClockState | None, after: MatchState, event: Event, at_ms: int) -> ClockState:
    """The clock after ``event``, recorded at ``at_ms``, left the match in ``after``."""
    if isinstance(event, MatchStarted):
        full = event.clock.bank_ms if event.clock and event.clock.bank_ms else 0
        return ClockState(
            clock=event.clock, since_ms=at_ms, bank_ms=(full, full), last_acted_ms=(at_ms, at_ms)
        )
    assert clock is not None
    in_a_row, last, bank, stand_in, stood_in = (
        clock.in_a_row,
        clock.last_acted_ms,
        clock.bank_ms,
        clock.stand_in,
        clock.stand_in_moves,
    )
    if isinstance(event, Dealt):
        stood_in = ()
    if isinstance(event, TurnTimedOut):
        stand_in = event.seat
        if not event.between_hands:
            in_a_row = _set(in_a_row, event.seat, in_a_row[event.seat] + 1)
    elif isinstance(event, _SEAT_MOVES) and event.seat != stand_in:
        in_a_row, last = _set(in_a_row, event.seat, 0), _set(last, event.seat, at_ms)
    elif isinstance(event, _SEAT_MOVES) and after.hand is not None:  # the stand-in's move
        stood_in = (*stood_in, len(after.hand.moves) - 1)
    elif isinstance(event, HandAcknowledged) and event.seat != stand_in:
        last = _set(last, event.seat, at_ms)
    running, since = _running(after), clock.since_ms
    if running != clock.running:
        ended = clock.running
        if ended is not None:
            if ended != stand_in and after.settlement is None:
                # its own move ended the turn (finishing layoffs names no seat)
                in_a_row, last = _set(in_a_row, ended, 0), _set(last, ended, at_ms)
            if clock.clock is not None and clock.clock.bank_ms is not None:
                left = max(0, bank[ended] - (at_ms - since)) + clock.clock.increment_ms
                bank = _set(bank, ended, left)
        stand_in, since = None, at_ms
    hand_over_ms = clock.hand_over_ms if after.phase == "hand_over" else None
    if after.phase == "hand_over" and hand_over_ms is None:
        hand_over_ms = at_ms
    return replace(
        clock,
        running=running,
        since_ms=since,
        bank_ms=bank,
        hand_over_ms=hand_over_ms,
        in_a_row=in_a_row,
        stand_in=stand_in,
        last_acted_ms=last,
        stand_in_moves=stood_in,
    )


def deadline(
    state: MatchState,
    clock: ClockState,
    next_hand_timeout_ms: int | None,
    untimed: tuple[int, ...] = (),
) -> Deadline | None:
    """The next moment a seat runs out of time, or None while no clock runs. A seat in
    ``untimed`` (the house AI, which the server plays at once) never runs out."""
    if state.settlement is not None or state.hand is None:
        return None
    if state.phase == "hand_over":
        if next_hand_timeout_ms is None or clock.hand_over_ms is None:
            return None
        return Deadline(clock.hand_over_ms + next_hand_timeout_ms, state.to_act(), True)
    settings, seat = clock.clock, clock.running
    if settings is None or seat is None or seat in untimed:
        return None
    if settings.per_move_ms is not None:
        allowed = settings.per_move_ms
    else:  # an empty bank still leaves a turn the floor's time, or the stand-in plays them all
        allowed = max(clock.bank_ms[seat], MIN_CLOCK_MS)
    return Deadline(clock.since_ms + allowed, (seat,))


def clock_view(
    state: MatchState,
    clock: ClockState,
    next_hand_timeout_ms: int | None,
    untimed: tuple[int, ...] = (),
) -> ClockView | None:
    """What the views show; None for a match without a clock or a next-hand timeout."""
    settings = clock.clock
    due = deadline(state, clock, next_hand_timeout_ms, untimed)
    if settings is None and next_hand_timeout_ms is None:
        return None
    return ClockView(
        per_move_ms=settings.per_move_ms if settings else None,
        bank_ms=clock.bank_ms if settings and settings.bank_ms is not None else None,
        increment_ms=settings.increment_ms if settings else 0,
        running=clock.running if settings else None,
        deadline_ms=due.at_ms if due and not due.between_hands else None,
        next_hand_deadline_ms=due.at_ms if due and due.between_hands else None,
        timeouts_in_a_row=clock.in_a_row,
        stand_in_moves=clock.stand_in_moves,
    )


# --- decide --------------------------------------------------------------------------


def stand_in_seed(state: MatchState) -> str:
    """The stand-in AI's seed: fixed by the match seed and version, so a replay agrees."""
    return hashlib.sha256(f"timeout:{state.seed}:{state.version}".encode()).hexdigest()


def decide_timeout(state: MatchState, clock: ClockState, cmd: TimeOut) -> list[Event]:
    """``TurnTimedOut`` for each seat whose time ran out, then the moves made for it:
    the house easy AI's turn, or between hands the seat's "ready".

    When the stand-in's move settles the match while both seats are away (``abandoned``),
    the ``MatchSettled`` says so: this is the one place a settlement is made for a seat
    with the clock in view, so it is decided here, once, and the log keeps it."""
    due = deadline(state, clock, cmd.next_hand_timeout_ms, cmd.untimed)
    if due is None:
        raise errors.ClockNotDue("no clock is running in this match")
    if cmd.now_ms < due.at_ms:
        raise errors.ClockNotDue(f"seat {due.seats[0]} has {due.at_ms - cmd.now_ms} ms left")
    events: list[Event] = []
    current = state
    in_a_row = clock.in_a_row  # as ``advance`` will count it: the stand-in's moves reset nothing
    for seat in due.seats:
        timed_out = TurnTimedOut(seat=seat, between_hands=due.between_hands)
        current = evolve(current, timed_out)
        events.append(timed_out)
        if due.between_hands:
            ready = decide(current, NextHand(seat))
            current = fold(ready, current)
            events.extend(ready)
            continue
        in_a_row = _set(in_a_row, seat, in_a_row[seat] + 1)
        while current.phase not in ("hand_over", "match_over") and current.to_act() == (seat,):
            command = choose(STAND_IN, player_view(current, seat), stand_in_seed(current))
            current, made = apply(current, command)
            if abandoned(in_a_row):
                made = [
                    replace(e, abandoned=True) if isinstance(e, MatchSettled) else e for e in made
                ]
            events.extend(made)
    return events


def abandoned(in_a_row: tuple[int, int]) -> bool:
    """Both seats away: each has timed out ``TIMEOUTS_TO_CLAIM`` turns or more in a row
    since its last move of its own, so the stand-in has played at least each one's last
    three turns, and neither moved since. A settlement the stand-in makes then was decided
    by the computer for both players, and is not rated (docs/ratings.md).

    The same count as a claim by timeouts, for the same reason: a seat at three may be
    claimed from, and the one place the rules call a player gone. Only turns in a hand
    count; "ready" between hands neither counts nor resets (``advance``), so a run goes on
    from hand to hand. A seat that plays a move of its own in time resets its run to 0,
    and a match it then finishes, itself or through its opponent's stand-in, is rated; so
    is one it resigns or claims (a player's own decision of the result)."""
    return min(in_a_row) >= TIMEOUTS_TO_CLAIM


ClaimReason = Literal["timeouts", "absence"]


def _timed_out_too_often(clock: ClockState, seat: int) -> bool:
    """``seat`` has timed out enough turns in a row to be claimed from: the stand-in
    plays its turns, so it is not there to play them itself."""
    return clock.in_a_row[seat] >= TIMEOUTS_TO_CLAIM


def _plays_its_own_turns(clock: ClockState, seat: int) -> bool:
    """``seat``'s latest turn was its own move, in time (none timed out since)."""
    return clock.in_a_row[seat] == 0


def claim_reason(state: MatchState, clock: ClockState, cmd: Claim) -> ClaimReason | None:
    """Why ``cmd.seat`` may claim the match now, or None if it may not.

    Absence counts only while the absent seat is to act, from when it became its turn at
    the earliest: a player waiting for the claimant's move keeps nobody waiting (and one
    who plays over plain HTTP is never "connected"), so a claimant cannot stall on its own
    turn and then claim."""
    absent = 1 - cmd.seat
    # A claimant whose turns the stand-in plays too is not there either: when both time
    # out, the clock is too short for them, and neither has left the other waiting. So its
    # latest turn must be its own: when both idle, their timeouts alternate, and a claimant
    # at two when the other reaches three is as absent as the other.
    if _timed_out_too_often(clock, absent) and _plays_its_own_turns(clock, cmd.seat):
        return "timeouts"
    at = absence_claim_at(state, clock, cmd.seat, cmd.away_since_ms, cmd.grace_ms)
    if at is not None and cmd.now_ms >= at:
        return "absence"
    return None


def absence_claim_at(
    state: MatchState, clock: ClockState, seat: int, away_since_ms: int | None, grace_ms: int
) -> int | None:
    """From when ``seat`` may claim the match by its opponent's absence, if the opponent
    stays away and nothing moves; None while it cannot come to that (the opponent is
    connected, ``away_since_ms`` None; or it is not to act; or the match is over). The
    grace runs from the latest of: when the opponent was last connected, its last move of
    its own, and when its turn (or the hand's end) began. A client offering the claim
    reads this (``GET …/claim``) rather than guess the server's grace and presence."""
    absent = 1 - seat
    if state.settlement is not None or away_since_ms is None or absent not in state.to_act():
        return None
    waiting_since = clock.hand_over_ms if state.phase == "hand_over" else clock.since_ms
    return max(away_since_ms, clock.last_acted_ms[absent], waiting_since or 0) + grace_ms


def last_seen(clock: ClockState, seat: int, away_since_ms: int | None) -> int | None:
    """When ``seat`` was last there (connected, or making a move of its own); None while
    it is connected."""
    return None if away_since_ms is None else max(away_since_ms, clock.last_acted_ms[seat])


def decide_claim(state: MatchState, clock: ClockState, cmd: Claim) -> list[Event]:
    """The claim, then the absent seat's resignation (docs/rules.md, "Clocks")."""
    if state.settlement is not None:
        raise errors.MatchOver("the match is over")
    if cmd.seat not in (0, 1):
        raise errors.IllegalCommand(f"seat must be 0 or 1, got {cmd.seat!r}")
    reason = claim_reason(state, clock, cmd)
    absent = 1 - cmd.seat
    if reason is None and _timed_out_too_often(clock, absent):  # the claimant timed out too
        raise errors.ClaimTooEarly(
            f"seat {cmd.seat} has itself timed out {clock.in_a_row[cmd.seat]} turn(s) in a row "
            f"while seat {absent} timed out {clock.in_a_row[absent]}: a claim by timeouts needs "
            f"a claimant whose latest turn was its own (make a move in time first)"
        )
    if reason is None:
        raise errors.ClaimTooEarly(
            f"seat {absent} has timed out {clock.in_a_row[absent]} turn(s) in a row "
            f"(a claim needs {TIMEOUTS_TO_CLAIM}) and has not been away, while it is to act, "
            f"for the grace period of {cmd.grace_ms / 1000:g} s"
        )
    return [MatchClaimed(seat=cmd.seat, reason=reason), *decide(state, Resign(1 - cmd.seat))]
