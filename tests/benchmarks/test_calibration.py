"""The calibration study logs hard's predictions beside the real hand's, and changes no play."""

from __future__ import annotations

from dataclasses import replace

from benchmarks import calibration, tournament
from benchmarks.tournament import Game, Job, play_game
from domain.ai import hard


def test_predictions_are_logged_beside_the_truth_and_the_patches_are_undone() -> None:
    functions = (tournament.player_view, hard.knock_value, hard.hold_value)
    cal = calibration.record("baseline", "calibration-test", 3)
    assert (tournament.player_view, hard.knock_value, hard.hold_value) == functions
    assert cal.knocks and cal.holds
    for k in cal.knocks:
        assert 0.0 <= k.predicted_undercut <= 1.0
        assert k.points != 0  # a knock is either won or undercut
    for h in cal.holds:
        assert 0.0 <= h.predicted <= 1.0 and 0.0 <= h.actual <= 1.0
    lines = calibration.report(cal)
    assert lines[0].startswith("knock points") and any("undercut" in line for line in lines)


def test_watching_changes_no_game() -> None:
    job = Job("hard", "baseline", "calibration-test", 0, 0, False, "arcadia", None, ())
    plain = play_game(job)
    with calibration._watching(calibration.Calibration()):
        watched = play_game(job)
    assert _played(watched) == _played(plain)


def _played(game: Game) -> Game:
    """The game without its think times (the clock differs, the play must not)."""
    return replace(game, a=replace(game.a, think_ms=[]), b=replace(game.b, think_ms=[]))
