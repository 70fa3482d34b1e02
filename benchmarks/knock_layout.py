"""The knocker's layout: how often another least-deadwood layout exists, and what the
default pick (fewest live layoffs, from the knocker's knowledge) saves over the old
one (the first least-deadwood arrangement ``melds.arrange`` finds).

AI-vs-AI one-hand deals are played as the tournament plays them (each deal in both
seatings). At every plain knock the same position is scored twice, once under each
layout, with the defender laying off the best it can against it (``best_layoffs``, as
the house defenders do): the defender's layoff points, undercuts and the knocker's net
points under the old pick and under the new default, on the very same hands.

    python -m benchmarks.knock_layout --levels baseline,easy,medium --deals 1000 --seed kl-1
    python -m benchmarks.knock_layout --levels hard,medium,baseline --only hard --deals 100
"""

from __future__ import annotations

import argparse
import itertools
import platform
import time
from dataclasses import dataclass

from benchmarks.tournament import Watcher, hand_state, play_hand
from domain.cards import CARD_VALUE
from domain.commands import AnySeatCommand, Knock
from domain.knock_layout import knocker_knowledge, ordered_layouts
from domain.melds import Arrangement, arrange, best_layoffs
from domain.rules import PRESETS, Rules
from domain.scoring import score_hand
from domain.state import MatchState
from domain.views import PlayerView


@dataclass
class Tally:
    knocks: int = 0  # plain knocks (gin has no layoffs)
    several: int = 0  # knocks where another least-deadwood layout existed
    changed: int = 0  # ...where the new default differs from the old pick
    old_layoff_points: int = 0
    new_layoff_points: int = 0
    old_undercuts: int = 0
    new_undercuts: int = 0
    old_net: int = 0  # the knocker's points, minus the defender's when undercut
    new_net: int = 0
    better: int = 0  # changed knocks where the defender laid off fewer points
    worse: int = 0
    could: int = 0  # knocks where some other least-deadwood layout laid off less than the old
    oracle_layoff_points: int = 0  # the least any of the layouts let this defender lay off

    def add(self, other: Tally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def _outcome(rules: Rules, layout: Arrangement, defender: tuple[str, ...]) -> tuple[int, bool, int]:
    """Layoff points, undercut, the knocker's net points, with the defender's best layoffs."""
    plan = best_layoffs(defender, layout.melds)
    laid = sum(CARD_VALUE[card] for card, _ in plan.layoffs)
    points = score_hand(rules, "knock", layout.deadwood_points, plan.arrangement.deadwood_points)
    net = points.points if points.knocker_wins else -points.points
    return laid, points.outcome == "undercut", net


def watch_knocks(tally: Tally) -> Watcher:
    """A ``play_hand`` watcher that scores every plain knock under both layouts."""

    def watch(state: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        if not isinstance(command, Knock):
            return
        hand = state.hand
        assert hand is not None
        seat = command.seat
        kept = tuple(card for card in hand.hands[seat] if card != command.card)
        old = arrange(kept)
        if old.deadwood_points == 0:
            return  # gin: no layoffs either way
        layouts = ordered_layouts(kept, knocker_knowledge(hand, seat, command.card))
        new = layouts[0]
        tally.knocks += 1
        tally.several += len(layouts) > 1
        defender = hand.hands[1 - seat]
        old_laid, old_under, old_net = _outcome(state.rules, old, defender)
        new_laid, new_under, new_net = _outcome(state.rules, new, defender)
        tally.changed += new.melds != old.melds
        tally.old_layoff_points += old_laid
        tally.new_layoff_points += new_laid
        tally.old_undercuts += old_under
        tally.new_undercuts += new_under
        tally.old_net += old_net
        tally.new_net += new_net
        tally.better += new_laid < old_laid
        tally.worse += new_laid > old_laid
        least = min(_outcome(state.rules, layout, defender)[0] for layout in layouts)
        tally.could += least < old_laid
        tally.oracle_layoff_points += least

    return watch


def play_pairing(levels: tuple[str, str], seed: str, deals: int, rules_name: str) -> Tally:
    tally = Tally()
    watch = watch_knocks(tally)
    for index in range(deals):
        game_seed = f"{seed}:{index}"
        for players in (levels, (levels[1], levels[0])):
            state = hand_state(game_seed, index % 2, players, rules_name)
            play_hand(state, players, game_seed, watch)
    return tally


def _line(name: str, t: Tally) -> str:
    return (
        f"| {name} | {t.knocks} | {t.several} | {t.changed} | {t.better} / {t.worse} "
        f"| {t.could} | {t.old_layoff_points} → {t.new_layoff_points} ({t.oracle_layoff_points}) "
        f"| {t.old_undercuts} → {t.new_undercuts} "
        f"| {t.old_net:+d} → {t.new_net:+d} |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="baseline,easy,medium")
    parser.add_argument("--deals", type=int, default=300, help="deals per pairing, each twice")
    parser.add_argument("--seed", default="knock-layout")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="arcadia")
    parser.add_argument("--only", default=None, help="only the pairings this level plays in")
    opts = parser.parse_args(argv)
    print(
        f"rules {opts.rules}, seed {opts.seed}, {opts.deals} deals a pairing, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    print(
        "| pairing | knocks | another layout | default changed | defender laid off less / more "
        "| another layout lays off less (hindsight) | defender's layoff points old → new "
        "(hindsight best) | undercuts old → new | knocker's net old → new |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    every = Tally()
    began = time.perf_counter()
    for pair in itertools.combinations_with_replacement(opts.levels.split(","), 2):
        if opts.only and opts.only not in pair:
            continue
        tally = play_pairing(pair, f"{opts.seed}:{pair[0]}:{pair[1]}", opts.deals, opts.rules)
        every.add(tally)
        print(_line(f"{pair[0]} vs {pair[1]}", tally), flush=True)
    print(_line("all", every))
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()
