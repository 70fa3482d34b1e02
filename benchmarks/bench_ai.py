"""How long each AI level thinks: decision-time distributions over real positions.

    python -m benchmarks ai                      # or: python -m benchmarks.bench_ai
    python -m benchmarks.bench_ai --matches 6 --budget-ms 150

Positions come from whole matches of hard against medium (so they are the
positions these players really meet, every phase included); every level then
decides every position where it has a real choice (more than one legal command),
and each call is timed once, wall clock, as the server would pay it.
Targets (issue 3): easy and medium under 5 ms at the median; hard under 150 ms at
the 95th percentile and never over 1 s.
"""

from __future__ import annotations

import argparse
import platform
import time

from domain.ai import LEVELS, choose
from domain.commands import NextHand, StartMatch
from domain.match import apply
from domain.rules import make_rules
from domain.views import PlayerView, player_view


def positions(matches: int) -> list[PlayerView]:
    """Every view with a real choice met in ``matches`` matches of hard against medium."""
    views: list[PlayerView] = []
    for number in range(matches):
        levels = ("hard", "medium") if number % 2 == 0 else ("medium", "hard")
        start = StartMatch(
            match_id=f"bench-{number}",
            players=levels,
            rules=make_rules(),
            seed=f"bench-{number}",
        )
        state, _ = apply(None, start)
        while state.settlement is None:
            if state.phase == "hand_over":
                state, _ = apply(apply(state, NextHand(0))[0], NextHand(1))
                continue
            seat = state.to_act()[0]
            view = player_view(state, seat)
            if len(view.legal) > 1:
                views.append(view)
            state, _ = apply(state, choose(levels[seat], view, seed=number))  # type: ignore[arg-type]
    return views


def _at(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description="AI decision times per level")
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--budget-ms", type=float, default=None, help="hard level's cap")
    opts = parser.parse_args()
    views = positions(opts.matches)
    print(
        f"{len(views)} positions with a choice, from {opts.matches} matches of hard vs medium; "
        f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}, "
        f"hard budget {opts.budget_ms or 'default'} ms\n"
    )
    print("| level | phase | decisions | median ms | p95 ms | p99 ms | max ms |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for level in LEVELS:
        by_phase: dict[str, list[float]] = {}
        for view in views:
            began = time.perf_counter()
            choose(level, view, seed=1, time_budget_ms=opts.budget_ms)
            by_phase.setdefault(view.phase, []).append((time.perf_counter() - began) * 1000)
        every = [t for times in by_phase.values() for t in times]
        for phase, times in [*sorted(by_phase.items()), ("all", every)]:
            ordered = sorted(times)
            print(
                f"| {level} | {phase} | {len(ordered)} | {_at(ordered, 0.5):.2f} | "
                f"{_at(ordered, 0.95):.2f} | {_at(ordered, 0.99):.2f} | {ordered[-1]:.2f} |"
            )


if __name__ == "__main__":
    main()
