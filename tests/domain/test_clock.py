"""The move clock: folded from (event, time) pairs, decided with the server's time as data."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from domain import errors
from domain.ai import choose
from domain.clock import (
    STAND_IN,
    TIMEOUTS_TO_CLAIM,
    Claim,
    ClockState,
    TimeOut,
    absence_claim_at,
    advance,
    clock_view,
    deadline,
    decide_claim,
    decide_timeout,
    last_seen,
)
from domain.commands import AnyCommand, NextHand, PassUpCard, Resign, StartMatch, TakeUpCard
from domain.events import (
    Discarded,
    Event,
    HandAcknowledged,
    MatchClaimed,
    MatchSettled,
    Resigned,
    TurnTimedOut,
    decode_event,
    encode_event,
)
from domain.match import decide, evolve, fold, legal_commands
from domain.rules import MIN_CLOCK_MS, Clock, make_rules, validate_clock
from domain.state import MatchState
from domain.views import player_view, spectator_view

T0 = 1_000_000


class Log:
    """A match and its clock, moved by commands and timeouts at chosen times."""

    def __init__(
        self, clock: Clock | None, seed: str = "clock-seed", *, recorded_clock: Clock | None = None
    ) -> None:
        """``recorded_clock``: a clock as a log recorded before ``MIN_CLOCK_MS`` holds it
        (the decider would refuse it now; the fold takes what the log says)."""
        self.state: MatchState | None = None
        self.clock: ClockState | None = None
        self.events: list[Event] = []
        start = StartMatch(
            match_id="m", players=("a", "b"), rules=make_rules(), seed=seed, clock=clock
        )
        started = decide(None, start)
        if recorded_clock is not None:
            started[0] = replace(started[0], clock=recorded_clock)
        self.record(started, T0)

    def record(self, events: list[Event], at_ms: int) -> list[Event]:
        for event in events:
            self.state = evolve(self.state, event)
            self.clock = advance(self.clock, self.state, event, at_ms)
        self.events.extend(events)
        return events

    def act(self, command: AnyCommand, at_ms: int) -> list[Event]:
        return self.record(decide(self.state, command), at_ms)

    def time_out(self, at_ms: int, next_hand_ms: int | None = None) -> list[Event]:
        assert self.state is not None and self.clock is not None
        return self.record(
            decide_timeout(self.state, self.clock, TimeOut(at_ms, next_hand_ms)), at_ms
        )

    def seat_to_act(self) -> int:
        assert self.state is not None
        (seat,) = self.state.to_act()
        return seat

    def first_legal(self, at_ms: int) -> list[Event]:
        assert self.state is not None
        return self.act(legal_commands(self.state, self.seat_to_act())[0], at_ms)


def test_a_clock_is_a_time_per_move_or_a_bank() -> None:
    assert validate_clock(Clock(per_move_ms=2000))
    assert validate_clock(Clock(bank_ms=60_000, increment_ms=2000))
    for bad in (
        Clock(),
        Clock(per_move_ms=1000, bank_ms=1000),
        Clock(per_move_ms=0),
        Clock(bank_ms=-5),
        Clock(per_move_ms=1000, increment_ms=5),
        Clock(bank_ms=1000, increment_ms=-1),
    ):
        with pytest.raises(errors.InvalidClock):
            validate_clock(bad)
    with pytest.raises(errors.InvalidClock):
        decide(
            None,
            StartMatch(
                match_id="m", players=("a", "b"), rules=make_rules(), seed="s", clock=Clock()
            ),
        )


def test_a_clock_gives_at_least_a_second_per_move_or_in_the_bank() -> None:
    """Under a second no player over a network can move in time (docs/rules.md)."""
    assert MIN_CLOCK_MS == 1000
    assert validate_clock(Clock(per_move_ms=1000))
    assert validate_clock(Clock(bank_ms=1000, increment_ms=0))
    for too_short in (Clock(per_move_ms=999), Clock(bank_ms=999), Clock(per_move_ms=1)):
        with pytest.raises(errors.InvalidClock, match="at least 1000 ms"):
            validate_clock(too_short)
    with pytest.raises(errors.InvalidClock, match="at least 1000 ms"):
        decide(
            None,
            StartMatch(
                match_id="m",
                players=("a", "b"),
                rules=make_rules(),
                seed="s",
                clock=Clock(per_move_ms=999),
            ),
        )


def test_a_bad_clock_says_what_is_wrong() -> None:
    with pytest.raises(errors.InvalidClock, match="neither was given"):
        validate_clock(Clock())
    with pytest.raises(errors.InvalidClock, match="not both"):
        validate_clock(Clock(per_move_ms=1000, bank_ms=1000))


def test_a_match_recorded_under_a_clock_below_the_floor_replays_unchanged() -> None:
    """The floor refuses new clocks only: folding never validates, so a match started
    under a 1 ms clock before there was a floor replays with the deadlines it had."""
    log = Log(None, recorded_clock=Clock(per_move_ms=1))
    assert log.state is not None and log.clock is not None
    assert log.clock.clock == Clock(per_move_ms=1)
    seat = log.seat_to_act()
    due = deadline(log.state, log.clock, None)
    assert due is not None and due.at_ms == T0 + 1 and due.seats == (seat,)
    assert log.time_out(T0 + 1)[0] == TurnTimedOut(seat=seat)


def test_no_clock_no_deadline() -> None:
    log = Log(None)
    assert log.state is not None and log.clock is not None
    assert deadline(log.state, log.clock, None) is None
    assert clock_view(log.state, log.clock, None) is None
    with pytest.raises(errors.ClockNotDue):
        log.time_out(T0 + 10**9)


def test_the_seat_to_act_has_its_time_per_move_from_when_its_turn_began() -> None:
    log = Log(Clock(per_move_ms=2000))
    assert log.state is not None and log.clock is not None
    first = log.seat_to_act()
    due = deadline(log.state, log.clock, None)
    assert due is not None and due.at_ms == T0 + 2000 and due.seats == (first,)
    with pytest.raises(errors.ClockNotDue):
        log.time_out(T0 + 1999)  # a moment early: nothing happens
    log.act(PassUpCard(first), T0 + 1500)  # in time: the turn passes
    assert log.clock is not None and log.clock.running == 1 - first
    due = deadline(log.state, log.clock, None)
    assert due is not None and due.at_ms == T0 + 1500 + 2000
    log.act(TakeUpCard(1 - first), T0 + 2500)  # half a turn: the same clock runs on
    assert deadline(log.state, log.clock, None) == due


def test_a_timed_out_turn_is_played_by_the_house_ai_visibly() -> None:
    log = Log(Clock(per_move_ms=2000))
    seat = log.seat_to_act()
    events = log.time_out(T0 + 2000)
    assert events[0] == TurnTimedOut(seat=seat)
    assert all(getattr(e, "seat", seat) == seat for e in events)
    assert log.state is not None and log.clock is not None
    assert log.seat_to_act() == 1 - seat  # the AI's move ended the turn
    assert log.clock.in_a_row == ((1, 0) if seat == 0 else (0, 1))
    assert log.clock.stand_in is None


def test_the_views_name_the_moves_the_stand_in_made() -> None:
    """A page tells a timed-out seat's moves as made for it: the clock view lists their
    indices in the hand's ``moves`` (the seat's own moves are not listed), until the
    next deal."""
    log = Log(Clock(per_move_ms=2000))
    seat = log.seat_to_act()
    log.first_legal(T0 + 500)  # its own move, in time
    later = log.seat_to_act()
    made = log.time_out(T0 + 500 + 2000)[1:]  # the next seat's turn, played for it
    assert log.state is not None and log.clock is not None and log.state.hand is not None
    moves = log.state.hand.moves
    stood_in = clock_view(log.state, log.clock, None)
    assert stood_in is not None
    assert stood_in.stand_in_moves == tuple(range(1, len(moves)))
    assert [moves[i].seat for i in stood_in.stand_in_moves] == [later] * len(made)
    assert moves[0].seat == seat and 0 not in stood_in.stand_in_moves
    log.first_legal(T0 + 3000)  # the other seat's own move is not the stand-in's
    assert log.clock.stand_in_moves == stood_in.stand_in_moves
    for _ in range(200):  # play on, in time, to the next deal
        if log.state.hand.number > 1:
            break
        log.act(legal_commands(log.state, log.state.to_act()[0])[0], T0 + 3000)
    assert log.state.hand.number == 2 and log.clock.stand_in_moves == ()


def test_three_timeouts_in_a_row_let_the_opponent_claim() -> None:
    log = Log(Clock(per_move_ms=1000))
    assert log.state is not None
    now = T0
    absent = log.seat_to_act()
    present = 1 - absent
    claim = Claim(seat=present, now_ms=now, grace_ms=60_000, away_since_ms=None)
    timeouts = 0
    while timeouts < 3:
        assert log.clock is not None
        with pytest.raises(errors.ClaimTooEarly):
            decide_claim(log.state, log.clock, claim)
        if log.seat_to_act() == absent:
            now += 1000
            log.time_out(now)
            timeouts += 1
        else:
            now += 100
            log.first_legal(now)  # the present player moves in time
        assert log.state.phase != "hand_over", "pick a seed whose first hand runs longer"
    assert log.clock is not None and log.clock.in_a_row[absent] == 3
    events = decide_claim(log.state, log.clock, claim)
    assert events[0] == MatchClaimed(seat=present, reason="timeouts")
    assert events[1] == Resigned(seat=absent)
    assert isinstance(events[2], MatchSettled) and events[2].winner == present
    assert events[2].resigned == absent


def both_idle(log: Log, per_move_ms: int) -> int:
    """Time out every turn until each seat has timed out enough to be claimed from;
    returns the time of the last timeout."""
    assert log.state is not None and log.clock is not None
    now = T0
    while min(log.clock.in_a_row) < TIMEOUTS_TO_CLAIM:
        now += per_move_ms
        log.time_out(now)
        assert log.state.phase != "hand_over", "pick a seed whose first hand runs longer"
    return now


def test_a_claimant_who_timed_out_as_often_may_not_claim_by_timeouts() -> None:
    """Both seats idle: the stand-in plays every turn of both, so neither is there to
    claim the other's timeouts, until it plays a turn of its own in time."""
    log = Log(Clock(per_move_ms=1000))
    now = both_idle(log, 1000)
    assert log.state is not None and log.clock is not None
    assert log.clock.in_a_row == (TIMEOUTS_TO_CLAIM, TIMEOUTS_TO_CLAIM)
    for seat in (0, 1):
        claim = Claim(seat=seat, now_ms=now, grace_ms=60_000, away_since_ms=None)
        with pytest.raises(errors.ClaimTooEarly, match=f"seat {seat} has itself timed out 3 "):
            decide_claim(log.state, log.clock, claim)
    present = log.seat_to_act()
    log.first_legal(now + 100)  # a move of its own, in time: its run is over
    assert log.clock.in_a_row[present] == 0
    claim = Claim(seat=present, now_ms=now + 100, grace_ms=60_000, away_since_ms=None)
    assert decide_claim(log.state, log.clock, claim)[0] == MatchClaimed(present, "timeouts")


def test_when_both_idle_the_first_to_three_timeouts_is_not_claimed_by_one_at_two() -> None:
    """Both idle, their timeouts alternate: when one seat reaches three, the other has
    two, and is no more there than the first; its latest turn was not its own."""
    log = Log(Clock(per_move_ms=1000))
    assert log.state is not None and log.clock is not None
    now = T0
    while max(log.clock.in_a_row) < TIMEOUTS_TO_CLAIM:
        now += 1000
        log.time_out(now)
    claimed = log.clock.in_a_row.index(TIMEOUTS_TO_CLAIM)
    claimant = 1 - claimed
    assert log.clock.in_a_row[claimant] == TIMEOUTS_TO_CLAIM - 1
    claim = Claim(seat=claimant, now_ms=now, grace_ms=60_000, away_since_ms=None)
    with pytest.raises(errors.ClaimTooEarly, match=f"seat {claimant} has itself timed out 2 "):
        decide_claim(log.state, log.clock, claim)


def test_an_empty_bank_still_leaves_each_turn_the_floors_time() -> None:
    """A bank of 1 s with no increment is spent in a second of thinking; after that each
    turn still has MIN_CLOCK_MS, or the stand-in would play every turn of that seat."""
    log = Log(Clock(bank_ms=MIN_CLOCK_MS))
    assert log.state is not None and log.clock is not None
    seat = log.seat_to_act()
    log.act(PassUpCard(seat), T0 + 900)  # 100 ms of the bank left
    assert log.clock.bank_ms[seat] == 100
    later = T0 + 900
    while log.seat_to_act() != seat:
        later += 10
        log.first_legal(later)
    due = deadline(log.state, log.clock, None)
    assert due is not None and due.at_ms == later + MIN_CLOCK_MS  # not later + 100


def test_a_claim_recorded_before_the_claimant_rule_replays_unchanged() -> None:
    """A log holds ``MatchClaimed`` and the fold takes it as recorded: a claim the old
    server granted under a 1 ms clock, both seats timed out, still settles the match."""
    log = Log(None, recorded_clock=Clock(per_move_ms=1))
    now = both_idle(log, 1)
    assert log.state is not None and log.clock is not None
    claim = Claim(seat=0, now_ms=now, grace_ms=60_000, away_since_ms=None)
    with pytest.raises(errors.ClaimTooEarly):
        decide_claim(log.state, log.clock, claim)  # what the server decides now
    log.record([MatchClaimed(seat=0, reason="timeouts"), *decide(log.state, Resign(1))], now)
    assert log.state.settlement is not None
    assert log.state.settlement.winner == 0 and log.state.settlement.resigned == 1


def test_a_move_of_ones_own_resets_the_count() -> None:
    log = Log(Clock(per_move_ms=1000))
    seat = log.seat_to_act()
    log.time_out(T0 + 1000)
    while log.seat_to_act() != seat:
        log.first_legal(T0 + 1100)  # the opponent
    assert log.clock is not None and log.clock.in_a_row[seat] == 1
    log.first_legal(T0 + 1200)
    assert log.clock.in_a_row[seat] == 0


def test_saying_ready_between_hands_does_not_reset_the_count() -> None:
    """Only a move in a turn shows the seat can keep its time: "ready" is no turn, so a
    seat that times out every turn cannot clear its run by reading each hand's result."""
    log = Log(Clock(per_move_ms=1000), seed="ready-keeps-the-run")
    assert log.state is not None
    late = log.seat_to_act()
    now = T0
    while log.state.phase != "hand_over":
        if log.seat_to_act() == late:
            now += 1000
            log.time_out(now)  # the stand-in AI plays each of its turns
        else:
            now += 100
            log.first_legal(now)
    assert log.clock is not None
    run = log.clock.in_a_row[late]
    assert run >= 1
    assert log.act(NextHand(late), now + 50) == [HandAcknowledged(seat=late)]
    assert log.clock.in_a_row[late] == run
    assert log.clock.last_acted_ms[late] == now + 50  # but it was there: presence counts


def test_absence_past_the_grace_period_allows_a_claim() -> None:
    log = Log(None)
    assert log.state is not None and log.clock is not None
    grace = 30_000
    early = Claim(seat=0, now_ms=T0 + grace - 1, grace_ms=grace, away_since_ms=T0)
    with pytest.raises(errors.ClaimTooEarly):
        decide_claim(log.state, log.clock, early)
    connected = Claim(seat=0, now_ms=T0 + 10 * grace, grace_ms=grace, away_since_ms=None)
    with pytest.raises(errors.ClaimTooEarly):
        decide_claim(log.state, log.clock, connected)
    late = Claim(seat=0, now_ms=T0 + grace, grace_ms=grace, away_since_ms=T0 - 10**6)
    events = decide_claim(log.state, log.clock, late)
    assert events[0] == MatchClaimed(seat=0, reason="absence")
    assert events[1] == Resigned(seat=1)


def test_absence_counts_only_while_the_absent_seat_is_to_act() -> None:
    log = Log(None)
    assert log.state is not None and log.clock is not None
    grace, mover = 30_000, log.seat_to_act()
    # the opponent has been away for ages, but waits for the claimant's own move: the
    # claimant cannot stall on its turn and then claim
    stalling = Claim(seat=mover, now_ms=T0 + 10 * grace, grace_ms=grace, away_since_ms=0)
    with pytest.raises(errors.ClaimTooEarly):
        decide_claim(log.state, log.clock, stalling)
    while log.seat_to_act() == mover:
        log.first_legal(T0 + 10 * grace)  # now the away seat is to act: its grace starts
    early = Claim(seat=mover, now_ms=T0 + 11 * grace - 1, grace_ms=grace, away_since_ms=0)
    with pytest.raises(errors.ClaimTooEarly):
        decide_claim(log.state, log.clock, early)
    late = Claim(seat=mover, now_ms=T0 + 11 * grace, grace_ms=grace, away_since_ms=0)
    assert decide_claim(log.state, log.clock, late)[0] == MatchClaimed(seat=mover, reason="absence")


def test_absence_claim_at_is_the_first_moment_a_claim_by_absence_is_accepted() -> None:
    """What ``GET …/claim`` tells a client, so its Claim button shows when the server
    would accept the claim, not before, and not after a guessed grace."""
    log = Log(None)
    assert log.state is not None and log.clock is not None
    grace, away_seat = 30_000, log.seat_to_act()
    claimant = 1 - away_seat
    assert absence_claim_at(log.state, log.clock, claimant, None, grace) is None  # connected
    assert last_seen(log.clock, away_seat, None) is None
    for away_since in (0, T0 + 5000):
        at = absence_claim_at(log.state, log.clock, claimant, away_since, grace)
        assert at == max(away_since, T0) + grace
        assert last_seen(log.clock, away_seat, away_since) == max(away_since, T0)
        with pytest.raises(errors.ClaimTooEarly):
            decide_claim(log.state, log.clock, Claim(claimant, at - 1, grace, away_since))
        claimed = decide_claim(log.state, log.clock, Claim(claimant, at, grace, away_since))
        assert claimed[0] == MatchClaimed(seat=claimant, reason="absence")
    # the one to act cannot claim by absence: its opponent keeps nobody waiting
    assert absence_claim_at(log.state, log.clock, away_seat, 0, grace) is None
    log.act(Resign(away_seat), T0 + 10)
    assert absence_claim_at(log.state, log.clock, claimant, 0, grace) is None  # it is over


def test_a_move_counts_as_presence() -> None:
    log = Log(None)
    assert log.state is not None
    mover = log.seat_to_act()
    log.first_legal(T0 + 20_000)
    assert log.clock is not None and log.clock.last_acted_ms[mover] == T0 + 20_000
    claim = Claim(seat=1 - mover, now_ms=T0 + 40_000, grace_ms=30_000, away_since_ms=T0)
    with pytest.raises(errors.ClaimTooEarly):
        decide_claim(log.state, log.clock, claim)  # away since T0, but moved at T0 + 20 s


def test_a_bank_is_spent_by_each_turn_and_topped_up_by_the_increment() -> None:
    log = Log(Clock(bank_ms=10_000, increment_ms=1000))
    seat = log.seat_to_act()
    log.act(PassUpCard(seat), T0 + 4000)
    assert log.clock is not None and log.state is not None
    expected = (10_000 - 4000 + 1000, 10_000)
    assert log.clock.bank_ms == (expected if seat == 0 else expected[::-1])
    view = clock_view(log.state, log.clock, None)
    assert view is not None and view.bank_ms == log.clock.bank_ms
    opponent = log.seat_to_act()
    due = deadline(log.state, log.clock, None)
    assert due is not None and due.at_ms == T0 + 4000 + 10_000 and due.seats == (opponent,)


def test_between_hands_the_server_says_ready_for_the_late_seats() -> None:
    log = Log(None)
    assert log.state is not None
    now = T0
    while log.state.phase != "hand_over":
        now += 10
        log.first_legal(now)
    ended = now
    assert log.clock is not None
    with pytest.raises(errors.ClockNotDue):
        log.time_out(ended + 10**9)  # no next-hand timeout given: nothing times out
    log.act(NextHand(0), ended + 5)
    assert log.state.phase == "hand_over"
    due = deadline(log.state, log.clock, 30_000)
    assert due is not None and due.at_ms == ended + 30_000 and due.seats == (1,)
    with pytest.raises(errors.ClockNotDue):
        log.time_out(ended + 29_999, 30_000)
    events = log.time_out(ended + 30_000, 30_000)
    assert events[0] == TurnTimedOut(seat=1, between_hands=True)
    assert log.state.hand is not None and log.state.hand.number == 2
    assert log.clock.in_a_row == (0, 0)  # being slow to read a result is not a timeout


def test_both_late_between_hands() -> None:
    log = Log(Clock(per_move_ms=60_000))
    assert log.state is not None
    now = T0
    while log.state.phase != "hand_over":
        now += 10
        log.first_legal(now)
    events = log.time_out(now + 5000, 5000)
    assert [type(e).__name__ for e in events] == [
        "TurnTimedOut",
        "HandAcknowledged",
        "TurnTimedOut",
        "Dealt",
    ]
    assert events[1] == HandAcknowledged(seat=0)
    assert log.clock is not None and log.clock.running == log.seat_to_act()
    assert log.clock.since_ms == now + 5000


def test_a_settled_match_has_no_clock_and_cannot_be_claimed() -> None:
    log = Log(Clock(per_move_ms=1000))
    log.act(Resign(0), T0 + 10)
    assert log.state is not None and log.clock is not None
    assert deadline(log.state, log.clock, 5000) is None
    with pytest.raises(errors.MatchOver):
        decide_claim(log.state, log.clock, Claim(1, T0 + 10**9, 1, 0))
    assert not any(isinstance(e, Discarded) for e in log.events)


def test_an_untimed_seat_never_runs_out() -> None:
    log = Log(Clock(per_move_ms=1000))
    assert log.state is not None and log.clock is not None
    seat = log.seat_to_act()
    assert deadline(log.state, log.clock, None, untimed=(seat,)) is None
    with pytest.raises(errors.ClockNotDue):
        decide_timeout(log.state, log.clock, TimeOut(T0 + 10**6, None, (seat,)))
    assert deadline(log.state, log.clock, None, untimed=(1 - seat,)) is not None


# --- a match the house AI finished for both seats is abandoned, not rated ---------------

NEXT_HAND_MS = 30_000


def play_to_the_end(log: Log, present: tuple[int, ...] = (), *, from_ms: int = T0) -> bool:
    """Play the match to its settlement: each seat in ``present`` makes its own moves in
    time (chosen by the easy AI, as a player could), every other turn times out and the
    stand-in plays it; between hands a present seat says ready, the others time out.
    Returns whether a timeout (the stand-in's move) settled it."""
    assert log.state is not None and log.clock is not None
    now, by_stand_in = from_ms, False
    for _ in range(2000):
        if log.state.settlement is not None:
            return by_stand_in
        if log.state.phase == "hand_over":
            ready = [s for s in present if s in log.state.to_act()]
            if ready:
                now += 10
                log.act(NextHand(ready[0]), now)
            else:
                now += NEXT_HAND_MS
                log.time_out(now, NEXT_HAND_MS)
            continue
        seat = log.seat_to_act()
        if seat in present:
            now += 10
            view = player_view(log.state, seat)
            log.act(choose(STAND_IN, view, f"own:{log.state.version}"), now)
            by_stand_in = False
        else:
            assert log.clock.clock is not None and log.clock.clock.per_move_ms is not None
            now = log.clock.since_ms + log.clock.clock.per_move_ms
            log.time_out(now, NEXT_HAND_MS)
            by_stand_in = True
    raise AssertionError("the match did not end")


def test_a_match_the_stand_in_finished_for_both_seats_is_abandoned() -> None:
    """Both players left: the house AI plays both sides to the end (docs/rules.md), and
    the settlement says so, as decided when it was made: the ratings skip it."""
    log = Log(Clock(per_move_ms=1000), seed="both-away")
    assert play_to_the_end(log)
    assert log.state is not None and log.clock is not None
    settled = log.state.settlement
    assert settled is not None and settled.abandoned and settled.resigned is None
    assert log.events[-1] == settled
    assert min(log.clock.in_a_row) >= TIMEOUTS_TO_CLAIM  # the fold agrees with the decider
    # what the seats and spectators see is the settlement as recorded
    assert spectator_view(log.state).settlement == settled
    assert all(player_view(log.state, seat).settlement == settled for seat in (0, 1))
    assert sum(isinstance(e, MatchSettled) for e in log.events) == 1
    assert all(not e.abandoned for e in log.events[:-1] if isinstance(e, MatchSettled))


@pytest.mark.parametrize("present", [0, 1])
def test_a_match_one_seat_plays_itself_to_the_end_is_rated(present: int) -> None:
    """One player there, the other away: the stand-in plays the away seat's turns (and
    settles this match, for either seat present), but the present seat's own moves keep
    its run at 0: a result one player played for is rated."""
    log = Log(Clock(per_move_ms=1000), seed="away-3")
    assert play_to_the_end(log, (present,))  # the stand-in's move settled it
    assert log.state is not None and log.state.settlement is not None
    assert not log.state.settlement.abandoned
    assert log.clock is not None and log.clock.in_a_row[present] == 0


def test_a_player_back_from_a_run_of_timeouts_makes_the_match_rated_again() -> None:
    """Both away long enough to be abandoned, then one comes back and plays a move of its
    own in time: the run is over, and the match it then finishes is rated."""
    log = Log(Clock(per_move_ms=1000), seed="both-away")
    now = both_idle(log, 1000)
    assert log.clock is not None and min(log.clock.in_a_row) >= TIMEOUTS_TO_CLAIM
    back = log.seat_to_act()
    play_to_the_end(log, (back,), from_ms=now)
    assert log.state is not None and log.state.settlement is not None
    assert not log.state.settlement.abandoned


def test_abandoned_needs_both_seats_at_three_timeouts_in_a_row() -> None:
    """The settling timeout itself counts; a seat one short of three keeps it rated."""
    log = Log(Clock(per_move_ms=1000), seed="both-away")
    play_to_the_end(log)
    # the log up to the settling timeout, folded again
    last = max(i for i, e in enumerate(log.events) if isinstance(e, TurnTimedOut))
    settling = log.events[last]
    assert isinstance(settling, TurnTimedOut) and not settling.between_hands
    state: MatchState | None = None
    clock: ClockState | None = None
    for event in log.events[:last]:
        state = evolve(state, event)
        clock = advance(clock, state, event, T0)
    assert state is not None and clock is not None
    seat, other = settling.seat, 1 - settling.seat
    now = T0 + 10**9

    def settles_abandoned(runs: tuple[int, int]) -> bool:
        assert state is not None and clock is not None
        events = decide_timeout(state, replace(clock, in_a_row=runs), TimeOut(now))
        assert isinstance(events[-1], MatchSettled)
        return events[-1].abandoned

    at = TIMEOUTS_TO_CLAIM
    assert settles_abandoned(_runs(seat, at - 1, at))  # this timeout makes three
    assert not settles_abandoned(_runs(seat, at - 2, at))  # this one makes two
    assert not settles_abandoned(_runs(seat, at - 1, at - 1))  # the other has two
    assert not settles_abandoned(_runs(seat, at + 5, 0))  # the other moved last turn
    assert settles_abandoned(_runs(seat, at + 5, at + 5))
    assert other != seat


def _runs(seat: int, mine: int, others: int) -> tuple[int, int]:
    return (mine, others) if seat == 0 else (others, mine)


def test_an_abandoned_settlement_is_kept_by_the_log_and_replays() -> None:
    log = Log(Clock(per_move_ms=1000), seed="both-away")
    play_to_the_end(log)
    decoded = [decode_event(encode_event(e)) for e in log.events]
    assert decoded == log.events
    assert fold(decoded) == log.state


def test_a_settlement_recorded_before_abandoned_existed_replays_unchanged() -> None:
    """A log from before the field: its ``match_settled`` has no ``abandoned``, decodes as
    false, and the match replays to the same states, settled and rated as it was, even
    one the stand-in finished for both seats (the fold takes the log as recorded)."""
    for seed, present in (("both-away", ()), ("away-2", (0,))):
        log = Log(Clock(per_move_ms=1000), seed=seed)
        play_to_the_end(log, present)
        old = []
        for event in log.events:
            data = msgspec.json.decode(encode_event(event))
            if data["type"] == "match_settled":
                del data["abandoned"]
            old.append(decode_event(msgspec.json.encode(data)))
        assert isinstance(old[-1], MatchSettled) and not old[-1].abandoned
        assert old[:-1] == log.events[:-1]
        assert log.state is not None and log.state.settlement is not None
        expected = replace(log.state, settlement=replace(log.state.settlement, abandoned=False))
        assert fold(old) == expected
        states: list[MatchState] = []
        state: MatchState | None = None
        for event in old:
            state = evolve(state, event)
            states.append(state)
        assert states[-2] == fold(log.events[:-1])
