"""Medium's take rule: the face-up card when it completes a meld, or saves 7 or more.

Issue 3 worded the rule as "takes the up-card when it lowers its best deadwood"; medium
followed those words for a while (any saving, 2026-11-30) and measured two points a
hand weaker. Issue 21 asks for medium "as strong as it has ever been", so the stronger
rule is back: a card that melds nothing must save at least 7 points.
"""

from __future__ import annotations

import pytest

from benchmarks.tournament import overridden
from domain.ai import choose
from domain.commands import Discard, DrawDiscard, DrawStock, Knock, PassUpCard, TakeUpCard
from domain.melds import deadwood_points
from domain.views import player_view
from tests.domain.builders import cards, new_hand, play

# Seat 1 (the non-dealer) holds A-2-3 of spades and 4-5-6 of hearts, with 7C 8C KD QH
# loose: 35 deadwood. No card in the hand melds with the 9D, the 4D or the 3D.
HAND = "AS 2S 3S 4H 5H 6H 7C 8C KD QH"


@pytest.mark.parametrize(
    ("up_card", "takes"),
    [
        ("9C", True),  # completes 7-8-9 of clubs
        ("3D", True),  # melds nothing, but 3D for KD saves seven: 35 -> 28
        ("4D", False),  # melds nothing and saves only six: 35 -> 29
        ("9D", False),  # melds nothing and saves one: 35 -> 34
        ("KS", False),  # KS for KD saves nothing
    ],
)
def test_medium_takes_the_up_card_when_it_melds_or_saves_seven(up_card: str, takes: bool) -> None:
    state = new_hand(
        dealer=0, non_dealer_hand=HAND, dealer_hand="2C 3C 4C 9H TH JH 5D 6D 8D TS", up_card=up_card
    )
    assert deadwood_points(cards(HAND)) == 35
    command = choose("medium", player_view(state, 1), seed=1)
    assert command == (TakeUpCard(1) if takes else PassUpCard(1))


def test_the_literal_rule_of_issue_3_is_one_setting_away() -> None:
    state = new_hand(
        dealer=0, non_dealer_hand=HAND, dealer_hand="2C 3C 4C 9H TH JH 5D 6D 8D TS", up_card="9D"
    )
    with overridden(["medium.TAKE_UNMELDED_SAVING=1"]):
        assert choose("medium", player_view(state, 1), seed=1) == TakeUpCard(1)


@pytest.mark.parametrize(("thrown", "takes"), [("3D", True), ("4D", False), ("9S", False)])
def test_medium_takes_a_discard_later_in_the_hand_by_the_same_rule(
    thrown: str, takes: bool
) -> None:
    state = new_hand(
        dealer=0,
        non_dealer_hand=HAND,
        dealer_hand=f"2C 3C 4C 9H TH JH 5D 6D 8D {thrown}",
        up_card="KS",
        stock_top="TD",
    )
    # Both pass the up-card; seat 1 draws TD and throws it; seat 0 draws and throws a card.
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1), Discard(1, "TD"))
    state, _ = play(state, DrawStock(0), Discard(0, thrown))
    view = player_view(state, 1)
    assert view.discard_pile[-1] == thrown
    assert choose("medium", view, seed=1) == (DrawDiscard(1) if takes else DrawStock(1))


@pytest.mark.parametrize(("loose", "knocks"), [("3D", False), ("5D", False), ("8D", True)])
def test_medium_plays_on_with_a_low_count_and_knocks_with_a_high_one(
    loose: str, knocks: bool
) -> None:
    # Seat 1 holds three melds and one loose card, draws the QC: throwing the QC would
    # knock with the loose card's points. With 5 or less medium plays on for gin (or
    # for the opponent to knock into an undercut); with 8 it knocks.
    state = new_hand(
        dealer=0,
        non_dealer_hand=f"AS 2S 3S 4H 5H 6H 7C 8C 9C {loose}",
        dealer_hand="2C 3C 4C 9H TH JH 6D 7D TD TS",
        up_card="KD",
        stock_top="QC",
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1))
    view = player_view(state, 1)
    assert Knock(1, "QC") in view.legal
    command = choose("medium", view, seed=1)
    assert command == (Knock(1, "QC") if knocks else Discard(1, "QC"))
    with overridden(["medium.HOLD_FOR_GIN_DEADWOOD=2"]):  # the hold of earlier builds
        assert choose("medium", view, seed=1) == Knock(1, "QC")
