"""The no-progress rule: a hand is washed at the discard after the limit-th face-up take.

Positions are hand-made: the two seats pass three cards round and round (as two
mediums once did), each taking the card the other just threw, so only the rule can
end the hand.
"""

from __future__ import annotations

import msgspec
import pytest

from domain.commands import Discard, DrawDiscard, Knock, NextHand, TakeUpCard
from domain.errors import InvalidRules
from domain.events import HandWashed, MatchStarted, decode_event, encode_event
from domain.match import apply, evolve
from domain.rules import PRESETS, make_rules
from domain.state import MatchState
from domain.views import player_view
from tests.domain.builders import dealt, deck_for, new_hand, started

# Seat 1 (the non-dealer) holds Y; seat 0 holds Z; X is the up-card. Nobody can knock.
NON_DEALER = "AC 3D 5H 7S 9C JD KH 2S 4D 6C"
DEALER = "QD 8H TS 2D 4H 6S 8C TC QS AH"
X, Y, Z = "KS", "6C", "AH"
CYCLE = {X, Y, Z}


def _take(state: MatchState) -> MatchState:
    """The seat to act takes the face-up card (the up-card at first)."""
    seat = state.to_act()[0]
    take = TakeUpCard(seat) if state.phase == "up_card" else DrawDiscard(seat)
    state, _ = apply(state, take)
    return state


def _cycle_discard(state: MatchState) -> Discard:
    """Throw the one card of the cycle the seat holds besides the one it just took."""
    assert state.hand is not None
    seat = state.hand.turn
    (card,) = [c for c in state.hand.hands[seat] if c in CYCLE and c != state.hand.taken]
    return Discard(seat, card)


def _looping_hand(rules: str = "arcadia") -> MatchState:
    return new_hand(rules, dealer=0, non_dealer_hand=NON_DEALER, dealer_hand=DEALER, up_card=X)


def _swap_until(state: MatchState, takes: int) -> MatchState:
    """Take and throw back ``takes - 1`` times, then take once more (left to discard)."""
    for _ in range(takes - 1):
        state = _take(state)
        state, events = apply(state, _cycle_discard(state))
        assert not any(isinstance(e, HandWashed) for e in events)
    return _take(state)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_washes_a_hand_that_makes_no_progress(preset: str) -> None:
    limit = PRESETS[preset].pile_draw_limit
    assert limit is not None
    state = _swap_until(_looping_hand(preset), limit)
    assert state.hand is not None and state.hand.pile_draws == limit
    assert len(state.hand.stock) == 31  # no stock card was drawn: no progress at all
    view = player_view(state, state.hand.turn)
    assert (view.pile_draws, view.pile_draw_limit) == (limit, limit)
    after, events = apply(state, _cycle_discard(state))
    washed = events[-1]
    assert isinstance(washed, HandWashed) and washed.reason == "no_progress"
    assert after.phase == "hand_over" and after.scores == (0, 0) and after.boxes == (0, 0)
    assert after.hands_played == 1
    again, _ = apply(after, NextHand(0))
    assert again.hand is not None and again.hand.dealer == 0  # the same dealer redeals


def test_the_seat_that_makes_the_last_allowed_take_may_still_knock() -> None:
    # Seat 1 ends up with a hand that knocks once it takes the face-up card.
    rules = make_rules("arcadia", pile_draw_limit=3)
    non_dealer = "AC 2C 3C 4D 5D 6D 7H 8H 9H 2S"
    dealer = "QD 8C TS 2D 4H 6S KC TC QS AH"
    state = dealt(started(rules), deck_for(non_dealer, dealer, "KS"), 0)
    state, _ = apply(state, TakeUpCard(1))
    state, _ = apply(state, Discard(1, "2S"))
    state, _ = apply(state, DrawDiscard(0))
    state, _ = apply(state, Discard(0, "AH"))
    state, _ = apply(state, DrawDiscard(1))  # the third take: AH
    assert state.hand is not None and state.hand.pile_draws == 3
    state, events = apply(state, Knock(1, "KS"))
    assert state.phase == "layoff"
    assert not any(isinstance(e, HandWashed) for e in events)


def test_stock_draws_do_not_count_and_the_count_restarts_each_hand() -> None:
    state = _swap_until(_looping_hand(), 5)
    assert state.hand is not None and state.hand.pile_draws == 5
    state, _ = apply(state, _cycle_discard(state))
    assert state.hand is not None and state.hand.pile_draws == 5


def test_a_match_recorded_before_the_rule_replays_without_it() -> None:
    """Old MatchStarted events have no ``pile_draw_limit``: the rule is off for them."""
    current = encode_event(_started_event())
    old = msgspec.json.decode(current)
    del old["rules"]["pile_draw_limit"]
    event = decode_event(msgspec.json.encode(old))
    assert isinstance(event, MatchStarted) and event.rules.pile_draw_limit is None
    state = evolve(None, event)
    state = dealt(state, deck_for(NON_DEALER, DEALER, X), 0)
    state = _swap_until(state, 200)  # far past any preset's limit
    state, events = apply(state, _cycle_discard(state))
    assert state.phase == "draw" and not any(isinstance(e, HandWashed) for e in events)
    assert player_view(state, 0).pile_draw_limit is None


def test_an_old_wash_event_means_the_stock_ran_out() -> None:
    old = b'{"type":"hand_washed","hand_number":1,"hands":[[],[]],"deck":[],"salt":"s"}'
    washed = decode_event(old)
    assert isinstance(washed, HandWashed) and washed.reason == "stock"


def _started_event() -> MatchStarted:
    return MatchStarted(
        match_id="old-match",
        players=("north", "south"),
        rules=PRESETS["arcadia"],
        seed_commitment="c",
        seed="s",
    )


def test_custom_rule_sets_inherit_the_limit_and_may_change_or_drop_it() -> None:
    assert make_rules("classic", target=250).pile_draw_limit == PRESETS["classic"].pile_draw_limit
    assert make_rules("arcadia", pile_draw_limit=80).pile_draw_limit == 80
    assert make_rules("arcadia", pile_draw_limit=None).pile_draw_limit is None


@pytest.mark.parametrize("bad", [0, -1, 1001, "60", True, 2.5])
def test_a_limit_out_of_range_is_refused(bad: object) -> None:
    with pytest.raises(InvalidRules, match="pile_draw_limit"):
        make_rules("arcadia", pile_draw_limit=bad)
