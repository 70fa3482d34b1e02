"""The discard play-out study labels hard's leading discards by real play, and fits them."""

from __future__ import annotations

import random

import msgspec
import pytest

from benchmarks import discard_rollouts
from benchmarks.discard_rollouts import Decision, Job
from benchmarks.tournament import hand_state
from domain.ai import discard_fit


@pytest.fixture(scope="module")
def recorded() -> list[dict[str, object]]:
    out = []
    for seat in (0, 1):
        out += discard_rollouts.record_game(Job("study", 0, seat, "baseline", 3, 3, (8,), False))
    return out


def test_hards_own_pick_is_the_first_candidate(recorded: list[dict[str, object]]) -> None:
    assert recorded
    for d in recorded:
        options = d["options"]
        assert isinstance(options, list) and 2 <= len(options) <= 3
        assert d["picked"] == options[0]
        scores = [row[0] for row in d["features"]]  # type: ignore[attr-defined]
        assert scores == sorted(scores)  # best-scored first, as hard ranks them


def test_a_play_out_deals_only_the_stock_again() -> None:
    state = hand_state("study:0", 0, ("hard", "baseline"), "arcadia")
    again = discard_rollouts.restocked(state, "r")
    assert state.hand is not None and again.hand is not None
    assert again.hand.stock != state.hand.stock
    assert sorted(again.hand.stock) == sorted(state.hand.stock)
    assert msgspec.structs.replace(again.hand, stock=state.hand.stock) == state.hand
    assert discard_rollouts.restocked(state, "r") == again  # repeatable: paired candidates


def test_play_outs_are_repeatable(recorded: list[dict[str, object]]) -> None:
    worths = [w for d in recorded for w in d["worths"]]  # type: ignore[attr-defined]
    assert all(len(w) == 3 for w in worths)
    again = discard_rollouts.record_game(Job("study", 0, 0, "baseline", 3, 3, (8,), False))
    assert [d["worths"] for d in again] == [d["worths"] for d in recorded if d["seat"] == 0]


def test_the_fit_recovers_a_planted_worth() -> None:
    rng = random.Random(7)
    planted = [0.0] * len(discard_fit.NAMES)
    planted[discard_fit.NAMES.index("left")] = -1.0
    planted[discard_fit.NAMES.index("feed*stock")] = 0.5
    decisions = []
    for n in range(400):
        rows = [[rng.uniform(0, 20) for _ in range(9)] for _ in range(3)]
        worths = [[round(discard_fit.worth(r, planted) * 100)] for r in rows]
        decisions.append(Decision(f"s:{n}", rows, worths))
    fitted = discard_rollouts.fit(decisions, l2=1e-6)
    assert fitted == pytest.approx([100 * w for w in planted], abs=0.5)
    gains, changed = discard_rollouts.picks_gain(decisions, fitted)
    assert changed > 0 and min(gains) >= 0  # it picks the best-worth candidate every time


def test_changed_only_plays_out_hards_pick_and_the_fitted_one_with_each_guess_count(
    recorded: list[dict[str, object]],
) -> None:
    changed = []
    for seat in (0, 1):
        job = Job("study", 0, seat, "baseline", 3, 2, (8, 4), True)
        changed += discard_rollouts.record_game(job)
    expected = []
    for d in recorded:
        rows = d["features"]
        fitted = max(range(len(rows)), key=lambda k: discard_fit.worth(rows[k]))  # type: ignore[arg-type, index]
        if fitted != 0:
            expected.append((d["seed"], d["seat"], [d["options"][0], d["options"][fitted]]))  # type: ignore[index]
    assert expected  # the fit disagrees with hard somewhere in this deal
    assert [(d["seed"], d["seat"], d["options"]) for d in changed] == expected
    for d in changed:
        by = d["worths_by_guesses"]
        assert set(by) == {"8", "4"} and d["worths"] == by["8"]  # type: ignore[index, operator]
        assert d["changed_only"] is True  # compare-guesses reads only such rows
        assert all(len(w) == 2 for ws in by.values() for w in ws)  # type: ignore[attr-defined]
