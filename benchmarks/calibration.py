"""How well hard's knock-or-hold inputs match the real hands (a diagnostic, never the AI).

At each of hard's discard decisions with a knock to price, what hard predicts from its
guesses of the opponent's hand is logged beside the same quantity worked out on the
opponent's real hand, which only this benchmark reads, after hard has made its
prediction: the knock's expected points and its undercut chance, and the chance the
opponent can knock after its next stock draw. Grouped by the predicted value, a well
calibrated model shows the same mean on both sides. The wrappers return hard's own
values, so every game is played exactly as without them.

    python -m benchmarks.calibration --b baseline --deals 150 --seed s15-cal-b
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from benchmarks import tournament
from benchmarks.tournament import Job, play_game
from domain.ai import hard, showdown
from domain.ai.knowledge import bits
from domain.ai.opponent import Guess
from domain.cards import to_mask
from domain.state import MatchState
from domain.views import PlayerView


@dataclass(frozen=True, slots=True)
class KnockRow:
    predicted_points: float  # hard's expected points of the knock over its guesses
    predicted_undercut: float  # the weight of its guesses that undercut the knock
    points: int  # the knock's points against the real hand
    stock_size: int


@dataclass(frozen=True, slots=True)
class HoldRow:
    predicted: float  # hard's chance that the opponent can knock after its next stock draw
    actual: float  # the share of the real stock that lets the real hand knock
    stock_size: int


@dataclass
class Calibration:
    knocks: list[KnockRow] = field(default_factory=list)
    holds: list[HoldRow] = field(default_factory=list)


@contextmanager
def _watching(out: Calibration) -> Iterator[None]:
    """Wrap hard's pricing functions to log predictions beside the truth; undone after."""
    real_view = tournament.player_view
    real_knock_value = hard.knock_value
    real_hold_value = hard.hold_value
    truth: dict[str, int] = {}

    def view(state: MatchState, seat: int) -> PlayerView:
        assert state.hand is not None
        truth["opponent"] = to_mask(state.hand.hands[1 - seat])
        truth["stock"] = to_mask(state.hand.stock)
        return real_view(state, seat)

    def knock_value(
        rest: int, hands: list[Guess], bonus: int, clock: Any, worth: Any = hard._points
    ) -> float:
        value = real_knock_value(rest, hands, bonus, clock, worth)
        if worth is not hard._points:  # score-aware: log the prediction in points
            predicted = real_knock_value(rest, hands, bonus, clock)
        else:
            predicted = value
        total = sum(g.weight for g in hands) or 1.0
        under = sum(g.weight for g in hands if showdown.points(rest, g.hand, bonus) < 0)
        points = showdown.points(rest, truth["opponent"], bonus)
        out.knocks.append(KnockRow(predicted, under / total, points, truth["stock"].bit_count()))
        return value

    def hold_value(
        know: Any,
        hands: list[Guess],
        rest: int,
        knock_now: float,
        view_: PlayerView,
        clock: Any,
        worth: Any = hard._points,
    ) -> tuple[float, float]:
        value, chance = real_hold_value(know, hands, rest, knock_now, view_, clock, worth)
        stock = bits(truth["stock"])
        if stock:
            limit = view_.knock_limit
            can = sum(1 for i in stock if hard._can_knock_after(truth["opponent"], i, limit))
            out.holds.append(HoldRow(chance, can / len(stock), len(stock)))
        return value, chance

    tournament.player_view = view
    hard.knock_value = knock_value
    hard.hold_value = hold_value
    try:
        yield
    finally:
        tournament.player_view = real_view
        hard.knock_value = real_knock_value
        hard.hold_value = real_hold_value


def record(opponent: str, seed: str, deals: int, overrides: tuple[str, ...] = ()) -> Calibration:
    """Hard against ``opponent`` on duplicate one-hand deals (both seats), every prediction logged."""
    out = Calibration()
    with _watching(out):
        for index in range(deals):
            for swapped in (False, True):
                job = Job(
                    "hard", opponent, seed, index, index % 2, swapped, "arcadia", None, overrides
                )
                play_game(job)
    return out


def _bins(pairs: list[tuple[float, float]], edges: list[float]) -> list[str]:
    lines = []
    for low, high in pairwise(edges):
        chosen = [(p, a) for p, a in pairs if low <= p < high]
        if chosen:
            predicted = statistics.fmean(p for p, _ in chosen)
            actual = statistics.fmean(a for _, a in chosen)
            lines.append(
                f"  predicted {low:+6.2f} to {high:+6.2f}  n={len(chosen):5d}  "
                f"mean predicted {predicted:+7.3f}  actual {actual:+7.3f}"
            )
    return lines


def report(cal: Calibration) -> list[str]:
    chances = [0, 0.05, 0.1, 0.2, 0.3, 0.5, 1.01]
    lines = [f"knock points ({len(cal.knocks)} knocks priced, actual: on the real hand)"]
    lines += _bins(
        [(k.predicted_points, k.points) for k in cal.knocks], [-99, -10, -5, 0, 5, 10, 15, 20, 99]
    )
    lines.append("undercut chance of the knock")
    lines += _bins([(k.predicted_undercut, float(k.points < 0)) for k in cal.knocks], chances)
    lines.append(
        f"opponent's chance to knock after its next stock draw ({len(cal.holds)} holds priced)"
    )
    lines += _bins([(h.predicted, h.actual) for h in cal.holds], chances)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--b", default="baseline", help="hard's opponent")
    parser.add_argument("--deals", type=int, default=100, help="deals, each played twice")
    parser.add_argument("--seed", default="s15-cal")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    opts = parser.parse_args(argv)
    cal = record(opts.b, opts.seed, opts.deals, tuple(opts.set))
    print(
        f"hard vs {opts.b}, {opts.deals} deals (both seats), seed {opts.seed}, overrides {opts.set}"
    )
    for line in report(cal):
        print(line)


if __name__ == "__main__":
    main()
