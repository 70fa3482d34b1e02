"""House AIs never swap the same cards for ever, so the no-progress rule never has to end their hands."""

from __future__ import annotations

import pytest

from benchmarks.no_progress import play_pairing
from benchmarks.tournament import hand_state, overridden, play_hand
from domain.ai import choose
from domain.commands import Discard, DrawDiscard, DrawStock, PassUpCard
from domain.events import HandWashed
from domain.views import player_view
from tests.domain.builders import new_hand, play

HAND = "AS 2S 3S 4H 5H 6H 7C 8C KD QH"  # 35 deadwood; a 9D for the KD would save a point


def test_medium_does_not_take_back_a_card_it_threw() -> None:
    state = new_hand(
        dealer=0,
        non_dealer_hand=HAND,
        dealer_hand="2C 3C 4C 9H TH JH 5D 6D 8D TS",
        up_card="KS",
        stock_top="9D 2H 7S",
    )
    # Seat 1 draws the 9D and throws it; seat 0 takes it, and throws it back a turn later.
    state, _ = play(state, PassUpCard(1), PassUpCard(0), DrawStock(1), Discard(1, "9D"))
    state, _ = play(state, DrawDiscard(0), Discard(0, "TS"), DrawStock(1), Discard(1, "2H"))
    state, _ = play(state, DrawStock(0), Discard(0, "9D"))
    view = player_view(state, 1)
    assert view.discard_pile[-1] == "9D"
    # Under the take rule that looped (any saving) only the no-retake rule declines it;
    # medium's own take rule (7 or more) would not take it either.
    with overridden(["medium.TAKE_UNMELDED_SAVING=1"]):
        assert choose("medium", view, seed=1) == DrawStock(1)
    with overridden(["medium.TAKE_UNMELDED_SAVING=1", "medium.RETAKE_OWN_DISCARD=1"]):
        assert choose("medium", view, seed=1) == DrawDiscard(1)
    assert choose("medium", view, seed=1) == DrawStock(1)


@pytest.mark.parametrize(
    ("seed", "dealer"), [("conf1:medium:medium:197", 1), ("conf1:medium:medium:362", 0)]
)
def test_the_deals_where_two_mediums_looped_now_end(seed: str, dealer: int) -> None:
    state = hand_state(seed, dealer, ("medium", "medium"), "arcadia")
    state = play_hand(state, ("medium", "medium"), seed)
    assert state.hand is not None and state.phase in ("hand_over", "match_over")
    limit = state.rules.pile_draw_limit
    assert limit is not None and state.hand.pile_draws < limit
    result = state.last_result
    assert not (isinstance(result, HandWashed) and result.reason == "no_progress")


@pytest.mark.parametrize(
    ("levels", "deals"),
    [
        (("baseline", "baseline"), 40),
        (("baseline", "easy"), 40),
        (("baseline", "medium"), 40),
        (("easy", "easy"), 40),
        (("easy", "medium"), 40),
        (("medium", "medium"), 60),
        (("hard", "medium"), 8),
        (("hard", "baseline"), 8),
        (("hard", "easy"), 8),
        (("hard", "hard"), 4),
    ],
)
def test_a_short_benchmark_run_never_meets_the_rule(levels: tuple[str, str], deals: int) -> None:
    """A slice of ``python -m benchmarks.no_progress`` (which reports 10,000 hands a pairing)."""
    tally = play_pairing(levels, "no-progress-test", deals, "arcadia", None)
    assert tally.hands == 2 * deals
    assert tally.no_progress == 0
    assert max(tally.draws) < 30  # far below the limit, not just under it
