"""Baseline plays the published SimpleGinRummyPlayer policy, checked on hand-made positions."""

from __future__ import annotations

import pytest

from benchmarks.tournament import hand_state
from domain.ai import choose
from domain.commands import Discard, DrawStock, Gin, Knock, PassUpCard, TakeUpCard
from domain.match import apply
from domain.state import MatchState
from domain.views import PlayerView, player_view
from tests.domain.builders import new_hand, play

# Seat 1 (the non-dealer): A-2-3 of spades and 4-5-6 of hearts melded; 7C 8C KD QH loose.
HAND = "AS 2S 3S 4H 5H 6H 7C 8C KD QH"
DEALER = "2C 3C 4C 9H TH JH 5D 6D 8D TS"


@pytest.mark.parametrize(
    ("up_card", "takes"),
    [
        ("9C", True),  # completes 7-8-9 of clubs
        ("6C", True),  # 6-7-8 of clubs
        ("7H", True),  # extends 4-5-6 of hearts
        ("9D", False),  # 9D for KD saves a point but melds nothing: medium takes it, baseline not
        ("KS", False),
    ],
)
def test_baseline_takes_the_up_card_only_when_it_melds(up_card: str, takes: bool) -> None:
    state = new_hand(dealer=0, non_dealer_hand=HAND, dealer_hand=DEALER, up_card=up_card)
    assert choose("baseline", player_view(state, 1), seed=1) == (
        TakeUpCard(1) if takes else PassUpCard(1)
    )


def test_baseline_takes_a_card_that_melds_outside_its_best_arrangement() -> None:
    # 7H 7D 7S is a set; 5S 6S 7S would also be a run once 5S comes, though the set stays
    # the better arrangement; the original asks "in any meld", so it takes the 5S.
    hand = "7H 7D 7S 6S KD QH JC 9C 2D 4H"
    state = new_hand(dealer=0, non_dealer_hand=hand, dealer_hand=DEALER, up_card="5S")
    assert choose("baseline", player_view(state, 1), seed=1) == TakeUpCard(1)


def _after_stock_draw(stock_top: str, hand: str = HAND) -> tuple[MatchState, PlayerView]:
    state = new_hand(
        dealer=0, non_dealer_hand=hand, dealer_hand=DEALER, up_card="KS", stock_top=stock_top
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1))
    return state, player_view(state, 1)


def test_baseline_throws_the_card_leaving_least_deadwood_at_random_among_equals() -> None:
    # After drawing 9S the loose cards are 7C 8C 9S KD QH: KD and QH both leave 34.
    _, view = _after_stock_draw("9S")
    picks = {choose("baseline", view, seed=seed) for seed in range(30)}
    assert picks == {Discard(1, "KD"), Discard(1, "QH")}


def test_baseline_takes_a_set_card_and_throws_its_highest_loose_card() -> None:
    # KH makes K-K-K with KD KS; of the loose 4H 5H 9S 8C QD it throws the QD.
    hand = "AS 2S 3S 4H 5H 9S KD KS 8C QD"
    state = new_hand(dealer=0, non_dealer_hand=hand, dealer_hand=DEALER, up_card="KH")
    state, _ = play(state, TakeUpCard(1))
    command = choose("baseline", player_view(state, 1), seed=1)
    assert command == Discard(1, "QD")


def test_baseline_knocks_at_once_even_early_and_with_little_deadwood() -> None:
    # Two deadwood points with a full stock: medium would hold for gin, baseline knocks.
    hand = "AS 2S 3S 4H 5H 6H 7C 8C 9C KD"
    _, view = _after_stock_draw("AD", hand)
    assert choose("baseline", view, seed=1) == Knock(1, "KD")
    assert not isinstance(choose("medium", view, seed=1), Knock)


def test_baseline_goes_gin_when_it_can() -> None:
    hand = "AS 2S 3S 4H 5H 6H 7C 8C 9C KD"
    _, view = _after_stock_draw("7H", hand)
    assert choose("baseline", view, seed=1) == Gin(1, "KD")


@pytest.mark.parametrize(
    ("seed", "dealer"), [("conf1:medium:medium:197", 1), ("conf1:medium:medium:362", 0)]
)
def test_baseline_never_repeats_a_draw_and_discard_pair(seed: str, dealer: int) -> None:
    """The original's own guard against swapping cards for ever, on the deals where two
    mediums once looped; here baseline sits against medium in each seat."""
    for levels in (("baseline", "medium"), ("medium", "baseline")):
        state = hand_state(seed, dealer, levels, "arcadia")
        pairs: list[tuple[str, str]] = []
        drawn = ""
        moves = 0
        while state.phase not in ("hand_over", "match_over"):
            moves += 1
            assert moves < 400, "the hand never ended"
            seat = state.to_act()[0]
            command = choose(levels[seat], player_view(state, seat), seed=f"{seed}:{seat}")  # type: ignore[arg-type]
            state, _ = apply(state, command)
            if levels[seat] != "baseline" or state.hand is None:
                continue
            last = state.hand.moves[-1]
            if last.action in ("take_up_card", "draw_discard", "draw_stock"):
                drawn = last.card or ""
            elif last.action == "discard":
                pairs.append((drawn, last.card or ""))
        assert len(pairs) == len(set(pairs))
