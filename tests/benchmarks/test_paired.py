"""The tournament's duplicate deals cancel luck, and paired runs compare on the same deals."""

from __future__ import annotations

import pytest

from benchmarks import paired
from benchmarks.tournament import play_game


def test_one_level_against_itself_nets_exactly_zero_on_every_duplicate_deal() -> None:
    games = [
        play_game(("medium", "medium", "dup", index, index % 2, swapped, "arcadia", None, ()))
        for index in range(6)
        for swapped in (False, True)
    ]
    assert any(g.a.points != g.b.points for g in games)  # single games are not ties...
    assert paired.net_per_deal(games) == [0.0] * 6  # ...but each seat-swapped pair cancels


def test_a_variant_identical_to_its_baseline_differs_by_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    paired.main(["--a", "medium", "--b", "easy", "--seeds", "7", "--deals", "4", "--workers", "1"])
    out = capsys.readouterr().out
    assert "paired difference: +0.000 ± 0.000 points per hand over 4 deals" in out


def test_a_changed_constant_changes_the_games() -> None:
    def net(overrides: tuple[str, ...]) -> list[float]:
        games = [
            play_game(("medium", "easy", "chg", i, i % 2, s, "arcadia", None, overrides))
            for i in range(8)
            for s in (False, True)
        ]
        return paired.net_per_deal(games)

    assert net(("medium.HOLD_FOR_GIN_DEADWOOD=10",)) != net(())
