"""Hard: placeholder until the tracking player lands."""

from __future__ import annotations

import random

from domain.ai import easy
from domain.commands import AnySeatCommand
from domain.views import PlayerView


def play(view: PlayerView, rng: random.Random, budget_ms: float | None) -> AnySeatCommand:
    return easy.play(view, rng, budget_ms)
