"""Hard's safety with known cards, and its layoffs as defender."""

from __future__ import annotations

from domain.ai import choose
from domain.ai.knowledge import partners
from domain.cards import CARD_INDEX, to_mask
from domain.commands import (
    Discard,
    DrawDiscard,
    DrawStock,
    FinishLayoffs,
    Knock,
    LayOff,
    PassUpCard,
    TakeUpCard,
)
from domain.match import WASH_AT, apply
from domain.melds import best_layoffs, deadwood_of_mask
from domain.state import MatchState
from domain.views import player_view
from tests.domain.ai.positions import random_positions
from tests.domain.builders import new_hand, play


def _feeds_known(view_known: tuple[str, ...], card: str) -> bool:
    return partners(to_mask(view_known), CARD_INDEX[card]) > 0


def test_hard_keeps_the_card_that_completes_the_opponents_known_set() -> None:
    # Seat 1 takes the 7H up-card and later the 7D that seat 0 throws; seat 0 then
    # draws 7C, which would give seat 1 a set of sevens. 9D, TD and 9S are each
    # higher, so throwing any of them leaves less deadwood than throwing 7C.
    state = new_hand(
        dealer=0,
        non_dealer_hand="2D 3D 5H 6H 8S QS JC QC KD 4H",
        dealer_hand="AS 2S 3S JH QH KH 9D TD 7D 5C",
        up_card="7H",
        stock_top="9S 7C",
    )
    state, _ = play(
        state,
        TakeUpCard(1),
        Discard(1, "KD"),
        DrawStock(0),
        Discard(0, "7D"),
        DrawDiscard(1),
        Discard(1, "QC"),
        DrawStock(0),
    )
    view = player_view(state, 0)
    assert set(view.opponent_known) == {"7H", "7D"}
    assert "7C" in view.hand
    command = choose("hard", view, seed=1)
    assert isinstance(command, (Discard, Knock))
    assert command.card != "7C"


def test_hard_never_feeds_a_known_meld_when_a_safe_discard_costs_nothing() -> None:
    examined = 0
    for state, seat in random_positions(seed=42, count=500):
        if state.phase != "discard":
            continue
        view = player_view(state, seat)
        if not view.opponent_known:
            continue
        command = choose("hard", view, seed=3)
        if not isinstance(command, Discard):
            continue
        examined += 1
        if not _feeds_known(view.opponent_known, command.card):
            continue
        mask = to_mask(view.hand)
        left = deadwood_of_mask(mask & ~(1 << CARD_INDEX[command.card]))
        for card in view.hand:
            if card == view.taken or _feeds_known(view.opponent_known, card):
                continue
            assert deadwood_of_mask(mask & ~(1 << CARD_INDEX[card])) > left, (view.hand, card)
    assert examined > 20


def test_hard_defender_lays_off_everything_that_lowers_its_deadwood() -> None:
    # Seat 1 knocks showing 5H 6H 7H, 9C 9D 9S and 2C 3C 4C; seat 0 (hard) holds 4H,
    # 8H, 9H and AC, which all fit, and 3H, which fits once 4H is on.
    state = new_hand(
        dealer=0,
        non_dealer_hand="5H 6H 7H 9C 9D 9S 2C 3C 4C AD",
        dealer_hand="4H 8H 9H 3H KS QS JD TC 2S AC",
        up_card="KH",
        stock_top="KC",
    )
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1), Knock(1, "KC"))
    assert state.phase == "layoff"
    before = state.hand
    assert before is not None
    plan = best_layoffs(before.hands[0], before.knock_melds)
    while state.phase == "layoff":
        command = choose("hard", player_view(state, 0), seed=1)
        assert isinstance(command, (LayOff, FinishLayoffs))
        state, _ = apply(state, command)
    result = state.last_result
    assert result is not None and hasattr(result, "layoffs")
    laid = {card for card, _ in result.layoffs}  # type: ignore[union-attr]
    assert {"3H", "4H", "8H", "9H", "AC"} <= laid
    assert result.defender_deadwood == plan.arrangement.deadwood_points  # type: ignore[union-attr]


def _to_the_last_discard(state: MatchState) -> MatchState:
    """Both seats draw from the stock and throw what they drew until a discard would wash."""
    state, _ = play(state, PassUpCard(1), PassUpCard(0))
    while state.hand is not None and len(state.hand.stock) > WASH_AT:
        seat = state.to_act()[0]
        before = set(state.hand.hands[seat])
        state, _ = apply(state, DrawStock(seat))
        assert state.hand is not None
        (drawn,) = set(state.hand.hands[seat]) - before
        if len(state.hand.stock) == WASH_AT:
            return state
        state, _ = apply(state, Discard(seat, drawn))
    raise AssertionError("the stock never reached the wash")


def test_hard_knocks_rather_than_hold_into_a_wash() -> None:
    # At the end seat 1 holds three melds, 2D and 9S, and its discard will leave two
    # cards in the stock: holding washes the hand. Seat 0 is one jack from a knock
    # with 3, so priced as if the hand went on, holding looked better than the knock
    # (seat 0 knocking into an undercut); a wash is worth nothing, the knock about 16.
    state = new_hand(
        dealer=0,
        non_dealer_hand="AS 2S 3S 4H 5H 6H QS QD QC 2D",
        dealer_hand="9C TC JC 5D 5S 5C JH JD KS 3C",
        up_card="4C",
    )
    state = _to_the_last_discard(state)
    view = player_view(state, 1)
    assert view.phase == "discard" and view.stock_size == WASH_AT
    assert any(isinstance(command, Knock) for command in view.legal)
    for seed in range(10):
        assert isinstance(choose("hard", view, seed=seed), Knock)
