"""Every level, in every phase, answers with one of the commands the engine offers."""

from __future__ import annotations

import pytest

from domain.ai import LEVELS, choose
from domain.views import player_view
from tests.domain.ai.positions import random_positions


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("rules", ["arcadia", "classic"])
def test_each_level_returns_only_legal_commands(level: str, rules: str) -> None:
    phases: set[str] = set()
    count = 120 if level == "hard" else 400
    for state, seat in random_positions(
        seed=LEVELS.index(level) * 10 + len(rules), count=count, rules=rules
    ):
        view = player_view(state, seat)
        command = choose(level, view, seed=7)  # type: ignore[arg-type]
        assert command in view.legal
        assert command.seat == seat
        phases.add(view.phase)
    assert {"up_card", "draw", "discard", "layoff", "hand_over"} <= phases


@pytest.mark.parametrize("level", LEVELS)
def test_same_view_and_seed_give_the_same_command(level: str) -> None:
    for state, seat in random_positions(seed=11, count=60):
        view = player_view(state, seat)
        assert choose(level, view, seed="s") == choose(level, view, seed="s")  # type: ignore[arg-type]
