"""The edge cases of docs/rules.md that test_scoring.py does not reach, played through the decider.

Each test deals hands chosen here (seat 0 is the non-dealer, seat 1 the dealer unless
said otherwise) and works its expected numbers out by hand from docs/rules.md in the
comments: the deal order, the wash at exactly two stock cards, gin and big gin with the
third-last stock card, going out right after taking a face-up card, layoff chains at
both ends of a run and on a card that fits two melds, a tie made by layoffs, the target
reached exactly, a wash beside an arkadium shutout, a hand won for 0 points, and
Oklahoma's limit on every hand.
"""

from __future__ import annotations

import pytest

from domain.ai import Level, choose
from domain.cards import CARD_VALUE, DECK, sort_cards
from domain.clock import STAND_IN
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
    TakeUpCard,
)
from domain.errors import LayoffDoesNotFit
from domain.events import Dealt, Event, HandScored, HandWashed, MatchSettled
from domain.match import apply, legal_commands
from domain.melds import best_layoffs, deadwood_points
from domain.rules import make_rules
from domain.state import MatchState
from domain.views import player_view
from tests.domain.ai.positions import random_positions
from tests.domain.builders import dealt, deck_for, new_hand, play, started

# The knocker (seat 0) melds A-2-3C, three 5s and 8-9-TH; KS is its deadwood.
KNOCKER = "AC 2C 3C 5D 5H 5S 8H 9H TH KS"
# 6-7-8C and three queens; 2D 4D 6S 7S fit nothing of KNOCKER's: D = 19.
DEFENDER = "6C 7C 8C QD QH QS 2D 4D 6S 7S"
# Ten melded cards: with JH drawn all eleven meld (A-4C, 555, 8-JH).
BIG_GIN_KNOCKER = "AC 2C 3C 4C 5D 5H 5S 8H 9H TH"
BIG_GIN_DEFENDER = "6C 7C 8C QD QS QC 4D 2S AS 9D"  # deadwood 4 + 2 + 1 + 9 = 16


def scored(events: list[Event]) -> HandScored:
    (result,) = [e for e in events if isinstance(e, HandScored)]
    return result


def stock_ending_with(last: str, hands: str, up_card: str, count: int = 29) -> str:
    """``count`` stock cards, ``last`` at the bottom of them: the card the 29th draw takes."""
    used = set(hands.split()) | {up_card, last}
    filler = [card for card in DECK if card not in used][: count - 1]
    return " ".join([*filler, last])


def throw_back_until(state: MatchState, stock_left: int) -> MatchState:
    """Both seats draw from the stock and throw the drawn card back, until a draw leaves
    ``stock_left`` cards; the seat that drew it holds eleven."""
    while True:
        assert state.hand is not None
        seat = state.hand.turn
        card = state.hand.stock[0]
        state, _ = apply(state, DrawStock(seat))
        assert state.hand is not None
        if len(state.hand.stock) == stock_left:
            return state
        state, _ = apply(state, Discard(seat, card))


# --- the deal ------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_the_deal_alternates_from_the_non_dealer_and_turns_the_21st_card_up(dealer: int) -> None:
    # The deck in its fixed order: the non-dealer gets the 1st, 3rd ... 19th card, the
    # dealer the 2nd ... 20th, the 21st is the up-card, the other 31 the stock, top first.
    state = dealt(started(), DECK, dealer=dealer)
    hand = state.hand
    assert hand is not None
    assert hand.hands[1 - dealer] == sort_cards(DECK[0:20:2])
    assert hand.hands[dealer] == sort_cards(DECK[1:20:2])
    assert hand.pile == (DECK[20],)
    assert hand.stock == DECK[21:] and len(hand.stock) == 31
    assert (state.phase, state.to_act()) == ("up_card", (1 - dealer,))


# --- the wash at exactly two stock cards ------------------------------------------------------


def test_a_discard_with_three_stock_cards_left_does_not_wash() -> None:
    # A draw from the pile leaves the stock at 3: the discard after it leaves 3, not 2.
    state = new_hand(
        dealer=1, non_dealer_hand=KNOCKER, dealer_hand=DEFENDER, up_card="JS", stock_top=""
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1))
    state = throw_back_until(state, stock_left=3)
    assert state.hand is not None
    seat = state.hand.turn
    state, events = apply(state, Discard(seat, state.hand.hands[seat][-1]))
    assert not any(isinstance(e, HandWashed) for e in events)
    assert state.hand is not None
    other = 1 - seat
    state, _ = apply(state, DrawDiscard(other))
    assert state.hand is not None
    thrown = next(c for c in state.hand.hands[other] if c != state.hand.taken)
    state, events = apply(state, Discard(other, thrown))
    assert not any(isinstance(e, HandWashed) for e in events)
    assert state.hand is not None and len(state.hand.stock) == 3
    # The next stock draw leaves two: its discard washes the hand.
    state, _ = apply(state, DrawStock(seat))
    assert state.hand is not None
    _, events = apply(state, Discard(seat, state.hand.hands[seat][0]))
    assert isinstance(events[-1], HandWashed) and events[-1].reason == "stock"


def test_gin_with_the_third_last_stock_card_is_scored_not_washed() -> None:
    # Seat 0 draws the 1st, 3rd ... 29th stock card; the 29th is JH: 8-9-T-JH, and KS
    # goes with the gin. D = 19 (no layoffs against gin): 25 + 19.
    stock = stock_ending_with("JH", f"{KNOCKER} {DEFENDER}", "JS")
    state = new_hand(
        dealer=1, non_dealer_hand=KNOCKER, dealer_hand=DEFENDER, up_card="JS", stock_top=stock
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1))
    state = throw_back_until(state, stock_left=2)
    assert state.hand is not None and state.hand.turn == 0 and "JH" in state.hand.hands[0]
    state, events = apply(state, Gin(0, "KS"))
    assert not any(isinstance(e, HandWashed) for e in events)
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("gin", 0, 25 + 19)
    assert state.boxes == (1, 0)


def test_big_gin_with_the_third_last_stock_card_is_scored_not_washed() -> None:
    stock = stock_ending_with("JH", f"{BIG_GIN_KNOCKER} {BIG_GIN_DEFENDER}", "KH")
    state = new_hand(
        "classic",
        dealer=1,
        non_dealer_hand=BIG_GIN_KNOCKER,
        dealer_hand=BIG_GIN_DEFENDER,
        up_card="KH",
        stock_top=stock,
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1))
    state = throw_back_until(state, stock_left=2)
    _, events = apply(state, BigGin(0))
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("big_gin", 0, 31 + 16)


# --- going out right after taking a face-up card ----------------------------------------------


def test_a_knock_may_be_the_discard_after_taking_the_up_card() -> None:
    # Seat 0 takes the up-card 3D and knocks with KS: K = 3 (the 3D), D = 19.
    state = new_hand(
        dealer=1, non_dealer_hand=KNOCKER, dealer_hand=DEFENDER, up_card="3D", stock_top=""
    )
    state, _ = play(state, TakeUpCard(0), Knock(0, "KS"))
    assert state.hand is not None and state.hand.knock is not None
    assert (state.hand.knock.kind, state.hand.knock.deadwood_points) == ("knock", 3)
    _, events = apply(state, FinishLayoffs(1))
    assert scored(events).points == 19 - 3


def test_big_gin_may_follow_taking_the_up_card() -> None:
    state = new_hand(
        "classic",
        dealer=1,
        non_dealer_hand=BIG_GIN_KNOCKER,
        dealer_hand=BIG_GIN_DEFENDER,
        up_card="JH",
    )
    _, events = play(state, TakeUpCard(0), BigGin(0))
    assert scored(events).points == 31 + 16


def test_big_gin_may_follow_a_draw_from_the_discard_pile() -> None:
    # Seat 1 draws JH from the stock and throws it; seat 0 takes it from the pile.
    state = new_hand(
        "classic",
        dealer=1,
        non_dealer_hand=BIG_GIN_KNOCKER,
        dealer_hand=BIG_GIN_DEFENDER,
        up_card="KH",
        stock_top="2H JH",
    )
    state, _ = play(
        state,
        PassUpCard(0),
        PassUpCard(1),
        DrawStock(0),
        Discard(0, "2H"),
        DrawStock(1),
        Discard(1, "JH"),
        DrawDiscard(0),
    )
    _, events = apply(state, BigGin(0))
    assert scored(events).points == 31 + 16


def test_the_card_taken_from_the_pile_is_never_offered_to_throw() -> None:
    state = new_hand(
        dealer=1, non_dealer_hand=KNOCKER, dealer_hand=DEFENDER, up_card="JS", stock_top="3D"
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Discard(0, "KS"))
    state, _ = apply(state, DrawDiscard(1))
    offered = legal_commands(state, 1)
    assert offered and not [c for c in offered if getattr(c, "card", None) == "KS"]


# --- layoffs --------------------------------------------------------------------------------


def run_knock(defender: str) -> MatchState:
    """Seat 0 melds 5-6-7H, three 6s and three queens, keeps 2D (K = 2) and knocks
    with the KC it drew."""
    state = new_hand(
        dealer=1,
        non_dealer_hand="5H 6H 7H 6C 6D 6S QC QD QS 2D",
        dealer_hand=defender,
        up_card="TC",
        stock_top="KC",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KC"))
    return state


def test_a_run_is_extended_at_both_ends_and_each_end_chains() -> None:
    # Defender: 4H 3H below the run, 8H 9H above it; KD KH JC JD AS 4S stay (45).
    state = run_knock("4H 3H 8H 9H KD KH JC JD AS 4S")
    assert state.hand is not None
    run = state.hand.knock_melds.index(("5H", "6H", "7H"))
    for early in ("3H", "9H"):  # each needs the card between it and the run first
        with pytest.raises(LayoffDoesNotFit):
            apply(state, LayOff(1, early, run))
    state, _ = play(state, LayOff(1, "4H"), LayOff(1, "3H"), LayOff(1, "8H"), LayOff(1, "9H", run))
    assert state.hand is not None
    assert state.hand.knock_melds[run] == ("3H", "4H", "5H", "6H", "7H", "8H", "9H")
    _, events = apply(state, FinishLayoffs(1))
    result = scored(events)
    assert (result.defender_deadwood, result.outcome, result.points) == (45, "knock", 43)


def test_a_card_that_fits_a_set_and_a_run_goes_on_the_meld_named() -> None:
    # Knocker: 8C 8D 8H, A-2-3C, 5-6-7S, keeps 2H (K = 2). The defender's 8S fits the
    # set and the run; on the set (the first that fits, when no meld is named) it leaves
    # 9S nowhere to go, on the run the 9S follows it.
    defender = "8S 9S 2D 4D 6H QD JC 9H 3H TD"  # deadwood 8+9+2+4+6+10+10+9+3+10 = 71
    state = new_hand(
        dealer=1,
        non_dealer_hand="8C 8D 8H AC 2C 3C 5S 6S 7S KH",
        dealer_hand=defender,
        up_card="KD",
        stock_top="2H",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KH"))
    assert state.hand is not None
    melds = state.hand.knock_melds
    eights, spades = melds.index(("8C", "8D", "8H")), melds.index(("5S", "6S", "7S"))
    on_set, _ = apply(state, LayOff(1, "8S"))
    assert on_set.hand is not None and on_set.hand.layoffs == (("8S", eights),)
    with pytest.raises(LayoffDoesNotFit):  # the set is full and 9S does not touch 5-6-7S
        apply(on_set, LayOff(1, "9S"))
    on_run, _ = play(state, LayOff(1, "8S", spades), LayOff(1, "9S"))
    _, events = apply(on_run, FinishLayoffs(1))
    assert scored(events).defender_deadwood == 71 - 8 - 9


def test_a_layoff_never_wraps_below_the_ace() -> None:
    # KNOCKER's A-2-3C does not take the KC: the ace is low only.
    state = new_hand(
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="KC 7C 8C QD QH QS 2D 4D 6S 7S",
        up_card="JS",
        stock_top="3D",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"))
    with pytest.raises(LayoffDoesNotFit):
        apply(state, LayOff(1, "KC"))
    assert not [c for c in legal_commands(state, 1) if isinstance(c, LayOff)]


def test_layoffs_that_bring_the_defender_level_make_an_undercut() -> None:
    # K = 8 (8D kept). Defender: 6-7-8C, QQQ; JH 4D 2S 2H = 18. JH goes on 8-9-TH:
    # D = 8 = K, a tie, so an undercut worth 0 + 25 to the defender.
    state = new_hand(
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="6C 7C 8C QD QS QC JH 4D 2S 2H",
        up_card="KH",
        stock_top="8D",
    )
    state, _ = play(
        state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"), LayOff(1, "JH")
    )
    _, events = apply(state, FinishLayoffs(1))
    result = scored(events)
    assert (result.knocker_deadwood, result.defender_deadwood) == (8, 8)
    assert (result.outcome, result.winner, result.points) == ("undercut", 1, 25)


# --- the match --------------------------------------------------------------------------------


def knock_for_16(state: MatchState, seat: int = 0) -> tuple[MatchState, list[Event]]:
    """A hand where ``seat`` (the non-dealer) knocks with K = 3 against D = 19."""
    state = dealt(state, deck_for(KNOCKER, DEFENDER, "JS", "3D"), dealer=1 - seat)
    return play(
        state,
        PassUpCard(seat),
        PassUpCard(1 - seat),
        DrawStock(seat),
        Knock(seat, "KS"),
        FinishLayoffs(1 - seat),
    )


@pytest.mark.parametrize(("target", "over"), [(16, True), (17, False)])
def test_hand_points_equal_to_the_target_end_the_match(target: int, over: bool) -> None:
    state, events = knock_for_16(started(make_rules("arcadia", target=target)))
    assert state.scores == (16, 0)
    assert (state.settlement is not None) is over
    assert isinstance(events[-1], MatchSettled) is over
    if over:
        assert state.settlement is not None
        assert (state.settlement.winner, state.settlement.totals) == (0, (16 + 25 + 100, 0))


def test_a_washed_hand_does_not_spoil_an_arkadium_shutout() -> None:
    # Hand 1 is washed (nobody wins it); hand 2, the same dealer's, seat 0 wins for 16,
    # the target: seat 1 won no hand, so the 200 shutout replaces the 100 match bonus.
    state = new_hand(
        make_rules("arkadium", target=16),
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=DEFENDER,
        up_card="JS",
    )
    state, _ = play(state, PassUpCard(0), PassUpCard(1))
    state = throw_back_until(state, stock_left=2)
    assert state.hand is not None
    state, events = apply(state, Discard(0, state.hand.hands[0][-1]))
    assert isinstance(events[-1], HandWashed)
    state, events = knock_for_16(state, seat=0)
    settled = events[-1]
    assert isinstance(settled, MatchSettled)
    assert (settled.winner, settled.boxes, settled.bonus_kind, settled.bonus) == (
        0,
        (1, 0),
        "shutout",
        200,
    )
    assert settled.totals == (16 + 20 + 200, 0)


def test_a_hand_won_for_0_points_banks_a_box_and_the_loser_deals() -> None:
    # A custom undercut bonus of 0 and a tie at 8: the defender wins 0 points but the
    # hand is theirs, so they bank the box and the knocker (seat 0) deals the next hand.
    state = new_hand(
        make_rules("arcadia", undercut_bonus=0),
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand="6C 7C 8C QD QH QS JC JD JS 8S",
        up_card="KH",
        stock_top="8D",
    )
    state, events = play(
        state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"), FinishLayoffs(1)
    )
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("undercut", 1, 0)
    assert (state.scores, state.boxes) == ((0, 0), (0, 1))
    _, events = play(state, NextHand(0), NextHand(1))
    assert isinstance(events[-1], Dealt) and events[-1].dealer == 0


def test_big_gin_for_0_points_is_still_the_declarers_hand() -> None:
    # A custom big-gin bonus of 0 against a defender with no deadwood (6-9C, QQQ,
    # 9-JD): the dealer (seat 0) takes the up-card JH for big gin and scores 0, but the
    # hand is theirs: they bank the box and seat 1, who lost it, deals next.
    state = new_hand(
        make_rules("classic", big_gin_bonus=0),
        dealer=0,
        non_dealer_hand="6C 7C 8C 9C QD QS QC 9D TD JD",
        dealer_hand=BIG_GIN_KNOCKER,
        up_card="JH",
    )
    state, events = play(state, PassUpCard(1), TakeUpCard(0), BigGin(0))
    result = scored(events)
    assert (result.outcome, result.winner, result.points) == ("big_gin", 0, 0)
    assert (state.scores, state.boxes) == ((0, 0), (1, 0))
    _, events = play(state, NextHand(0), NextHand(1))
    assert isinstance(events[-1], Dealt) and events[-1].dealer == 1


def oklahoma_limit(up_card: str) -> int:
    value = CARD_VALUE[up_card]
    return 0 if value == 1 else value


def test_oklahoma_sets_each_hands_limit_from_its_own_up_card() -> None:
    state = new_hand(
        make_rules("arcadia", oklahoma=True),
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=DEFENDER,
        up_card="KD",
        stock_top="3D",
    )
    assert state.hand is not None and state.hand.knock_limit == 10
    state, _ = play(state, PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"))
    state, _ = apply(state, FinishLayoffs(1))
    for _ in range(3):  # the next hands, dealt by the engine from the seed
        state, events = play(state, NextHand(0), NextHand(1))
        deal = events[-1]
        assert isinstance(deal, Dealt)
        assert deal.knock_limit == oklahoma_limit(deal.up_card)
        assert state.hand is not None and state.hand.knock_limit == deal.knock_limit
        state, _ = play(state, *_pass_and_wash(state))


def _pass_and_wash(state: MatchState) -> list[PassUpCard | DrawStock | Discard]:
    """Commands that pass the up-card twice and then wash the hand on the stock."""
    assert state.hand is not None
    dealer = state.hand.dealer
    commands: list[PassUpCard | DrawStock | Discard] = [
        PassUpCard(1 - dealer),
        PassUpCard(dealer),
    ]
    seat = 1 - dealer
    for card in state.hand.stock[:29]:
        commands += [DrawStock(seat), Discard(seat, card)]
        seat = 1 - seat
    return commands


# --- the house AI as defender ----------------------------------------------------------------


@pytest.mark.parametrize(
    "level", ["baseline", "easy", "medium", "hard", pytest.param(STAND_IN, id="stand-in")]
)
def test_every_house_ai_defender_lays_off_to_the_least_deadwood(level: Level) -> None:
    """The rules (docs/rules.md, "A defender who lays off less than they could"): the
    defender's deadwood is the least possible over their own melds plus layoffs, and only a
    person may choose to keep more. So every house level, and the stand-in that plays a
    person's timed-out turn, lays off to the least, with no hints in its view.

    Seat 1 knocks showing 4-5-6H, 2-3-4C and three kings (AD deadwood: K = 1). Seat 0
    holds 7H 8H 9H TH 9C 9D 2S 3D 5S JS. Its best arrangement is the run 7-TH with 9C 9D
    as deadwood (18 + 20 of strays = 38), and neither 9 fits the knocker's melds; laying
    off 7H and 8H from its own run (a chain onto 4-5-6H) leaves 9H TH 9C 9D, the set of
    nines and TH: 10 + 20 = 30, the least. Laying off only the deadwood of the moment
    (as baseline, easy and medium did) kept 38.
    """
    state = new_hand(
        dealer=0,
        non_dealer_hand="4H 5H 6H 2C 3C 4C KC KD KS AD",
        dealer_hand="7H 8H 9H TH 9C 9D 2S 3D 5S JS",
        up_card="QH",
        stock_top="QC",
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1), Knock(1, "QC"))
    hand = state.hand
    assert hand is not None and hand.knock is not None and hand.knock.deadwood_points == 1
    assert best_layoffs(hand.hands[0], hand.knock_melds).arrangement.deadwood_points == 30
    while state.phase == "layoff":
        state, _ = apply(state, choose(level, player_view(state, 0, advice=False), seed=1))
    result = state.last_result
    assert isinstance(result, HandScored)
    assert (result.defender_deadwood, result.winner, result.points) == (30, 1, 29)


@pytest.mark.parametrize("advice", [False, True], ids=["no-advice", "advice"])
@pytest.mark.parametrize("level", ["baseline", "easy", "medium", "hard"])
def test_every_house_ai_defender_reaches_the_least_deadwood_in_random_layoffs(
    level: Level, advice: bool
) -> None:
    """The same over many knocks, with and without the engine's advice in the view (the
    house AI's view carries it; a stand-in's does when the match has hints). Hard's own
    test of this lived in tests/domain/ai/test_hard_play.py until every level shared it."""
    defended = 0
    for state, seat in random_positions(seed=9, count=2000):
        hand = state.hand
        if state.phase != "layoff" or hand is None or hand.layoffs:
            continue
        least = best_layoffs(hand.hands[seat], hand.knock_melds).arrangement.deadwood_points
        while state.phase == "layoff":
            state, _ = apply(state, choose(level, player_view(state, seat, advice=advice), seed=2))
        result = state.last_result
        assert isinstance(result, HandScored)
        assert result.defender_deadwood == least
        assert deadwood_points(result.defender_deadwood_cards) == least
        defended += 1
        if defended >= 40:
            break
    assert defended >= 20
