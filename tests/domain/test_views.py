"""The player view carries what issue 2 lists, with values worked out by hand."""

from __future__ import annotations

import msgspec

from domain.cards import sort_cards
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
from domain.events import HandScored
from domain.state import MatchState, Move
from domain.views import player_view, spectator_view
from tests.domain.builders import cards, new_hand, play

KNOCKER = "AC 2C 3C 5D 5H 5S 8H 9H TH KS"  # melds A-2-3C, 555, 8-9-TH; KS deadwood 10
DEFENDER = "JH QH 7H 4C 6C 7C 8C KD KC 9S"  # 6-7-8C; deadwood 10+10+7+4+10+10+9 = 60


def opening() -> MatchState:
    return new_hand(
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=DEFENDER,
        up_card="2S",
        stock_top="2D 3S",
    )


def test_the_opening_view() -> None:
    view = player_view(opening(), 0)
    assert view.hand == sort_cards(cards(KNOCKER))  # suit-major, as a hand is shown
    assert view.arrangement.deadwood_points == 10
    assert view.arrangement.deadwood == ("KS",)
    assert (view.phase, view.to_act, view.dealer, view.hand_number) == ("up_card", (0,), 1, 1)
    assert (view.discard_pile, view.stock_size, view.opponent_card_count) == (("2S",), 31, 10)
    assert view.opponent_known == ()
    assert view.best_discard is None  # ten cards: nothing to discard yet
    assert [type(c).__name__ for c in view.legal] == ["TakeUpCard", "PassUpCard"]
    assert player_view(opening(), 1).legal == ()  # the dealer waits for the non-dealer
    assert (view.scores, view.boxes, view.knock_limit) == ((0, 0), (0, 0), 10)


def test_cards_taken_from_the_pile_are_known_to_the_opponent_until_played() -> None:
    state, _ = play(opening(), TakeUpCard(0), Discard(0, "KS"))
    assert player_view(state, 1).opponent_known == ("2S",)
    assert player_view(state, 0).opponent_known == ()
    view = player_view(state, 1)
    assert (view.discard_pile, view.phase, view.to_act) == (("KS",), "draw", (1,))
    assert {type(c).__name__ for c in view.legal} == {"DrawStock", "DrawDiscard"}
    # Seat 1 takes KS (now known to seat 0), throws 9S; seat 0 draws, throws 2S.
    state, _ = play(state, DrawDiscard(1), Discard(1, "9S"), DrawStock(0), Discard(0, "2S"))
    assert player_view(state, 0).opponent_known == ("KS",)
    assert player_view(state, 1).opponent_known == ()  # 2S is back on the pile


def test_a_stock_draw_shows_its_card_only_to_the_drawer() -> None:
    state, _ = play(opening(), PassUpCard(0), PassUpCard(1), DrawStock(0))
    assert player_view(state, 0).moves[-1] == Move(0, "draw_stock", "2D")
    assert player_view(state, 1).moves[-1] == Move(0, "draw_stock", None)
    assert player_view(state, 1).moves[0] == Move(0, "pass_up_card", "2S")


def test_holding_eleven_the_view_offers_the_best_discard() -> None:
    state, _ = play(opening(), PassUpCard(0), PassUpCard(1), DrawStock(0))
    view = player_view(state, 0)
    assert view.best_discard == ("KS", 2)  # keeps 2D as the only deadwood
    assert view.taken is None
    assert Knock(0, "KS") in view.legal and Discard(0, "2D") in view.legal
    taken = player_view(play(opening(), TakeUpCard(0))[0], 0)
    assert taken.taken == "2S"
    assert Discard(0, "2S") not in taken.legal
    assert taken.best_discard is not None and taken.best_discard[0] != "2S"


def test_the_defender_is_offered_the_best_layoffs_and_sees_the_result() -> None:
    state, _ = play(opening(), PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"))
    view = player_view(state, 1)
    assert view.knock is not None and view.knock.deadwood_points == 2
    plan = view.suggested_layoffs
    assert plan is not None
    assert {card for card, _ in plan.layoffs} == {"JH", "QH", "7H", "4C"}
    assert plan.arrangement.deadwood_points == 29  # KD KC 9S
    assert player_view(state, 0).suggested_layoffs is None  # the knocker never lays off
    assert LayOff(1, "JH", next(i for i, m in enumerate(view.knock_melds) if "9H" in m)) in (
        view.legal
    )
    state, _ = play(state, *(LayOff(1, card, meld) for card, meld in plan.layoffs))
    state, _ = play(state, FinishLayoffs(1))
    for seat in (0, 1):
        after = player_view(state, seat)
        result = after.last_result
        assert isinstance(result, HandScored)
        assert (result.winner, result.points, after.scores, after.boxes) == (0, 27, (27, 0), (1, 0))
        assert set(result.hands[1]) == set(cards(DEFENDER))  # both hands shown at the end
        assert set(result.hands[0]) == set(cards(KNOCKER)) - {"KS"} | {"2D"}
        assert result.layoffs == plan.layoffs
        assert [type(c).__name__ for c in after.legal] == ["NextHand"]


def test_without_hints_the_defender_is_still_offered_the_best_layoffs() -> None:
    """docs/rules.md, laying off: the view always lists the layoffs that fit now, and the
    engine offers every defender the layoffs that leave the least deadwood (RULES.md), hints
    or not; only the best discard is advice, given in a match with hints. The plan is the
    defending seat's alone: the knocker's view carries none."""
    state, _ = play(opening(), PassUpCard(0), PassUpCard(1), DrawStock(0), Knock(0, "KS"))
    state = msgspec.structs.replace(state, hints=False)
    view = player_view(state, 1)
    fitting = {command.card for command in view.legal if isinstance(command, LayOff)}
    assert fitting == {"JH", "7H", "4C"}  # QH fits only once JH is laid
    plan = view.suggested_layoffs
    assert plan is not None
    assert plan == player_view(msgspec.structs.replace(state, hints=True), 1).suggested_layoffs
    assert {card for card, _ in plan.layoffs} == {"JH", "QH", "7H", "4C"}
    assert plan.arrangement.deadwood_points == 29
    assert player_view(state, 0).suggested_layoffs is None  # the knocker never lays off
    assert "suggested_layoffs" not in msgspec.structs.asdict(spectator_view(state))


def test_without_hints_there_is_no_best_discard() -> None:
    """The best discard stays advice: null in a match without hints (docs/rules.md)."""
    state, _ = play(opening(), PassUpCard(0), PassUpCard(1), DrawStock(0))
    assert player_view(state, 0).best_discard == ("KS", 2)
    assert player_view(msgspec.structs.replace(state, hints=False), 0).best_discard is None
