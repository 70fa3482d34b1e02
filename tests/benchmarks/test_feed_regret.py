"""The feed-regret study scores guess models against the real hand, and only that."""

from __future__ import annotations

import pytest

from benchmarks import feed_regret
from domain.ai.opponent import Guess
from domain.cards import to_mask


@pytest.fixture(scope="module")
def decisions() -> list[feed_regret.Decision]:
    return feed_regret.record("medium", "study", 2, "arcadia")


def test_it_records_hard_s_discard_views_with_the_opponent_s_real_hand(
    decisions: list[feed_regret.Decision],
) -> None:
    assert len(decisions) > 10
    for d in decisions:
        assert d.view.phase == "discard"
        assert len(d.view.hand) == 11
        assert d.truth.bit_count() == d.view.opponent_card_count
        assert not d.truth & to_mask(d.view.hand)  # the real hand is the other seat's


def test_guessing_the_real_hand_has_no_regret_and_no_guess_has_less(
    decisions: list[feed_regret.Decision],
) -> None:
    outcomes = [feed_regret.judge(d, [Guess(d.truth, 1.0)]) for d in decisions]
    assert all(o.regret == pytest.approx(0.0) for o in outcomes)
    current = feed_regret.judge_all(decisions, [])
    assert all(o.regret >= -1e-9 and o.blind_regret >= -1e-9 for o in current)
    assert any(o.blind_regret > 0 for o in current)  # pricing no feed does cost something


def test_judging_is_repeatable_and_an_override_lasts_only_its_run(
    decisions: list[feed_regret.Decision],
) -> None:
    current = feed_regret.judge_all(decisions, [])
    assert feed_regret.judge_all(decisions, []) == current  # deterministic
    few = feed_regret.judge_all(decisions, ["hard.GUESSES=2"])
    assert few != current
    assert feed_regret.judge_all(decisions, []) == current  # the override was undone
