"""The tournament's duplicate deals cancel luck, and paired runs compare on the same deals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import paired
from benchmarks.tournament import Job, play_game
from domain.ai import medium


def test_one_level_against_itself_nets_exactly_zero_on_every_duplicate_deal() -> None:
    games = [
        play_game(Job("medium", "medium", "dup", index, index % 2, swapped, "arcadia", None))
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
            play_game(Job("medium", "easy", "chg", i, i % 2, s, "arcadia", None, overrides))
            for i in range(8)
            for s in (False, True)
        ]
        return paired.net_per_deal(games)

    assert net(("medium.HOLD_FOR_GIN_DEADWOOD=10",)) != net(())


def test_a_saved_baseline_is_reused_only_for_the_same_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "baseline.json"
    args = ["--a", "medium", "--b", "easy", "--seeds", "7", "--workers", "1"]
    paired.main([*args, "--deals", "3", "--baseline-file", str(saved)])
    first = capsys.readouterr().out
    record = json.loads(saved.read_text())
    assert len(record["net"]) == 3
    record["net"] = [100.0, 100.0, 100.0]  # not what these deals give: shows it was read back
    saved.write_text(json.dumps(record))

    paired.main([*args, "--deals", "3", "--baseline-file", str(saved)])
    assert "baseline []: +100.000" in capsys.readouterr().out

    paired.main([*args, "--deals", "2", "--baseline-file", str(saved)])  # other deals: replayed
    again = capsys.readouterr().out
    assert "baseline []: +100.000" not in again
    assert "paired difference: +0.000 ± 0.000 points per hand over 2 deals" in again
    assert "paired difference: +0.000 ± 0.000 points per hand over 3 deals" in first


def test_an_override_for_a_alone_leaves_b_as_it_was() -> None:
    def games(a: str, b: str, everyone: tuple[str, ...], a_alone: tuple[str, ...]) -> list[float]:
        played = [
            play_game(Job(a, b, "side", i, i % 2, s, "arcadia", None, everyone, a_alone))
            for i in range(10)
            for s in (False, True)
        ]
        return paired.net_per_deal(played)

    literal = ("medium.TAKE_UNMELDED_SAVING=1",)  # issue 3's wording, not the default
    before = medium.TAKE_UNMELDED_SAVING
    # Easy never reads medium's constants: A alone or everyone, the same games...
    assert games("medium", "easy", (), literal) == games("medium", "easy", literal, ())
    assert games("medium", "easy", (), literal) != games("medium", "easy", (), ())
    # ...but medium against itself: changed for both seats, each pair still cancels;
    # changed for A alone, it does not.
    assert games("medium", "medium", literal, ()) == [0.0] * 10
    assert games("medium", "medium", (), literal) != [0.0] * 10
    assert before == medium.TAKE_UNMELDED_SAVING  # put back after every decision


def test_paired_matches_play_whole_matches_and_compare_the_wins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--a", "medium", "--b", "easy", "--seeds", "7", "--deals", "3", "--workers", "1"]
    paired.main([*args, "--matches"])
    out = capsys.readouterr().out
    assert "3 deals each (matches)" in out
    assert "paired difference: +0.0% ± 0.0% of matches won over 3 deals (0 deals changed)" in out

    games = [
        play_game(Job("medium", "easy", "7", i, -1, s, "arcadia", None))
        for i in range(3)
        for s in (False, True)
    ]
    assert all(g.hands > 1 for g in games)  # whole matches, not one hand each
    wins = paired.wins_per_deal(games)
    assert wins == [(games[i].a_won_match + games[i + 1].a_won_match) / 2 for i in (0, 2, 4)]
    assert f"baseline []: {sum(wins) / 3:+.1%}" in out  # the run played these very matches
