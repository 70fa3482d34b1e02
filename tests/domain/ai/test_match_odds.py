"""The match-win table, and hard's knock-or-hold choice priced in it near the target."""

from __future__ import annotations

import msgspec
import pytest

from domain.ai import choose, hard, match_odds
from domain.commands import Discard, Knock, TakeUpCard
from domain.state import MatchState
from domain.views import player_view
from tests.domain.builders import new_hand, play


def test_the_table_is_the_recursion_over_hands_on_a_tiny_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every hand worth 1 or 2 points alike, first to 3: worked out by hand from
    # W(a, b) = ¼·(W(a+1, b) + W(a, b+1) + W(a+2, b) + W(a, b+2)).
    monkeypatch.setattr(match_odds, "HAND_POINTS", ((1, 1), (2, 1)))
    match_odds.table.cache_clear()
    try:
        w22 = 0.5
        w21 = (1 + w22 + 1 + 0) / 4  # 2-1: +1 or +2 wins; +1 for them ties, +2 loses
        w12 = 1 - w21
        w11 = (w21 + w12 + 1 + 0) / 4
        w20 = (1 + w21 + 1 + w22) / 4
        assert match_odds.win_chance(3, 2, 2) == pytest.approx(w22)
        assert match_odds.win_chance(3, 2, 1) == pytest.approx(w21)
        assert match_odds.win_chance(3, 1, 1) == pytest.approx(w11)
        assert match_odds.win_chance(3, 2, 0) == pytest.approx(w20)
    finally:
        match_odds.table.cache_clear()


def test_the_committed_table_is_fair_at_even_scores_and_rises_with_ones_own() -> None:
    w = match_odds.win_chance
    for mine in range(0, 100, 7):
        for theirs in range(0, 100, 11):
            assert w(100, mine, theirs) + w(100, theirs, mine) == pytest.approx(1.0)
            if mine < 99:
                assert w(100, mine + 1, theirs) >= w(100, mine, theirs)
    assert w(100, 0, 0) == pytest.approx(0.5)
    assert w(100, 95, 0) > 0.9 > 0.1 > w(100, 0, 95)
    assert w(100, 100, 99) == 1.0 and w(100, 99, 100) == 0.0


def _knock_position(scores: tuple[int, int]) -> MatchState:
    # Seat 0 takes the 2H up-card: throwing 3S leaves three twos, three queens, 4H-5H-6H
    # and AS, a knock with 1 on the first turn with the whole stock to come, where the
    # points favour holding on (for the opponent to knock into an undercut, or for gin).
    state = new_hand(
        dealer=1,
        non_dealer_hand="AS 2S 3S 4H 5H 6H QS QD QC 2D",
        dealer_hand="9C TC JC 5D 5S 5C JH JD KS 3C",
        up_card="2H",
    )
    state, _ = play(state, TakeUpCard(0))
    return msgspec.structs.replace(state, scores=scores)


def _choices(state: MatchState, aware: bool, monkeypatch: pytest.MonkeyPatch) -> set[type]:
    monkeypatch.setattr(hard, "SCORE_AWARE", aware)
    view = player_view(state, 0)
    assert any(isinstance(command, Knock) for command in view.legal)
    return {type(choose("hard", view, seed=seed)) for seed in range(4)}


def test_at_95_to_0_hard_takes_the_safe_knock_the_points_maximiser_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = _knock_position((95, 0))
    assert _choices(state, False, monkeypatch) == {Discard}  # holds, for undercut or gin
    assert _choices(state, True, monkeypatch) == {Knock}  # a knock wins the match


def test_far_from_the_target_the_score_changes_nothing_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for scores in ((0, 0), (0, 95)):  # early, or far behind: holding for more is right
        state = _knock_position(scores)
        assert _choices(state, True, monkeypatch) == _choices(state, False, monkeypatch)
        assert _choices(state, True, monkeypatch) == {Discard}


def test_rules_where_the_boxes_decide_keep_the_points() -> None:
    view = player_view(_knock_position((95, 0)), 0)
    assert match_odds.worth(view) is not None
    classic = msgspec.structs.replace(
        view, rules=msgspec.structs.replace(view.rules, winner_by="highest_total")
    )
    assert match_odds.worth(classic) is None
    assert match_odds.worth(view)(0) == 0.0  # a wash changes nothing
    assert match_odds.worth(view)(5) > match_odds.worth(view)(1) > 0 > match_odds.worth(view)(-5)
