"""How many face-up cards real hands take, and whether any hand meets the no-progress rule.

Every pairing of the given levels (each with itself too) plays duplicate one-hand
deals, as the tournament does. By default the preset's own ``pile_draw_limit``
applies and the report counts the hands it washed (the target is none between house
AIs); ``--limit 1000`` sets the limit out of reach, which measures the natural
distribution the presets' limit was chosen from (docs/rules.md).

    python -m benchmarks.no_progress --levels baseline,easy,medium --deals 2000 --seed np-1
    python -m benchmarks.no_progress --levels hard,medium --only hard --deals 100 --limit 1000
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from msgspec.structs import replace

from benchmarks.tournament import hand_state, play_hand
from domain.events import HandWashed
from domain.rules import PRESETS


@dataclass
class Tally:
    """What the hands of one pairing did."""

    hands: int = 0
    no_progress: int = 0
    draws: Counter[int] = field(default_factory=Counter)

    def quantile(self, q: float) -> int:
        seen = 0
        for value in sorted(self.draws):
            seen += self.draws[value]
            if seen >= q * self.hands:
                return value
        return 0


def play_pairing(
    levels: tuple[str, str], seed: str, deals: int, rules_name: str, limit: int | None
) -> Tally:
    """``deals`` deals of ``levels[0]`` against ``levels[1]``, each played in both seatings."""
    tally = Tally()
    rules = PRESETS[rules_name]
    if limit is not None:
        rules = replace(rules, pile_draw_limit=limit)
    for index in range(deals):
        game_seed = f"{seed}:{index}"
        for players in (levels, (levels[1], levels[0])):
            state = hand_state(game_seed, index % 2, players, rules_name, rules=rules)
            state = play_hand(state, players, game_seed)
            assert state.hand is not None
            tally.hands += 1
            tally.draws[state.hand.pile_draws] += 1
            result = state.last_result
            tally.no_progress += isinstance(result, HandWashed) and result.reason == "no_progress"
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="baseline,easy,medium")
    parser.add_argument("--deals", type=int, default=500, help="deals per pairing, each twice")
    parser.add_argument("--seed", default="no-progress")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="arcadia")
    parser.add_argument("--limit", type=int, default=None, help="override the preset's limit")
    parser.add_argument("--only", default=None, help="only the pairings this level plays in")
    opts = parser.parse_args(argv)
    levels = opts.levels.split(",")
    limit = opts.limit or PRESETS[opts.rules].pile_draw_limit
    print(f"rules {opts.rules}, pile_draw_limit {limit}, seed {opts.seed}, {opts.deals} deals")
    every = Tally()
    for pair in itertools.combinations_with_replacement(levels, 2):
        if opts.only and opts.only not in pair:
            continue
        began = time.perf_counter()
        tally = play_pairing(
            pair, f"{opts.seed}:{pair[0]}:{pair[1]}", opts.deals, opts.rules, limit
        )
        every.hands += tally.hands
        every.no_progress += tally.no_progress
        every.draws.update(tally.draws)
        print(
            f"{pair[0]} vs {pair[1]}: {tally.hands} hands, face-up takes per hand "
            f"median {tally.quantile(0.5)}, p99.9 {tally.quantile(0.999)}, "
            f"max {max(tally.draws)}; no-progress washes {tally.no_progress} "
            f"({time.perf_counter() - began:.0f} s)",
            flush=True,
        )
    print(
        f"all: {every.hands} hands, max {max(every.draws)} face-up takes, "
        f"no-progress washes {every.no_progress}"
    )
    top = sorted(every.draws.items())[-5:]
    print("largest counts (takes: hands):", ", ".join(f"{k}: {v}" for k, v in top), file=sys.stdout)


if __name__ == "__main__":
    main()
