"""Between hands both seats say they are ready; either seat may resign at any time.

The numbers come from docs/rules.md: a resignation leaves the hand in play unscored,
keeps the points and boxes won so far, and gives the other seat the match and its bonus.
"""

from __future__ import annotations

import msgspec
import pytest

from domain import errors
from domain.commands import DrawStock, FinishLayoffs, Knock, NextHand, PassUpCard, Resign
from domain.events import Dealt, HandAcknowledged, MatchSettled, Resigned, decode_event
from domain.match import apply, legal_commands
from domain.state import MatchState
from domain.views import player_view
from tests.domain.builders import new_hand, play

KNOCKER = "AC 2C 3C 5D 5H 5S 8H 9H TH KS"  # draws 3D, knocks with KS: K = 3
DEFENDER = "6C 7C 8C QD QH QS 2D 4D 6S 7S"  # D = 2 + 4 + 6 + 7 = 19, nothing to lay off


def knocked_and_scored(rules: str = "arcadia") -> MatchState:
    """Seat 0 knocks with 3 against 19 and wins the first hand by 16: hand over."""
    state = new_hand(
        rules,
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=DEFENDER,
        up_card="JS",
        stock_top="3D",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"))
    state, _ = apply(state, FinishLayoffs(1))
    assert state.phase == "hand_over" and state.scores == (16, 0)
    return state


def test_the_next_hand_is_dealt_only_when_both_seats_are_ready() -> None:
    state = knocked_and_scored()
    assert state.to_act() == (0, 1)
    state, events = apply(state, NextHand(0))
    assert events == [HandAcknowledged(seat=0)]
    assert state.phase == "hand_over" and state.to_act() == (1,)
    assert legal_commands(state, 0) == []  # nothing more to say until the other is ready
    with pytest.raises(errors.NotYourTurn, match="seat 0 is ready for the next hand already"):
        apply(state, NextHand(0))  # said again: the refusal says it was heard the first time
    state, events = apply(state, NextHand(1))
    assert [type(e) for e in events] == [Dealt]
    assert state.hand is not None and state.hand.number == 2
    assert state.hand.acknowledged == ()  # the new hand starts with nobody acknowledged


def test_either_seat_may_be_ready_first() -> None:
    _, events = play(knocked_and_scored(), NextHand(1), NextHand(0))
    assert [type(e) for e in events] == [HandAcknowledged, Dealt]
    assert events[0] == HandAcknowledged(seat=1)


def test_an_acknowledgement_is_public_and_shown_in_both_views() -> None:
    state, _ = apply(knocked_and_scored(), NextHand(0))
    assert player_view(state, 0).to_act == (1,)
    assert player_view(state, 1).to_act == (1,)
    assert [type(c).__name__ for c in player_view(state, 1).legal] == ["NextHand"]


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_may_resign_on_either_turn(seat: int) -> None:
    state = new_hand(
        non_dealer_hand=KNOCKER, dealer_hand=DEFENDER, up_card="JS", dealer=1, stock_top="3D"
    )
    assert state.to_act() == (0,)
    after, events = apply(state, Resign(seat))
    assert [type(e) for e in events] == [Resigned, MatchSettled]
    settled = events[1]
    assert isinstance(settled, MatchSettled)
    assert events[0] == Resigned(seat=seat)
    assert (settled.winner, settled.resigned) == (1 - seat, seat)
    assert after.phase == "match_over" and after.to_act() == ()


def test_a_resignation_keeps_points_and_boxes_and_gives_the_match_bonus() -> None:
    # Seat 0 won the first hand by 16 (one box); seat 0 then resigns during hand two.
    state = knocked_and_scored("arcadia")
    state, _ = play(state, NextHand(0), NextHand(1))
    assert state.hand is not None and state.hand.number == 2
    _, events = apply(state, Resign(0))
    settled = events[-1]
    assert isinstance(settled, MatchSettled)
    assert settled.winner == 1
    assert settled.hand_points == (16, 0)
    assert settled.boxes == (1, 0)
    assert settled.box_points == (25, 0)
    assert (settled.bonus, settled.bonus_kind) == (100, "match")
    assert settled.totals == (16 + 25, 100)
    assert settled.seed  # the match is over: its seed is revealed as at any settlement


def test_resigning_without_a_hand_won_gives_the_shutout_bonus_under_arkadium() -> None:
    state = new_hand("arkadium", non_dealer_hand=KNOCKER, dealer_hand=DEFENDER, up_card="JS")
    _, events = apply(state, Resign(1))
    settled = events[-1]
    assert isinstance(settled, MatchSettled)
    assert (settled.winner, settled.bonus, settled.bonus_kind) == (0, 200, "shutout")
    assert settled.totals == (200, 0)


def test_under_classic_the_resigner_loses_even_when_ahead() -> None:
    # Classic has no match bonus and usually picks the highest total: a resignation
    # still hands the match to the other seat, so leaving can never win.
    state = knocked_and_scored("classic")
    _, events = apply(state, Resign(0))
    settled = events[-1]
    assert isinstance(settled, MatchSettled)
    assert settled.winner == 1
    assert (settled.bonus, settled.bonus_kind) == (0, "none")
    assert settled.totals == (16 + 25, 0)


def test_nothing_is_accepted_after_a_resignation() -> None:
    state, _ = apply(knocked_and_scored(), Resign(1))
    for command in (Resign(0), Resign(1), NextHand(0), NextHand(1)):
        with pytest.raises(errors.MatchOver):
            apply(state, command)


def test_resign_is_not_offered_as_a_legal_move() -> None:
    # The AI picks among legal moves; resigning is an explicit choice of a person or bot.
    state = knocked_and_scored()
    for seat in (0, 1):
        assert not any(isinstance(c, Resign) for c in legal_commands(state, seat))


def test_a_settlement_recorded_before_resignations_existed_still_decodes() -> None:
    old = (
        b'{"type":"match_settled","winner":0,"hand_points":[100,3],"boxes":[4,1],'
        b'"box_points":[100,25],"bonus":100,"bonus_kind":"match","totals":[300,28],'
        b'"seed":"s"}'
    )
    settled = decode_event(old)
    assert isinstance(settled, MatchSettled) and settled.resigned is None
    assert msgspec.json.decode(msgspec.json.encode(settled))["resigned"] is None
