"""The one entry point: pick a level's player and give it a private, seeded RNG."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Literal

from domain.ai import baseline, easy, hard, medium
from domain.commands import AnySeatCommand
from domain.views import PlayerView

Level = Literal["random", "easy", "medium", "hard", "baseline"]
LEVELS: tuple[Level, ...] = ("random", "easy", "medium", "hard", "baseline")

Player = Callable[[PlayerView, random.Random, float | None], AnySeatCommand]


def _random(view: PlayerView, rng: random.Random, budget_ms: float | None) -> AnySeatCommand:
    """The baseline every level must beat: a uniformly random legal command."""
    return rng.choice(view.legal)


_PLAYERS: dict[str, Player] = {
    "random": _random,
    "baseline": baseline.play,
    "easy": easy.play,
    "medium": medium.play,
    "hard": hard.play,
}


def seeded_rng(level: str, view: PlayerView, seed: int | str) -> random.Random:
    """A private RNG fixed by the seed and what the seat sees now, never by the clock.

    It mixes in only public or own-seat facts (version, hand number, own cards), so two
    states that give the seat the same view give the AI the same RNG.
    """
    key = f"{level}|{seed}|{view.hand_number}|{view.version}|{''.join(view.hand)}"
    return random.Random(key)


def choose(
    level: Level, view: PlayerView, seed: int | str, *, time_budget_ms: float | None = None
) -> AnySeatCommand:
    """The command the AI at ``level`` makes in this view; always one of ``view.legal``.

    ``time_budget_ms`` caps the hard level's thinking (it samples less when short of
    time); the other levels are fast regardless.
    """
    if level not in _PLAYERS:
        raise ValueError(f"unknown AI level {level!r}; choose one of {', '.join(LEVELS)}")
    if not view.legal:
        raise ValueError(f"seat {view.seat} has nothing to do in the {view.phase} phase")
    if len(view.legal) == 1:
        return view.legal[0]
    command = _PLAYERS[level](view, seeded_rng(level, view, seed), time_budget_ms)
    if command not in view.legal:
        raise AssertionError(f"AI {level} chose an illegal command {command!r}")
    return command
