"""Every row of docs/rules.md's scoring table, per preset, played through the decider.

Each test deals hands chosen here (seat 0 is the non-dealer, seat 1 the dealer unless
said otherwise) and plays commands with ``apply``. The expected numbers are worked
out by hand from docs/rules.md in the comments; none is computed by the engine.
"""

from __future__ import annotations

import pytest

from domain.commands import (
    BigGin,
    Discard,
    DrawDiscard,
    DrawStock,
    FinishLayoffs,
    Gin,
    Knock,
    LayOff,
    NextHand,
    PassUpCard,
    StartMatch,
    TakeUpCard,
)
from domain.errors import (
    BigGinNotAllowed,
    CannotDiscardTakenCard,
    InvalidRules,
    LayoffDoesNotFit,
    MustDrawFromStock,
    NoLayoffsAgainstGin,
    NotYourTurn,
    OverKnockLimit,
)
from domain.events import (
    Dealt,
    Event,
    HandScored,
    HandWashed,
    Knocked,
    MatchSettled,
    MatchStarted,
    decode_event,
    encode_event,
)
from domain.match import apply, fold
from domain.rules import PRESETS, Rules, make_rules
from domain.state import MatchState
from tests.domain.builders import dealt, deck_for, new_hand, play, started

PRESET_NAMES = ["arcadia", "arkadium", "classic"]

# The knocker (seat 0, non-dealer) melds A-2-3 of clubs, three 5s and 8-9-T of hearts.
KNOCKER = "AC 2C 3C 5D 5H 5S 8H 9H TH KS"


def knock_hand(preset: Rules | str, defender: str, up_card: str, draw: str) -> MatchState:
    """Both pass the up-card, seat 0 draws ``draw`` from the stock and knocks with KS."""
    state = new_hand(
        preset,
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=defender,
        up_card=up_card,
        stock_top=draw,
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"))
    return state


def scored(events: list[Event]) -> HandScored:
    (result,) = [e for e in events if isinstance(e, HandScored)]
    return result


def meld_index(state: MatchState, card_in_meld: str) -> int:
    assert state.hand is not None
    return next(i for i, m in enumerate(state.hand.knock_melds) if card_in_meld in m)


def test_presets_are_the_rules_table() -> None:
    arcadia, arkadium, classic = (PRESETS[n] for n in PRESET_NAMES)
    assert (arcadia.knock_limit, arkadium.knock_limit, classic.knock_limit) == (10, 10, 10)
    assert (arcadia.gin_bonus, arkadium.gin_bonus, classic.gin_bonus) == (25, 20, 25)
    assert (arcadia.undercut_bonus, arkadium.undercut_bonus, classic.undercut_bonus) == (25, 10, 25)
    assert (arcadia.big_gin, arkadium.big_gin, classic.big_gin_bonus) == (False, False, 31)
    assert (arcadia.box_bonus, arkadium.box_bonus, classic.box_bonus) == (25, 20, 25)
    assert (arcadia.target, arkadium.target, classic.target) == (100, 100, 100)
    assert (arcadia.match_bonus, arkadium.match_bonus, classic.match_bonus) == (100, 100, 0)
    assert (arcadia.shutout_bonus, arkadium.shutout_bonus, classic.shutout_bonus) == (
        None,
        200,
        None,
    )
    assert arcadia.winner_by == arkadium.winner_by == "first_to_target"
    assert classic.winner_by == "highest_total"
    assert make_rules() == arcadia


# --- knock ---------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_knock_win_scores_defender_minus_knocker(preset: str) -> None:
    # Knocker keeps 3D: K = 3. Defender melds 6-7-8C and three queens; 2D 4D 6S 7S
    # are deadwood and fit none of the knocker's melds: D = 2 + 4 + 6 + 7 = 19.
    state = knock_hand(preset, "6C 7C 8C QD QH QS 2D 4D 6S 7S", up_card="JS", draw="3D")
    assert state.hand is not None and state.hand.knock is not None
    assert state.hand.knock.deadwood_points == 3
    assert state.hand.knock.deadwood == ("3D",)
    state, events = apply(state, FinishLayoffs(1))
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("knock", 0, 19 - 3)
    assert (result.knocker_deadwood, result.defender_deadwood) == (3, 19)
    assert state.scores == (16, 0)
    assert state.boxes == (1, 0)
    assert state.phase == "hand_over"


@pytest.mark.parametrize(("preset", "bonus"), [("arcadia", 25), ("arkadium", 10), ("classic", 25)])
def test_undercut_scores_difference_plus_bonus_to_defender(preset: str, bonus: int) -> None:
    # Knocker keeps 8D: K = 8. Defender: 6-7-8C, QQQ, JJJ, and 4D: D = 4.
    state = knock_hand(preset, "6C 7C 8C QD QH QS JC JD JS 4D", up_card="KH", draw="8D")
    state, events = apply(state, FinishLayoffs(1))
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("undercut", 1, 8 - 4 + bonus)
    assert state.scores == (0, 4 + bonus)
    assert state.boxes == (0, 1)


@pytest.mark.parametrize(("preset", "bonus"), [("arcadia", 25), ("arkadium", 10), ("classic", 25)])
def test_equal_deadwood_is_an_undercut(preset: str, bonus: int) -> None:
    # As above but the defender's odd card is 8S: D = 8 = K, a tie, so an undercut.
    state = knock_hand(preset, "6C 7C 8C QD QH QS JC JD JS 8S", up_card="KH", draw="8D")
    state, events = apply(state, FinishLayoffs(1))
    result = scored(events)
    assert (result.knocker_deadwood, result.defender_deadwood) == (8, 8)
    assert (result.outcome, result.winner, result.points) == ("undercut", 1, bonus)
    assert state.scores == (0, bonus)


# --- layoffs -------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_layoffs_chain_on_a_run_and_reduce_defender_deadwood(preset: str) -> None:
    # K = 2 (knocker keeps 2D). Defender melds 6-7-8C; deadwood JH QH 7H 4C KD KC 9S = 60.
    # JH extends 8-9-TH, then QH extends the grown run, 7H its low end, 4C the clubs:
    # D = KD + KC + 9S = 29, so the knocker scores 29 - 2 = 27.
    state = knock_hand(preset, "JH QH 7H 4C 6C 7C 8C KD KC 9S", up_card="2S", draw="2D")
    hearts = meld_index(state, "9H")
    with pytest.raises(LayoffDoesNotFit):
        apply(state, LayOff(1, "QH", hearts))  # not yet: needs JH first
    state, _ = play(
        state,
        LayOff(1, "JH", hearts),
        LayOff(1, "QH", hearts),
        LayOff(1, "7H"),
        LayOff(1, "4C", meld_index(state, "AC")),
    )
    assert state.hand is not None
    assert state.hand.knock_melds[hearts] == ("7H", "8H", "9H", "TH", "JH", "QH")
    state, events = apply(state, FinishLayoffs(1))
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("knock", 0, 27)
    assert result.defender_deadwood == 29
    clubs = meld_index(state, "AC")
    assert result.layoffs == (("JH", hearts), ("QH", hearts), ("7H", hearts), ("4C", clubs))
    # The laid-off cards are shown back in the defender's hand at the end.
    assert set(result.hands[1]) == set(["JH", "QH", "7H", "4C", "6C", "7C", "8C", "KD", "KC", "9S"])


def test_without_layoffs_the_same_hand_scores_the_full_deadwood() -> None:
    state = knock_hand("arcadia", "JH QH 7H 4C 6C 7C 8C KD KC 9S", up_card="2S", draw="2D")
    _, events = apply(state, FinishLayoffs(1))
    assert scored(events).points == 60 - 2


@pytest.mark.parametrize(("preset", "bonus"), [("arcadia", 25), ("arkadium", 10), ("classic", 25)])
def test_a_layoff_can_turn_a_knock_into_an_undercut(preset: str, bonus: int) -> None:
    # K = 8 (8D). Defender melds 6-7-8C and QQQ; deadwood JH 4D 2S AS = 17 > 8.
    # Laying JH on 8-9-TH leaves D = 7 <= 8: undercut for 8 - 7 + bonus.
    state = knock_hand(preset, "6C 7C 8C QD QS QC JH 4D 2S AS", up_card="KH", draw="8D")
    state, events = play(state, LayOff(1, "JH"), FinishLayoffs(1))
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("undercut", 1, 1 + bonus)
    assert result.defender_deadwood == 7


# --- gin and big gin -----------------------------------------------------------------------

GIN_DEFENDER = "6C 7C 8C QD QS QC 4D 2S AS 4C"  # melds 6-7-8C, QQQ; deadwood 4+2+1+4 = 11


@pytest.mark.parametrize(
    ("preset", "command", "bonus"),
    [
        ("arcadia", Gin(0, "KS"), 25),
        ("arkadium", Gin(0, "KS"), 20),
        ("classic", Gin(0, "KS"), 25),
        ("arcadia", Knock(0, "KS"), 25),  # a knock with zero deadwood is gin
    ],
)
def test_gin_scores_bonus_plus_defender_deadwood_without_layoffs(
    preset: str, command: Gin | Knock, bonus: int
) -> None:
    # Knocker draws JH: 8-9-T-JH, and discards KS: zero deadwood. The defender's 4C
    # would fit A-2-3C, but no layoffs against gin: D = 11.
    state = new_hand(
        preset,
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=GIN_DEFENDER,
        up_card="KH",
        stock_top="JH",
    )
    state, events = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), command)
    knocked = next(e for e in events if isinstance(e, Knocked))
    assert (knocked.kind, knocked.deadwood_points) == ("gin", 0)
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("gin", 0, bonus + 11)
    assert result.layoffs == ()
    assert state.scores == (bonus + 11, 0)
    assert state.phase == "hand_over"
    with pytest.raises(NoLayoffsAgainstGin):
        apply(state, LayOff(1, "4C"))
    with pytest.raises(NoLayoffsAgainstGin):
        apply(state, FinishLayoffs(1))


BIG_GIN_KNOCKER = "AC 2C 3C 4C 5D 5H 5S 8H 9H TH"
BIG_GIN_DEFENDER = "6C 7C 8C QD QS QC 4D 2S AS 9D"  # deadwood 4+2+1+9 = 16


def big_gin_hand(preset: Rules | str) -> MatchState:
    """Seat 0 holds ten melded cards and draws JH: all eleven meld."""
    state = new_hand(
        preset,
        dealer=1,
        non_dealer_hand=BIG_GIN_KNOCKER,
        dealer_hand=BIG_GIN_DEFENDER,
        up_card="KH",
        stock_top="JH",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0))
    return state


def test_big_gin_in_classic_scores_31_plus_defender_deadwood() -> None:
    state, events = apply(big_gin_hand("classic"), BigGin(0))
    knocked = next(e for e in events if isinstance(e, Knocked))
    assert (knocked.kind, knocked.discard, knocked.deadwood_points) == ("big_gin", None, 0)
    assert sum(len(m) for m in knocked.melds) == 11
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("big_gin", 0, 31 + 16)
    assert state.scores == (47, 0)
    with pytest.raises(NoLayoffsAgainstGin):
        apply(state, LayOff(1, "4D"))


@pytest.mark.parametrize("preset", ["arcadia", "arkadium"])
def test_big_gin_is_refused_where_the_preset_has_none(preset: str) -> None:
    state = big_gin_hand(preset)
    with pytest.raises(BigGinNotAllowed, match="big gin is off"):
        apply(state, BigGin(0))


def test_big_gin_needs_all_eleven_cards_to_meld() -> None:
    state = new_hand(
        "classic",
        dealer=1,
        non_dealer_hand=BIG_GIN_KNOCKER,
        dealer_hand=BIG_GIN_DEFENDER,
        up_card="KH",
        stock_top="KD",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0))
    with pytest.raises(BigGinNotAllowed, match="all eleven"):
        apply(state, BigGin(0))


def test_big_gin_can_be_enabled_in_a_custom_arcadia() -> None:
    _state, events = apply(big_gin_hand(make_rules("arcadia", big_gin_bonus=50)), BigGin(0))
    assert scored(events).points == 50 + 16


# --- the up-card courtesy and the taken card ---------------------------------------------


def courtesy_hand(preset: str = "arcadia") -> MatchState:
    """Seat 0 (non-dealer) holds KNOCKER, seat 1 KNOCK_DEFENDER; JS is up, 3D 9C on the stock."""
    return new_hand(
        preset,
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="6C 7C 8C QD QH QS 2D 4D 6S 7S",
        up_card="JS",
        stock_top="3D 9C",
    )


def test_non_dealer_is_offered_the_up_card_first() -> None:
    state = courtesy_hand()
    assert state.to_act() == (0,)
    with pytest.raises(NotYourTurn):
        apply(state, TakeUpCard(1))
    state, _events = apply(state, TakeUpCard(0))
    assert state.hand is not None
    assert "JS" in state.hand.hands[0] and state.hand.pile == ()
    with pytest.raises(CannotDiscardTakenCard, match="JS"):
        apply(state, Discard(0, "JS"))
    state, _ = apply(state, Discard(0, "KS"))
    assert state.hand is not None
    assert (state.phase, state.to_act(), state.hand.pile) == ("draw", (1,), ("KS",))


def test_after_the_non_dealer_passes_the_dealer_may_take_it() -> None:
    state, _ = play(courtesy_hand(), PassUpCard(0), TakeUpCard(1))
    assert state.hand is not None
    assert "JS" in state.hand.hands[1]
    with pytest.raises(CannotDiscardTakenCard):
        apply(state, Discard(1, "JS"))
    state, _ = apply(state, Discard(1, "2D"))
    # Then normal play: the non-dealer draws, from either pile.
    assert (state.phase, state.to_act()) == ("draw", (0,))
    state, _ = apply(state, DrawDiscard(0))
    assert state.hand is not None and "2D" in state.hand.hands[0]


def test_when_both_pass_the_non_dealer_must_draw_from_the_stock() -> None:
    state, _ = play(courtesy_hand(), PassUpCard(0), PassUpCard(1))
    assert (state.phase, state.to_act()) == ("draw", (0,))
    with pytest.raises(MustDrawFromStock):
        apply(state, DrawDiscard(0))
    state, _ = apply(state, DrawStock(0))
    state, _ = apply(state, Discard(0, "3D"))  # the drawn card itself may go
    # The dealer may now take the pile's top card, but not throw it straight back.
    state, _ = apply(state, DrawDiscard(1))
    with pytest.raises(CannotDiscardTakenCard):
        apply(state, Discard(1, "3D"))
    state, _ = apply(state, Discard(1, "7S"))
    assert state.hand is not None and state.hand.pile == ("JS", "7S")
    assert "3D" in state.hand.hands[1]


# --- the knock limit --------------------------------------------------------------------


def test_knocking_at_the_limit_is_allowed_and_over_it_refused() -> None:
    # Drawn JD: discarding KS leaves JD = 10 (the limit); discarding AC leaves
    # 2C 3C JD KS... = 2 + 3 + 10 + 10 = 25.
    state = new_hand(
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="6C 7C 8C QD QH QS 2D 4D 6S 7S",
        up_card="JS",
        stock_top="JD",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0))
    with pytest.raises(OverKnockLimit, match="knock limit is 10"):
        apply(state, Knock(0, "AC"))
    _after, events = apply(state, Knock(0, "KS"))
    assert isinstance(events[0], Knocked) and events[0].deadwood_points == 10


def test_a_custom_knock_limit_is_enforced() -> None:
    state = new_hand(
        make_rules("arcadia", knock_limit=5),
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="6C 7C 8C QD QH QS 2D 4D 6S 7S",
        up_card="JS",
        stock_top="6D",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0))
    with pytest.raises(OverKnockLimit, match="knock limit is 5"):
        apply(state, Knock(0, "KS"))  # leaves 6D = 6


@pytest.mark.parametrize(
    ("up_card", "limit"), [("AH", 0), ("4S", 4), ("9C", 9), ("TC", 10), ("KD", 10)]
)
def test_oklahoma_knock_limit_is_the_up_card_value(up_card: str, limit: int) -> None:
    state = new_hand(
        make_rules("arcadia", oklahoma=True),
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="6C 7C 8C QD QH QS 2D 4D 6S 7S",
        up_card=up_card,
    )
    assert state.hand is not None and state.hand.knock_limit == limit


def test_oklahoma_ace_up_card_means_gin_only() -> None:
    def hand_with(draw: str) -> MatchState:
        state = new_hand(
            make_rules("arcadia", oklahoma=True),
            dealer=1,
            non_dealer_hand=KNOCKER,
            dealer_hand="6C 7C 8C QD QH QS 2D 4D 6S 7S",
            up_card="AH",
            stock_top=draw,
        )
        return play(state, PassUpCard(0), PassUpCard(1), DrawStock(0))[0]

    with pytest.raises(OverKnockLimit, match="knock limit is 0"):
        apply(hand_with("AD"), Knock(0, "KS"))  # leaves AD: 1 point is too many
    _, events = apply(hand_with("JH"), Knock(0, "KS"))  # 8-9-T-JH: zero, so gin
    assert isinstance(events[0], Knocked) and events[0].kind == "gin"


# --- wash -----------------------------------------------------------------------------------


def draw_and_discard_until(state: MatchState, stock_left: int) -> MatchState:
    """Both players draw from the stock and throw the drawn card back."""
    while True:
        assert state.hand is not None
        seat = state.hand.turn
        card = state.hand.stock[0]
        state, _ = apply(state, DrawStock(seat))
        assert state.hand is not None
        if len(state.hand.stock) == stock_left:
            return state
        state, _ = apply(state, Discard(seat, card))


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_discard_leaving_two_stock_cards_washes_the_hand(preset: str) -> None:
    state = courtesy_hand(preset)
    state, _ = play(state, PassUpCard(0), PassUpCard(1))
    assert state.hand is not None and len(state.hand.stock) == 31
    # 29 draws take the stock from 31 to 2; seat 0 draws the odd ones, so the 29th.
    state = draw_and_discard_until(state, stock_left=2)
    assert state.hand is not None and state.hand.turn == 0
    card = next(c for c in state.hand.hands[0] if c not in KNOCKER.split())
    state, events = apply(state, Discard(0, card))
    assert [type(e) for e in events][-1] is HandWashed
    assert (state.phase, state.scores, state.boxes, state.hands_played) == (
        "hand_over",
        (0, 0),
        (0, 0),
        1,
    )
    # The same dealer deals again, once both seats have seen the result.
    state, events = play(state, NextHand(0), NextHand(1))
    assert isinstance(events[-1], Dealt)
    assert (events[-1].dealer, events[-1].hand_number) == (1, 2)


def test_the_fiftieth_card_may_still_be_knocked_with() -> None:
    state = courtesy_hand()
    state, _ = play(state, PassUpCard(0), PassUpCard(1))
    state = draw_and_discard_until(state, stock_left=2)
    assert state.hand is not None
    card = next(c for c in state.hand.hands[0] if c not in KNOCKER.split())
    state, events = apply(state, Knock(0, card))  # leaves KNOCKER: K = KS = 10
    assert [type(e) for e in events] == [Knocked]
    assert state.phase == "layoff"


# --- dealer rotation ------------------------------------------------------------------------


def test_the_loser_deals_the_next_hand() -> None:
    # Seat 0 (non-dealer) wins by knocking: seat 1 lost and deals again.
    state = knock_hand("arcadia", "6C 7C 8C QD QH QS 2D 4D 6S 7S", up_card="JS", draw="3D")
    state, _ = apply(state, FinishLayoffs(1))
    _, events = play(state, NextHand(1), NextHand(0))
    assert isinstance(events[-1], Dealt) and events[-1].dealer == 1
    # Seat 1 (the dealer) wins by undercut: seat 0 lost and deals next.
    state = knock_hand("arcadia", "6C 7C 8C QD QH QS JC JD JS 4D", up_card="KH", draw="8D")
    state, _ = apply(state, FinishLayoffs(1))
    state, events = play(state, NextHand(0), NextHand(1))
    assert isinstance(events[-1], Dealt) and events[-1].dealer == 0
    assert state.hand is not None and state.to_act() == (1,)  # the new non-dealer


# --- match settlement ---------------------------------------------------------------------

KNOCK_DEFENDER = "6C 7C 8C QD QH QS 2D 4D 6S 7S"  # D = 19 against KNOCKER's K = 3
HIGH_DEADWOOD = "KC KD QH QS JC JD TH TS 9C 9D"  # no meld: 8 * 10 + 9 + 9 = 98
GINNER = "AC 2C 3C 5D 5H 5S 6H 7H 8H KH"  # + the up-card 4C, less KH: gin


def seat_knocks_for_16(state: MatchState, seat: int) -> MatchState:
    """A hand where ``seat`` (the non-dealer) knocks with K = 3 against D = 19."""
    deck = deck_for(KNOCKER, KNOCK_DEFENDER, "JS", "3D")
    state = dealt(state, deck, dealer=1 - seat)
    other = 1 - seat
    state, _ = play(state, PassUpCard(seat), PassUpCard(other), DrawStock(seat), Knock(seat, "KS"))
    state, _ = apply(state, FinishLayoffs(other))
    return state


def dealer_gins_against_98(state: MatchState, dealer: int) -> tuple[MatchState, MatchSettled]:
    """The non-dealer passes; the dealer takes the up-card 4C and goes gin (D = 98)."""
    deck = deck_for(HIGH_DEADWOOD, GINNER, "4C")
    state = dealt(state, deck, dealer=dealer)
    state, events = play(state, PassUpCard(1 - dealer), TakeUpCard(dealer), Gin(dealer, "KH"))
    assert [type(e) for e in events][-2:] == [HandScored, MatchSettled]
    assert isinstance(events[-1], MatchSettled)
    assert state.settlement == events[-1]
    assert state.phase == "match_over"
    return state, events[-1]


@pytest.mark.parametrize(
    ("preset", "points", "box", "bonus", "kind"),
    [
        ("arcadia", 25 + 98, 25, 100, "match"),
        ("arkadium", 20 + 98, 20, 200, "shutout"),  # loser won no hand: 200 replaces 100
        ("classic", 25 + 98, 25, 0, "none"),
    ],
)
def test_one_hand_match_settles_with_boxes_and_bonus(
    preset: str, points: int, box: int, bonus: int, kind: str
) -> None:
    _, settled = dealer_gins_against_98(started(preset), dealer=0)
    assert settled.winner == 0
    assert settled.hand_points == (points, 0)
    assert settled.boxes == (1, 0)
    assert settled.box_points == (box, 0)
    assert (settled.bonus, settled.bonus_kind) == (bonus, kind)
    assert settled.totals == (points + box + bonus, 0)
    assert settled.seed  # the seed is revealed when the match is over


@pytest.mark.parametrize(
    ("preset", "gin_points", "box", "winner", "bonus", "kind"),
    [
        ("arcadia", 25 + 98, 25, 0, 100, "match"),
        ("arkadium", 20 + 98, 20, 0, 100, "match"),  # loser won hands: no shutout
        ("classic", 25 + 98, 25, 1, 0, "none"),  # highest total wins, not first to 100
    ],
)
def test_five_small_wins_against_one_big_gin(
    preset: str, gin_points: int, box: int, winner: int, bonus: int, kind: str
) -> None:
    # Seat 1 wins five knocks of 16 (80 points, 5 boxes); seat 0, dealing after each
    # loss, then goes gin for gin_points and reaches 100 first.
    state = started(preset)
    for played in range(1, 6):
        state = seat_knocks_for_16(state, seat=1)
        assert state.scores == (0, 16 * played) and state.settlement is None
    state, settled = dealer_gins_against_98(state, dealer=0)
    assert settled.hand_points == (gin_points, 80)
    assert settled.boxes == (1, 5)
    assert settled.box_points == (box, 5 * box)
    assert settled.winner == winner
    assert (settled.bonus, settled.bonus_kind) == (bonus, kind)
    totals = [gin_points + box, 80 + 5 * box]
    totals[winner] += bonus
    assert settled.totals == tuple(totals)


def test_classic_winner_has_the_highest_total_not_the_first_to_target() -> None:
    state = started("classic")
    for _ in range(5):
        state = seat_knocks_for_16(state, seat=1)
    _, settled = dealer_gins_against_98(state, dealer=0)
    # Seat 0 reached 100 (123 points) but totals 123 + 25 = 148 < 80 + 5 * 25 = 205.
    assert settled.hand_points[0] >= 100 > settled.hand_points[1]
    assert settled.totals == (148, 205)
    assert settled.winner == 1


def test_a_custom_target_ends_the_match_sooner() -> None:
    state = seat_knocks_for_16(started(make_rules("arcadia", target=30)), seat=1)
    assert state.settlement is None
    state = seat_knocks_for_16(state, seat=1)
    assert state.settlement is not None
    assert state.settlement.hand_points == (0, 32)
    assert state.settlement.totals == (0, 32 + 2 * 25 + 100)


# --- custom rule sets ---------------------------------------------------------------------


def test_a_custom_rule_set_changes_only_the_named_fields() -> None:
    rules = make_rules("arkadium", gin_bonus=30, oklahoma=True)
    assert (rules.gin_bonus, rules.oklahoma) == (30, True)
    assert (rules.undercut_bonus, rules.box_bonus, rules.shutout_bonus) == (10, 20, 200)
    assert rules.name == "arkadium+custom"
    assert make_rules("classic", name="house").name == "house"


def test_a_custom_undercut_bonus_is_scored() -> None:
    state = knock_hand(
        make_rules("arcadia", undercut_bonus=7),
        "6C 7C 8C QD QH QS JC JD JS 4D",
        up_card="KH",
        draw="8D",
    )
    _, events = apply(state, FinishLayoffs(1))
    assert scored(events).points == 8 - 4 + 7


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("knock_limit", 11),
        ("knock_limit", -1),
        ("knock_limit", "10"),
        ("knock_limit", 2.5),
        ("knock_limit", True),
        ("gin_bonus", -1),
        ("gin_bonus", 1001),
        ("undercut_bonus", -5),
        ("undercut_bonus", None),
        ("big_gin_bonus", -1),
        ("big_gin_bonus", "31"),
        ("box_bonus", -1),
        ("target", 0),
        ("target", 10001),
        ("match_bonus", -1),
        ("shutout_bonus", -200),
        ("winner_by", "lowest_total"),
        ("oklahoma", "yes"),
        ("oklahoma", 1),
        ("name", ""),
        ("name", "x" * 41),
        ("jokers", 2),
    ],
)
def test_invalid_custom_fields_are_refused_naming_the_field(field: str, value: object) -> None:
    with pytest.raises(InvalidRules, match=field):
        make_rules("arcadia", **{field: value})


def test_an_unknown_preset_is_refused() -> None:
    with pytest.raises(InvalidRules, match="unknown preset"):
        make_rules("canasta")


def test_custom_rules_are_stored_in_the_first_event_and_replayed() -> None:
    rules = make_rules("classic", knock_limit=7, oklahoma=True, target=250)
    start = StartMatch(match_id="m", players=("a", "b"), rules=rules, seed="s")
    state, events = apply(None, start)
    first = events[0]
    assert isinstance(first, MatchStarted) and first.rules == rules
    replayed = fold(decode_event(encode_event(e)) for e in events)
    assert replayed.rules == rules == state.rules
    dealt_event = events[1]
    assert isinstance(dealt_event, Dealt)
    up_value = min("A23456789TJQK".index(dealt_event.up_card[0]) + 1, 10)
    assert dealt_event.knock_limit == (0 if up_value == 1 else up_value)  # oklahoma
