"""The leak oracle itself must catch a leak, or the end-to-end checks prove nothing."""

from __future__ import annotations

import msgspec

from domain.commands import StartMatch
from domain.match import apply
from domain.rules import make_rules
from domain.views import player_view
from tests.e2e.secrecy import check_secrets_blank, knowable, leaks


def test_oracle_flags_the_opponents_hand_and_passes_the_seats_own_view() -> None:
    state, _ = apply(
        None, StartMatch(match_id="m", players=("p", "ai:easy"), rules=make_rules(), seed="s")
    )
    assert state.hand is not None
    view = msgspec.to_builtins(player_view(state, 0))
    assert leaks(view, state, 0) == set()
    opponent_card = next(c for c in state.hand.hands[1] if c not in knowable(state, 0))
    assert leaks({"hand": [opponent_card]}, state, 0) == {opponent_card}
    assert leaks({"stock": [state.hand.stock[0]]}, state, 0) == {state.hand.stock[0]}


def test_oracle_flags_an_unredacted_deal() -> None:
    try:
        check_secrets_blank({"type": "dealt", "deck": ["AS"], "salt": "x"})
    except AssertionError:
        return
    raise AssertionError("an unredacted Dealt event went unnoticed")
