"""How close hard's guessed feeds bring its discards to those it would make knowing the truth.

An offline study, faster and far less noisy than play. Hard's discard decisions are
recorded with the opponent's real hand; each is then scored as hard scores it, once
with the feed (what a discard would save the opponent) priced over guesses of the
opponent's hand and once over the real hand (the cheating ``paired --reveal feed``
diagnostic). A guess model's *regret* is how much worse, in the real-hand scores, its
discard is than the real-hand choice; everything but the feed is the same on both
sides. Play gained about 3 points a hand per unit of regret in session 3 (see
RESULTS-ai.md), but a better regret is a reason to play a model, not a verdict.

    python -m benchmarks.feed_regret --seeds ev1,ev2 --deals 150
    python -m benchmarks.feed_regret --deals 50 --set hard.GUESSES=128
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass
from functools import partial

from benchmarks.tournament import hard_deals, mean_ci, overridden, play_hand
from domain.ai import hard, knowledge, opponent
from domain.ai.clock import Clock
from domain.ai.opponent import Guess
from domain.cards import CARD_VALUE, DECK, to_mask
from domain.commands import AnySeatCommand
from domain.state import MatchState
from domain.views import PlayerView


@dataclass(frozen=True, slots=True)
class Decision:
    view: PlayerView  # hard's view, in the discard phase
    truth: int  # the opponent's real hand


@dataclass(frozen=True, slots=True)
class Outcome:
    regret: float  # real-hand score of the discard made, less the best real-hand score
    feeds: bool  # the discard made completes a meld in the opponent's real hand
    blind_regret: float  # the same for a hard that prices no feed at all


def record(opponent_level: str, seed: str, deals: int, rules: str) -> list[Decision]:
    """Hard's discard decisions over duplicate deals (both seats), as the tournament plays them."""
    out = []

    def watch(hard_seat: int, state: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        if view.phase == "discard" and view.seat == hard_seat:
            assert state.hand is not None
            out.append(Decision(view, to_mask(state.hand.hands[1 - view.seat])))

    for hard_seat, levels, game_seed, state in hard_deals(opponent_level, seed, deals, rules):
        play_hand(state, levels, game_seed, partial(watch, hard_seat))
    return out


def judge(decision: Decision, guesses: list[Guess]) -> Outcome:
    """Score one decision's discard priced over ``guesses`` against the real hand."""
    view = decision.view
    know = knowledge.read(view)
    scored = hard.quick_scores(view, know, guesses, Clock(None))
    rows = []
    for score, index in scored:
        guessed = hard.FEED_WEIGHT * hard.feed(guesses, index)
        real = hard.FEED_WEIGHT * hard.feed([Guess(decision.truth, 1.0)], index)
        rows.append((score - guessed, real, -CARD_VALUE[DECK[index]], index))

    def real_score(row: tuple[float, float, int, int]) -> float:
        return row[0] + row[1]

    best = min(real_score(row) for row in rows)
    made = rows[0]  # scored is best first: hard's discard
    blind = min(rows, key=lambda row: (row[0], row[2], row[3]))
    return Outcome(
        regret=real_score(made) - best,
        feeds=made[1] > 0,
        blind_regret=real_score(blind) - best,
    )


def judge_all(decisions: list[Decision], overrides: list[str]) -> list[Outcome]:
    """Every decision judged with the guess model as ``overrides`` set it."""
    with overridden(overrides):
        out = []
        for number, decision in enumerate(decisions):
            know = knowledge.read(decision.view)
            rng = random.Random(f"feed-regret:{number}")
            guesses = opponent.guesses(know, rng, hard.GUESSES, Clock(None))
            out.append(judge(decision, guesses))
        return out


def _mean(values: list[float]) -> str:
    mean, half = mean_ci(values)
    return f"{mean:.3f} ± {half:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--b", default="medium", help="hard's opponent in the recorded games")
    parser.add_argument("--seeds", default="ev1,ev2")
    parser.add_argument("--deals", type=int, default=150, help="deals per seed, each played twice")
    parser.add_argument("--rules", default="arcadia")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    opts = parser.parse_args(argv)
    began = time.perf_counter()
    decisions = [
        d for seed in opts.seeds.split(",") for d in record(opts.b, seed, opts.deals, opts.rules)
    ]
    current = judge_all(decisions, [])
    variant = judge_all(decisions, opts.set) if opts.set else current
    print(f"hard vs {opts.b}: {len(decisions)} discard decisions, seeds {opts.seeds}")
    for label, outcomes in (("current guesses", current), (f"variant {opts.set}", variant)):
        regrets = [o.regret for o in outcomes]
        feeds = statistics.fmean(o.feeds for o in outcomes)
        print(f"{label}: regret {_mean(regrets)} per decision, {feeds:.1%} of discards feed a meld")
    print(f"no feed priced at all: regret {_mean([o.blind_regret for o in current])}")
    paired = [v.regret - c.regret for v, c in zip(variant, current, strict=True)]
    print(f"paired difference (variant - current): {_mean(paired)}")
    print(f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
