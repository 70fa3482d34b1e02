"""Duplicate tournaments between two AI levels, with confidence intervals.

Every deal is played twice with the seats swapped (same deck, same dealer seat), so
the luck of the cards cancels and what remains is skill. The unit of every
confidence interval is one deal, i.e. the pair of games, because the two games of
a pair are strongly correlated.

    python -m benchmarks.tournament --a hard --b medium --deals 200 --seed 1
    python -m benchmarks.tournament --a medium --b easy --deals 100 --matches --workers 2
    python -m benchmarks.tournament --a medium --b medium --set-a medium.TAKE_UNMELDED_SAVING=7
"""

from __future__ import annotations

import argparse
import importlib
import math
import multiprocessing
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import NamedTuple

from tqdm import tqdm

from domain.ai import LEVELS, choose
from domain.ai.clock import cap_hits
from domain.commands import AnySeatCommand, NextHand, StartMatch
from domain.deck import deal_salt, deck_commitment, seed_commitment, shuffled_deck
from domain.events import Dealt, HandScored, HandWashed, MatchStarted
from domain.match import apply, evolve
from domain.rules import PRESETS, Rules, knock_limit_for
from domain.state import MatchState
from domain.views import PlayerView, player_view


@dataclass
class Side:
    """What one player did in one game."""

    points: int = 0  # hand points won
    hands_won: int = 0
    gins: int = 0
    knocks: int = 0  # plain knocks made
    undercut: int = 0  # of its knocks, how many were undercut
    undercuts_made: int = 0
    think_ms: list[float] = field(default_factory=list)
    cap_hits: int = 0  # decisions the time cap cut short (each one may differ between runs)


@dataclass
class Game:
    """One game (a hand or a match) from the point of view of players A and B."""

    a: Side
    b: Side
    hands: int
    washes: int
    a_won_match: float  # 1, 0 (hands mode: 1 if A won the hand, 0.5 for a wash)


def hand_state(
    seed: str,
    dealer: int,
    players: tuple[str, str],
    rules_name: str,
    *,
    rules: Rules | None = None,
) -> MatchState:
    """A one-hand game dealt from ``seed``, ``dealer`` to deal, as every tournament deal starts.

    ``rules`` replaces the preset (a study of one rule's parameter).
    """
    rules = PRESETS[rules_name] if rules is None else rules
    state = evolve(
        None,
        MatchStarted(
            match_id=f"t-{seed}",
            players=players,
            rules=rules,
            seed_commitment=seed_commitment(seed),
            seed=seed,
        ),
    )
    deck = shuffled_deck(seed, 1)
    salt = deal_salt(seed, 1)
    dealt = Dealt(
        hand_number=1,
        dealer=dealer,
        up_card=deck[20],
        knock_limit=knock_limit_for(rules, deck[20]),
        commitment=deck_commitment(deck, salt),
        deck=deck,
        salt=salt,
    )
    return evolve(state, dealt)


def hard_deals(
    opponent_level: str, seed: str, deals: int, rules_name: str
) -> Iterator[tuple[int, tuple[str, str], str, MatchState]]:
    """Each deal twice, hard in seat 0 then seat 1, as the studies replay the tournament's deals.

    Yields hard's seat, both seats' levels, the game seed, and the freshly dealt state.
    """
    for index in range(deals):
        game_seed = f"{seed}:{index}"
        for hard_seat in (0, 1):
            levels = ("hard", opponent_level) if hard_seat == 0 else (opponent_level, "hard")
            yield hard_seat, levels, game_seed, hand_state(game_seed, index % 2, levels, rules_name)


Watcher = Callable[[MatchState, PlayerView, AnySeatCommand], None]


def play_hand(
    state: MatchState, levels: tuple[str, str], game_seed: str, watch: Watcher | None = None
) -> MatchState:
    """The hand from ``state`` played to its end as a tournament game plays it (for studies).

    ``watch`` sees each move before it is made: the state, the mover's view, its command.
    """
    while state.phase not in ("hand_over", "match_over"):
        seat = state.to_act()[0]
        view = player_view(state, seat)
        command = choose(levels[seat], view, f"{game_seed}:{seat}")  # type: ignore[arg-type]
        if watch is not None:
            watch(state, view, command)
        state, _ = apply(state, command)
    return state


def _record(result: HandScored | HandWashed, sides: tuple[Side, Side]) -> None:
    if isinstance(result, HandWashed):
        return
    winner = sides[result.winner]
    winner.points += result.points
    winner.hands_won += 1
    knocker = sides[result.knocker]
    if result.outcome in ("gin", "big_gin"):
        knocker.gins += 1
    else:
        knocker.knocks += 1
        if result.outcome == "undercut":
            knocker.undercut += 1
            sides[1 - result.knocker].undercuts_made += 1


@contextmanager
def overridden(overrides: Iterable[str]) -> Iterator[None]:
    """``module.NAME=value`` sets a tuning constant of ``domain.ai.module`` (for tuning
    runs) for the ``with`` block; the old values are put back after it, last first."""
    saved: list[tuple[ModuleType, str, object]] = []
    try:
        for item in overrides:
            target, _, raw = item.partition("=")
            module_name, _, name = target.rpartition(".")
            module = importlib.import_module(f"domain.ai.{module_name}")
            if not hasattr(module, name):
                raise SystemExit(f"domain.ai.{module_name} has no constant {name}")
            current = getattr(module, name)
            value = (
                raw.lower() in ("1", "true", "yes")
                if isinstance(current, bool)
                else type(current)(raw)
            )
            saved.append((module, name, current))
            setattr(module, name, value)
        yield
    finally:
        for module, name, current in reversed(saved):
            setattr(module, name, current)


class Job(NamedTuple):
    """One game to play (picklable, for the worker processes)."""

    level_a: str
    level_b: str
    seed: str
    index: int  # the deal's number: the game seed is ``seed:index``
    dealer: int  # the dealer of a one-hand game; -1 plays whole matches
    swapped: bool  # A sits in seat 1
    rules_name: str
    budget: float | None  # hard's time cap in ms
    overrides: tuple[str, ...] = ()  # tuning constants for every player (``--set``)
    a_overrides: tuple[str, ...] = ()  # ...and for player A alone (``--set-a``)


def play_game(job: Job) -> Game:
    """Play one game; ``swapped`` puts A in seat 1. Its overrides end with it."""
    with overridden(job.overrides):
        return _play(job)


def _play(job: Job) -> Game:
    level_a, level_b, seed, index, dealer, swapped, rules_name, budget, _, a_only = job
    levels = (level_b, level_a) if swapped else (level_a, level_b)
    a, b = Side(), Side()
    sides = (b, a) if swapped else (a, b)
    game_seed = f"{seed}:{index}"
    matches = dealer < 0
    if matches:
        start = StartMatch(
            match_id=f"t-{game_seed}",
            players=levels,
            rules=PRESETS[rules_name],
            seed=game_seed,
        )
        state, _ = apply(None, start)
    else:
        state = hand_state(game_seed, dealer, levels, rules_name)
    hands = washes = 0
    while True:
        if state.phase == "hand_over":
            result = state.last_result
            assert result is not None
            _record(result, sides)
            hands += 1
            washes += isinstance(result, HandWashed)
            if not matches:
                break
            state, _ = apply(apply(state, NextHand(0))[0], NextHand(1))
            continue
        if state.phase == "match_over":
            break
        seat = state.to_act()[0]
        view = player_view(state, seat)
        with overridden(a_only if sides[seat] is a else ()):
            hits = cap_hits()
            began = time.perf_counter()
            command = choose(levels[seat], view, f"{game_seed}:{seat}", time_budget_ms=budget)  # type: ignore[arg-type]
            sides[seat].think_ms.append((time.perf_counter() - began) * 1000)
            sides[seat].cap_hits += cap_hits() - hits
        state, _ = apply(state, command)
        if state.settlement is not None:  # a big enough hand ends even a one-hand game
            last = state.last_result
            assert last is not None
            _record(last, sides)
            hands += 1
            break
    if matches:
        assert state.settlement is not None
        won = 1.0 if sides[state.settlement.winner] is a else 0.0
    else:
        won = 0.5 if a.hands_won == b.hands_won else float(a.hands_won > b.hands_won)
    return Game(a, b, hands, washes, won)


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def _percentiles(samples: list[float]) -> str:
    if not samples:
        return "no decisions"
    ordered = sorted(samples)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (
        f"p50 {at(0.5):.2f} ms, p95 {at(0.95):.2f} ms, p99 {at(0.99):.2f} ms, "
        f"max {ordered[-1]:.2f} ms over {len(ordered)} decisions"
    )


def _jobs(opts: argparse.Namespace) -> Iterator[Job]:
    for index in range(opts.deals):
        dealer = -1 if opts.matches else index % 2
        for swapped in (False, True):
            yield Job(
                opts.a,
                opts.b,
                str(opts.seed),
                index,
                dealer,
                swapped,
                opts.rules,
                opts.budget_ms,
                tuple(opts.set),
                tuple(opts.set_a),
            )


def report(opts: argparse.Namespace, games: list[Game], seconds: float) -> str:
    pairs = [games[i : i + 2] for i in range(0, len(games), 2)]
    unit = "match" if opts.matches else "hand"
    lines = [
        f"{opts.a} (A) vs {opts.b} (B): {len(pairs)} duplicate deals, {len(games)} {unit}es"
        if opts.matches
        else f"{opts.a} (A) vs {opts.b} (B): {len(pairs)} duplicate deals, {len(games)} hands",
        f"rules {opts.rules}, seed {opts.seed}, budget {opts.budget_ms} ms, overrides {opts.set}, A only {opts.set_a}, "
        f"{seconds:.0f} s on {platform.machine()} {platform.python_implementation()} "
        f"{platform.python_version()}",
    ]
    wins = [statistics.fmean(g.a_won_match for g in pair) for pair in pairs]
    mean, half = mean_ci(wins)
    label = "match win rate" if opts.matches else "hand win rate (wash = half)"
    lines.append(
        f"A {label}: {mean:.1%} ± {half:.1%} (95% CI {mean - half:.1%} to {mean + half:.1%})"
    )
    hands = sum(g.hands for g in games)
    a_hands = sum(g.a.hands_won for g in games)
    b_hands = sum(g.b.hands_won for g in games)
    decided = a_hands + b_hands
    lines.append(
        f"hands: {hands} played, {sum(g.washes for g in games)} washed; A won {a_hands}, "
        f"B won {b_hands} ({a_hands / max(decided, 1):.1%} of decided hands)"
    )
    net = [
        sum(g.a.points - g.b.points for g in pair) / max(sum(g.hands for g in pair), 1)
        for pair in pairs
    ]
    mean, half = mean_ci(net)
    lines.append(
        f"A's net points per hand: {mean:+.2f} ± {half:.2f} (95% CI {mean - half:+.2f} to {mean + half:+.2f})"
    )
    for name, pick in (("A", lambda g: g.a), ("B", lambda g: g.b)):
        sides = [pick(g) for g in games]
        knocks = sum(s.knocks for s in sides)
        level = opts.a if name == "A" else opts.b
        lines.append(
            f"{name} {level}: {sum(s.points for s in sides) / max(hands, 1):.2f} points/hand, "
            f"gin {sum(s.gins for s in sides) / max(hands, 1):.1%} of hands, "
            f"knocks {knocks / max(hands, 1):.1%} of hands, undercut on "
            f"{sum(s.undercut for s in sides) / max(knocks, 1):.1%} of its knocks, "
            f"undercuts made {sum(s.undercuts_made for s in sides) / max(hands, 1):.1%} of hands"
        )
        lines.append(
            f"  think time: {_percentiles([t for s in sides for t in s.think_ms])}; "
            f"time cap reached {sum(s.cap_hits for s in sides)} times"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", choices=LEVELS, required=True)
    parser.add_argument("--b", choices=LEVELS, required=True)
    parser.add_argument("--deals", type=int, default=100, help="deals, each played twice")
    parser.add_argument("--seed", default="1")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--hands", action="store_true", help="one hand per game (default)")
    mode.add_argument("--matches", action="store_true", help="whole matches to the target")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="arcadia")
    parser.add_argument("--budget-ms", type=float, default=None, help="hard level's time cap")
    parser.add_argument("--workers", type=int, default=1, help="processes (at most 2 here)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="tuning only: override a constant of domain.ai.MODULE for every player",
    )
    parser.add_argument(
        "--set-a",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="the same for player A alone (a level against a variant of itself)",
    )
    opts = parser.parse_args(argv)
    jobs = list(_jobs(opts))
    began = time.perf_counter()
    progress = tqdm(total=len(jobs), unit="match" if opts.matches else "hand", file=sys.stderr)
    games: list[Game] = []
    if opts.workers > 1:
        with multiprocessing.Pool(min(opts.workers, 2)) as pool:
            for game in pool.imap(play_game, jobs, chunksize=2):
                games.append(game)
                progress.update()
    else:
        for job in jobs:
            games.append(play_game(job))
            progress.update()
    progress.close()
    print(report(opts, games, time.perf_counter() - began))


if __name__ == "__main__":
    main()
