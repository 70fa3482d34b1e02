"""Paired tuning: a variant of the AI against a baseline, on the very same deals.

Two versions of hard (say) each play the same duplicate deals against the same
opponent; the difference of their net points per hand, deal by deal, has a far
smaller interval than either mean, because the luck of each deal cancels. This is
how every "paired difference" in ``RESULTS-ai.md`` was measured.

    python -m benchmarks.paired --set hard.DANGER_WEIGHT=0
    python -m benchmarks.paired --seeds 5,6,7,8 --set hard.PROMISE_EARLY=8
    python -m benchmarks.paired --baseline-file /tmp/base.json --set hard.GUESSES=96
    python -m benchmarks.paired --matches --b baseline --deals 200 --set hard.SCORE_AWARE=0

With ``--matches`` each deal is a whole match to the target (its seed fixes every
hand's deck), played twice with the seats swapped, and the run also reports A's
match win rate and its paired difference: a change that only matters near the
target leaves most matches exactly as they were, so the difference is far tighter
than two separate win rates.

With ``--baseline-file`` the baseline's results are saved on the first run and
read back by later runs on the same deals, which halves a tuning session; delete
the file whenever the baseline's own play changes.

``--reveal`` is a diagnostic that cheats, and is never part of the product: the
variant is told the opponent's real hand, everywhere (``all``) or only where it
prices what a discard feeds the opponent (``feed``), which measures how much better
guesses of the opponent's hand could be worth.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks import tournament
from benchmarks.tournament import Game, Job, mean_ci, play_game
from domain.ai import hard
from domain.ai.opponent import Guess
from domain.cards import to_mask
from domain.state import MatchState
from domain.views import PlayerView

_truth: dict[str, int] = {}


def _reveal(mode: str, weight: float = 1.0) -> None:
    """Patch this worker so hard sees the opponent's real hand (diagnostic only).

    In ``feed`` mode, ``weight`` below 1 prices a discard's feed at that share of the
    real hand's saving plus the rest of the guesses' estimate: a predictor between the
    guesses and the truth, to tell how good a meld predictor must be to pay.
    """
    real_view = tournament.player_view

    def view_and_remember(state: MatchState, seat: int) -> PlayerView:
        assert state.hand is not None
        _truth["hand"] = to_mask(state.hand.hands[1 - seat])
        return real_view(state, seat)

    tournament.player_view = view_and_remember
    if mode == "all":

        def real_hand(*_: Any, **__: Any) -> list[Guess]:
            return [Guess(_truth["hand"], 1.0)]

        hard.opponent.guesses = real_hand
    else:
        real_feed: Callable[[list[Guess], int], float] = hard.feed

        def feed_on_real_hand(hands: list[Guess], index: int) -> float:
            real = real_feed([Guess(_truth["hand"], 1.0)], index)
            if weight >= 1.0:
                return real
            return weight * real + (1.0 - weight) * real_feed(hands, index)

        hard.feed = feed_on_real_hand


def _play(job: tuple[Job, str | None, float]) -> Game:
    game_job, reveal, weight = job
    if reveal is not None and "hand" not in _truth:
        _truth["hand"] = 0
        _reveal(reveal, weight)
    return play_game(game_job)


def _jobs(opts: argparse.Namespace, overrides: list[str]) -> Iterator[Job]:
    for seed in opts.seeds.split(","):
        for index in range(opts.deals):
            for swapped in (False, True):
                yield Job(
                    opts.a,
                    opts.b,
                    seed,
                    index,
                    -1 if opts.matches else index % 2,
                    swapped,
                    opts.rules,
                    None,
                    tuple(overrides),
                )


def net_per_deal(games: list[Game]) -> list[float]:
    """A's net points per hand for each deal (the pair of games with seats swapped)."""
    pairs = [games[i : i + 2] for i in range(0, len(games), 2)]
    return [
        sum(g.a.points - g.b.points for g in pair) / max(sum(g.hands for g in pair), 1)
        for pair in pairs
    ]


def wins_per_deal(games: list[Game]) -> list[float]:
    """A's share of the two matches of each deal (1, 0.5 or 0; hands mode: hands won)."""
    return [(games[i].a_won_match + games[i + 1].a_won_match) / 2 for i in range(0, len(games), 2)]


Result = tuple[list[float], list[float]]  # per deal: A's net points a hand, A's win share


def _run(opts: argparse.Namespace, overrides: list[str], reveal: str | None) -> Result:
    weight = getattr(opts, "reveal_weight", 1.0)
    jobs = [(job, reveal, weight) for job in _jobs(opts, overrides)]
    if opts.workers > 1:
        # a fresh worker per run, so a revealed run's patches never leak into the other
        with multiprocessing.get_context("spawn").Pool(min(opts.workers, 2)) as pool:
            games = pool.map(_play, jobs, chunksize=4)
    elif reveal is not None:
        raise SystemExit("--reveal needs --workers 2 (it patches the worker processes)")
    else:
        games = [_play(job) for job in jobs]
    return net_per_deal(games), wins_per_deal(games)


def _line(label: str, values: list[float]) -> str:
    mean, half = mean_ci(values)
    return f"{label}: {mean:+.3f} ± {half:.3f} points per hand over {len(values)} deals"


def _win_line(label: str, values: list[float]) -> str:
    mean, half = mean_ci(values)
    return f"{label}: {mean:+.1%} ± {half:.1%} of matches won over {len(values)} deals"


def _baseline(opts: argparse.Namespace) -> Result:
    """The baseline's per-deal results, from ``--baseline-file`` when it was saved for these deals."""
    key = [opts.a, opts.b, opts.seeds, opts.deals, opts.rules, opts.base_set, opts.matches]
    path: Path | None = opts.baseline_file
    if path is not None and path.exists():
        saved = json.loads(path.read_text())
        if saved["key"] == key:
            return list(saved["net"]), list(saved["wins"])
    base = _run(opts, opts.base_set, None)
    if path is not None:
        path.write_text(json.dumps({"key": key, "net": base[0], "wins": base[1]}))
    return base


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", default="hard", help="the level being tuned")
    parser.add_argument("--b", default="medium", help="its opponent in both runs")
    parser.add_argument("--seeds", default="1,2,3,4")
    parser.add_argument("--deals", type=int, default=300, help="deals per seed, each played twice")
    parser.add_argument("--rules", default="arcadia")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--matches", action="store_true", help="whole matches, not single hands")
    parser.add_argument("--base-set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    parser.add_argument("--reveal", choices=("all", "feed"), help="diagnostic: cheat, see above")
    parser.add_argument(
        "--reveal-weight",
        type=float,
        default=1.0,
        help="with --reveal feed: the real hand's share of the feed price (the rest: the guesses')",
    )
    parser.add_argument(
        "--baseline-file",
        type=Path,
        help="reuse the baseline's per-deal results saved here (saved on first use); "
        "delete it whenever the baseline's play changes",
    )
    opts = parser.parse_args(argv)
    began = time.perf_counter()
    base, base_wins = _baseline(opts)
    variant, wins = _run(opts, opts.base_set + opts.set, opts.reveal)
    unit = "matches" if opts.matches else "hands"
    print(
        f"{opts.a} vs {opts.b}, seeds {opts.seeds}, {opts.deals} deals each ({unit}), "
        f"rules {opts.rules}"
    )
    print(_line(f"baseline {opts.base_set}", base))
    cheat = f"{opts.reveal}" + (f" x{opts.reveal_weight}" if opts.reveal_weight != 1.0 else "")
    print(_line(f"variant  {opts.set} reveal={cheat}", variant))
    print(_line("paired difference", [v - b for v, b in zip(variant, base, strict=True)]))
    if opts.matches:
        print(_win_line(f"baseline {opts.base_set}", base_wins))
        print(_win_line(f"variant  {opts.set}", wins))
        changed = sum(v != b for v, b in zip(wins, base_wins, strict=True))
        print(
            _win_line("paired difference", [v - b for v, b in zip(wins, base_wins, strict=True)])
            + f" ({changed} deals changed)"
        )
    print(f"{time.perf_counter() - began:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
