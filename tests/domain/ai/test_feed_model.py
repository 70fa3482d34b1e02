"""The learned meld chance (``feed_model``) reads the seat's view and nothing else.

Its coefficients were fitted on real hands, offline; at play time every input must come
from what the seat may see. Reshuffling the cards the seat cannot see must leave every
feature and every chance as it was, and hard playing with the model (either way it can
be switched on) must still make the same move, as ``test_hidden_cards`` checks for hard
v2 with the model off.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.tournament import overridden
from domain.ai import choose, feed_model, feed_weights, knowledge
from domain.ai.knowledge import Knowledge
from domain.cards import CARD_INDEX, to_mask
from domain.views import player_view
from tests.domain.ai.positions import random_positions
from tests.domain.ai.test_hidden_cards import reshuffled


def _chances(state, seat):  # type: ignore[no-untyped-def]
    view = player_view(state, seat)
    know = knowledge.read(view)
    table = feed_model.table(view, know)
    return table.held, [
        feed_model.chance(feed_model.features(table, CARD_INDEX[card], 0.25)) for card in view.hand
    ]


def test_the_fitted_weights_are_for_these_features() -> None:
    assert feed_weights.HELD_NAMES == feed_model.HELD_FEATURES
    assert feed_weights.NAMES == feed_model.FEATURES
    assert len(feed_weights.HELD_WEIGHTS) == len(feed_model.HELD_FEATURES) + 1
    assert len(feed_weights.WEIGHTS) == len(feed_model.FEATURES) + 1


def test_reshuffling_unseen_cards_never_changes_a_chance() -> None:
    rng = random.Random(18)
    checked = 0
    for state, seat in random_positions(seed=1800, count=120):
        if state.phase != "discard" or state.to_act() != (seat,):
            continue
        held, chances = _chances(state, seat)
        for _ in range(3):
            assert _chances(reshuffled(state, seat, rng), seat) == (held, chances)
        checked += 1
    assert checked >= 10


def test_held_chances_add_up_to_the_hidden_cards_and_vary_by_card() -> None:
    for state, seat in random_positions(seed=1801, count=40):
        if state.phase != "discard" or state.to_act() != (seat,):
            continue
        view = player_view(state, seat)
        know = knowledge.read(view)
        held = feed_model.table(view, know).held
        unseen = [held[i] for i in knowledge.bits(know.unseen)]
        assert all(0.0 <= p <= 1.0 for p in held)
        assert abs(sum(unseen) - know.hidden_count) < 0.5  # capped at 1, so near, not exact
        assert max(unseen) - min(unseen) > 0.05  # learned, not the flat base rate


def _know(mine: list[str], known: list[str], pile: list[str]) -> Knowledge:
    mine_mask, known_mask, pile_mask = to_mask(mine), to_mask(known), to_mask(pile)
    return Knowledge(
        mine=mine_mask,
        pile=pile_mask,
        opponent_known=known_mask,
        unseen=knowledge.ALL_CARDS & ~mine_mask & ~known_mask & ~pile_mask,
        hidden_count=10 - len(known),
        stock_size=20,
        opponent_threw=0,
        opponent_passed=0,
        opponent_took=known_mask,
        knock_limit=10,
    )


def test_a_card_that_joins_a_known_pair_is_near_certain_to_meld_and_a_dead_one_is_not() -> None:
    mine = ["7H", "KC", "KD", "KH", "2S", "3C", "9D", "TD", "4S", "JS", "QC"]
    know = _know(mine, ["7C", "7D"], ["AS", "QS", "QH"])
    table = feed_model.table_of(know, -1)
    joins_known = feed_model.chance(feed_model.features(table, CARD_INDEX["7H"], 0.9))
    # KC: the other kings are mine, and QC KC's run needs JC QC (QC is mine)
    dead = feed_model.chance(feed_model.features(table, CARD_INDEX["KC"], 0.0))
    assert joins_known > 0.9
    assert dead < 0.05


@pytest.mark.parametrize(
    "setting", ["hard.FEED_MODEL=1", "hard.FEED_REWEIGHT=1", "hard.CHOICE_PRICE=3.28"]
)
def test_hard_with_the_learned_feed_still_ignores_hidden_cards(setting: str) -> None:
    rng = random.Random(19)
    checked = 0
    with overridden([setting]):
        for state, seat in random_positions(seed=1802, count=40):
            if state.phase != "discard":
                continue
            view = player_view(state, seat)
            expected = choose("hard", view, seed="h", time_budget_ms=60_000)
            for _ in range(2):
                other = reshuffled(state, seat, rng)
                again = choose("hard", player_view(other, seat), seed="h", time_budget_ms=60_000)
                assert again == expected
            checked += 1
    assert checked >= 5
