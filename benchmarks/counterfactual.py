"""Is each of hard's yes-or-no choices right, one decision at a time, on the real deck?

At every decision where hard may knock (knock or hold) or may take the face-up card
(take it or draw from the stock), both branches are played to the end of the hand
by the same players on the same deck, so each branch's points are what that choice
would really have scored, with everything after it played as usual. Averaged over
many decisions, the difference says whether the policy gains by deviating once, in
which situations; a single difference says little (the deck decides much of it).

    python -m benchmarks.counterfactual --seeds cf1 --deals 300
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

from benchmarks.tournament import hard_deals, mean_ci, play_hand
from domain.ai import tactics
from domain.cards import CARD_BIT
from domain.commands import AnySeatCommand, Discard, DrawDiscard, DrawStock, Knock
from domain.events import HandScored
from domain.match import apply
from domain.melds import deadwood_of_mask
from domain.state import MatchState
from domain.views import PlayerView

Kind = Literal["knock", "take"]


@dataclass(frozen=True, slots=True)
class Branches:
    """One decision of hard's, both ways, in hard's points for the hand."""

    kind: Kind  # "knock": knock or hold; "take": the pile card or the stock
    stock_size: int
    deadwood: int  # knock: left after knocking; take: what taking saves (may be < 0)
    melds: bool  # take: the pile card lands in a meld; knock: always False
    chose_yes: bool  # hard knocked / took the pile card
    yes: int  # points if it knocks / takes
    no: int  # points if it holds (throwing the knock card) / draws from the stock
    actual: int  # points the hand really scored for hard


def play_out(state: MatchState, levels: tuple[str, str], game_seed: str, me: int) -> int:
    """Hard's points (negative when it loses) for the rest of the hand as the players play it."""
    return points_for(play_hand(state, levels, game_seed), me)


def points_for(state: MatchState, me: int) -> int:
    """The finished hand's points for seat ``me``: won positive, lost negative, a wash 0."""
    result = state.last_result
    if not isinstance(result, HandScored):
        return 0
    return result.points if result.winner == me else -result.points


def record(opponent_level: str, seed: str, deals: int, rules: str) -> list[Branches]:
    """Both branches of hard's knock and take decisions over duplicate deals (both seats)."""
    out: list[Branches] = []
    found: list[tuple[Kind, int, int, bool, bool, int, int]] = []

    def watch(state: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        decision = _decision(view, command) if view.seat == hard_seat else None
        if decision is not None:
            kind, number, melds, yes, no = decision
            yes_points = play_out(apply(state, yes)[0], levels, game_seed, view.seat)
            no_points = play_out(apply(state, no)[0], levels, game_seed, view.seat)
            found.append(
                (kind, view.stock_size, number, melds, command == yes, yes_points, no_points)
            )

    for hard_seat, levels, game_seed, state in hard_deals(opponent_level, seed, deals, rules):
        found.clear()
        actual = points_for(play_hand(state, levels, game_seed, watch), hard_seat)
        out.extend(Branches(*row, actual=actual) for row in found)
    return out


def _decision(
    view: PlayerView, command: AnySeatCommand
) -> tuple[Kind, int, bool, AnySeatCommand, AnySeatCommand] | None:
    """The two commands of a knock-or-hold or a take-or-stock decision, if this is one.

    The knock branch is the knock hard made, or else its least-deadwood knock; the
    hold branch is the discard hard made, or else throwing the knock card.
    """
    if view.phase == "discard" and tactics.knocks(view) and tactics.ending_command(view) is None:
        knock = command if isinstance(command, Knock) else tactics.best_knock(view)
        assert knock is not None
        hold = command if isinstance(command, Discard) else Discard(view.seat, knock.card)
        left = deadwood_of_mask(tactics.masks(view.hand) & ~CARD_BIT[knock.card])
        return "knock", left, False, knock, hold
    if view.phase == "draw" and tactics.can_take_pile(view):
        top = tactics.top_of_pile(view)
        assert top is not None
        mask = tactics.masks(view.hand)
        saves = deadwood_of_mask(mask) - tactics.best_after_taking(mask, top)
        return (
            "take",
            saves,
            tactics.in_meld(mask, top),
            DrawDiscard(view.seat),
            DrawStock(view.seat),
        )
    return None


def _bucket(b: Branches) -> str:
    stock = (
        "stock 20+" if b.stock_size >= 20 else "stock 10-19" if b.stock_size >= 10 else "stock <10"
    )
    if b.kind == "knock":
        left = "0-3" if b.deadwood <= 3 else "4-6" if b.deadwood <= 6 else "7-10"
        return f"{'knocked' if b.chose_yes else 'held':7s}  {stock:11s}  deadwood {left}"
    saves = "saves <=0" if b.deadwood <= 0 else "saves 1-6" if b.deadwood < 7 else "saves 7+"
    melds = "melds" if b.melds else "no meld"
    return f"{'took' if b.chose_yes else 'passed':7s}  {melds:7s}  {saves}"


def _mean(values: list[float]) -> str:
    mean, half = mean_ci(values)
    return f"{mean:+.2f}" if math.isinf(half) else f"{mean:+.2f} ± {half:.2f}"


def report(branches: list[Branches]) -> list[str]:
    """Per kind: mean points per decision as hard chose, always yes, always no; then by situation.

    "Always" means deviating at that one decision only, everything after it as usual.
    """
    lines = []
    for kind, yes_word, no_word in (("knock", "knock", "hold"), ("take", "take", "stock")):
        rows = [b for b in branches if b.kind == kind]
        if not rows:
            continue
        made = statistics.fmean(b.yes if b.chose_yes else b.no for b in rows)
        yes = statistics.fmean(b.yes for b in rows)
        no = statistics.fmean(b.no for b in rows)
        lines.append(
            f"{kind}: {len(rows)} decisions; mean points as hard chose {made:+.2f}, "
            f"always {yes_word} {yes:+.2f}, always {no_word} {no:+.2f}"
        )
        groups: dict[str, list[float]] = defaultdict(list)
        for b in rows:
            groups[_bucket(b)].append(b.yes - b.no)
        for name in sorted(groups):
            values = groups[name]
            lines.append(
                f"  {name:40s} n={len(values):5d}  {yes_word} - {no_word}: {_mean(values)}"
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--b", default="medium", help="hard's opponent")
    parser.add_argument("--seeds", default="cf1")
    parser.add_argument("--deals", type=int, default=300, help="deals per seed, each played twice")
    parser.add_argument("--rules", default="arcadia")
    opts = parser.parse_args(argv)
    began = time.perf_counter()
    seeds = opts.seeds.split(",")
    branches = [b for seed in seeds for b in record(opts.b, seed, opts.deals, opts.rules)]
    print(f"hard vs {opts.b}: seeds {opts.seeds}, {opts.deals} deals each, both seats")
    for line in report(branches):
        print(line)
    print(f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
