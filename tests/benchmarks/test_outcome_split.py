"""The outcome split accounts for every hand and point, and its diagnostic cheat is undone."""

from __future__ import annotations

from benchmarks import outcome_split, paired, tournament
from benchmarks.tournament import Job, play_game
from domain.ai import hard, opponent


def test_the_split_adds_up_to_the_tournaments_net_points() -> None:
    out = outcome_split.split("baseline", "split", 3, "arcadia")
    games = [
        play_game(Job("hard", "baseline", "split", i, i % 2, s, "arcadia", None))
        for i in range(3)
        for s in (False, True)
    ]
    assert out.hands == 6 == sum(out.count.values())
    per_deal = paired.net_per_deal(games)
    assert abs(out.net - sum(per_deal) / len(per_deal)) < 1e-9  # one hand a game: the same mean
    assert 0 <= out.fed <= out.discards and out.discards > 0


def test_a_revealed_run_plays_differently_and_leaves_hard_as_it_was() -> None:
    before = (opponent.guesses, hard.feed, hard._knock, tournament.player_view)
    honest = outcome_split.split("baseline", "split", 3, "arcadia")
    cheat = outcome_split.split("baseline", "split", 3, "arcadia", reveal="all")
    assert (opponent.guesses, hard.feed, hard._knock, tournament.player_view) == before
    assert (cheat.points, cheat.discards) != (honest.points, honest.discards)
    assert outcome_split.split("baseline", "split", 3, "arcadia").points == honest.points
