"""The spread of one hand's points between two levels (the input of ``domain.ai.match_odds``).

Plays duplicate one-hand deals, as the tournament does, and prints the share of hands
washed and the points of the rest as seen from A (positive: A won the hand), one line
per point value, as ``match_odds.HAND_POINTS`` holds them (unbinned), so its table of
match-win chances can be rebuilt from a run.

    python -m benchmarks.hand_outcomes --a hard --b baseline --deals 500 --seed s16-ms-hist
"""

from __future__ import annotations

import argparse
import collections

from benchmarks.tournament import hand_state, play_hand
from domain.events import HandScored
from domain.rules import PRESETS


def outcomes(a: str, b: str, seed: str, deals: int, rules: str) -> collections.Counter[int | None]:
    """A's points on each hand (None: washed), each deal played with A in both seats."""
    counts: collections.Counter[int | None] = collections.Counter()
    for index in range(deals):
        game_seed = f"{seed}:{index}"
        for a_seat in (0, 1):
            levels = (a, b) if a_seat == 0 else (b, a)
            state = play_hand(hand_state(game_seed, index % 2, levels, rules), levels, game_seed)
            result = state.last_result
            if isinstance(result, HandScored):
                counts[result.points if result.winner == a_seat else -result.points] += 1
            else:
                counts[None] += 1
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="hard")
    parser.add_argument("--b", default="baseline")
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--seed", default="s16-ms-hist")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="arcadia")
    opts = parser.parse_args(argv)
    counts = outcomes(opts.a, opts.b, opts.seed, opts.deals, opts.rules)
    total = sum(counts.values())
    print(f"{opts.a} vs {opts.b}, seed {opts.seed}, {total} hands, rules {opts.rules}")
    print(f"washed {counts[None] / total:.3f}")
    for points in sorted(p for p in counts if p is not None):
        print(f"{points:+d} {counts[points]}")


if __name__ == "__main__":
    main()
