"""Medium's take rule, as the issue states it: the face-up card when it lowers its best deadwood."""

from __future__ import annotations

import pytest

from domain.ai import choose
from domain.commands import Discard, DrawDiscard, DrawStock, PassUpCard, TakeUpCard
from domain.melds import deadwood_points
from domain.views import player_view
from tests.domain.builders import cards, new_hand, play

# Seat 1 (the non-dealer) holds A-2-3 of spades and 4-5-6 of hearts, with 7C 8C KD QH
# loose: 35 deadwood. No card in the hand melds with the 9D.
HAND = "AS 2S 3S 4H 5H 6H 7C 8C KD QH"


@pytest.mark.parametrize(
    ("up_card", "takes"),
    [
        ("9D", True),  # melds nothing, but 9D for KD saves one point: 35 -> 34
        ("9C", True),  # completes 7-8-9 of clubs
        ("KS", False),  # KS for KD saves nothing
    ],
)
def test_medium_takes_the_up_card_exactly_when_it_lowers_its_best_deadwood(
    up_card: str, takes: bool
) -> None:
    state = new_hand(
        dealer=0, non_dealer_hand=HAND, dealer_hand="2C 3C 4C 9H TH JH 5D 6D 8D TS", up_card=up_card
    )
    assert deadwood_points(cards(HAND)) == 35
    command = choose("medium", player_view(state, 1), seed=1)
    assert command == (TakeUpCard(1) if takes else PassUpCard(1))


def test_medium_takes_a_discard_that_saves_a_point_later_in_the_hand() -> None:
    state = new_hand(
        dealer=0,
        non_dealer_hand=HAND,
        dealer_hand="2C 3C 4C 9H TH JH 5D 6D 8D 9S",
        up_card="KS",
        stock_top="TD",
    )
    # Both pass the up-card; seat 1 draws TD and throws it; seat 0 draws and throws 9S.
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1), Discard(1, "TD"))
    state, _ = play(state, DrawStock(0), Discard(0, "9S"))
    view = player_view(state, 1)
    assert view.discard_pile[-1] == "9S"
    assert choose("medium", view, seed=1) == DrawDiscard(1)  # 9S for KD: 35 -> 34
