"""The AI cannot see hidden cards: reshuffle what the seat cannot see, get the same move.

For a seat's view, the opponent's unseen cards and the stock are dealt again at
random (the cards the opponent took face up stay with it). The view must come out
identical, and so must every level's command.
"""

from __future__ import annotations

import random

import pytest
from msgspec.structs import replace

from domain.ai import LEVELS, choose
from domain.cards import sort_cards
from domain.state import MatchState
from domain.views import player_view
from tests.domain.ai.positions import random_positions


def reshuffled(state: MatchState, seat: int, rng: random.Random) -> MatchState:
    """The same match with the cards ``seat`` cannot see dealt again."""
    hand = state.hand
    assert hand is not None
    opponent = 1 - seat
    if hand.phase == "layoff":  # the knocker's cards are all shown; only the stock is hidden
        stock = list(hand.stock)
        rng.shuffle(stock)
        return replace(state, hand=replace(hand, stock=tuple(stock)))
    known = hand.known[opponent]
    hidden = [card for card in hand.hands[opponent] if card not in known]
    pool = hidden + list(hand.stock)
    rng.shuffle(pool)
    theirs = sort_cards((*known, *pool[: len(hidden)]))
    hands = (hand.hands[0], theirs) if seat == 0 else (theirs, hand.hands[1])
    return replace(state, hand=replace(hand, hands=hands, stock=tuple(pool[len(hidden) :])))


@pytest.mark.parametrize("level", LEVELS)
def test_reshuffling_unseen_cards_never_changes_the_command(level: str) -> None:
    rng = random.Random(5)
    checked = 0
    changed_something = 0
    count = 60 if level == "hard" else 150
    for state, seat in random_positions(seed=100 + LEVELS.index(level), count=count):
        if state.phase not in ("up_card", "draw", "discard", "layoff"):
            continue
        view = player_view(state, seat)
        expected = choose(level, view, seed="h", time_budget_ms=60_000)  # type: ignore[arg-type]
        for _ in range(3):
            other = reshuffled(state, seat, rng)
            assert other.hand is not None and state.hand is not None
            changed_something += other.hand.hands != state.hand.hands
            assert player_view(other, seat) == view
            again = choose(level, player_view(other, seat), seed="h", time_budget_ms=60_000)  # type: ignore[arg-type]
            assert again == expected
        checked += 1
    assert checked > count // 2
    assert changed_something > checked  # the reshuffle really moved hidden cards
