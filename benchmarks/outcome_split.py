"""Where hard's points against a level come from: each hand's outcome, and what it is worth.

Plays duplicate one-hand deals, as the tournament does, and splits hard's net points a
hand by how the hand ended (who knocked; knock, undercut, gin, wash), with the share of
hands, the mean stock left at the end, the deadwood hard is caught with when the other
side knocks, and how often hard's discard completes a meld in the opponent's real hand
(read by this study only, after hard chose). ``--reveal`` runs the same deals with hard
told the opponent's real hand (a diagnostic that cheats, never the product): everywhere
(``all``), only where it prices what a discard feeds the opponent (``feed``), or only
where it prices knocking and holding (``knock``); the difference between the splits
says which decision the missing points are in.

    python -m benchmarks.outcome_split --b baseline --deals 250 --seed s17-decomp
    python -m benchmarks.outcome_split --b baseline --deals 250 --seed s17-decomp --reveal feed
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks import tournament
from benchmarks.tournament import hand_state, overridden, play_hand
from domain.ai import hard, knowledge, opponent
from domain.ai.opponent import Guess
from domain.cards import CARD_INDEX, to_mask
from domain.commands import AnySeatCommand, Discard
from domain.events import HandScored
from domain.rules import PRESETS
from domain.state import MatchState
from domain.views import PlayerView


@dataclass
class Split:
    """Hard's hands against one level, by outcome."""

    hands: int = 0
    count: collections.Counter[str] = field(default_factory=collections.Counter)
    points: collections.Counter[str] = field(default_factory=collections.Counter)
    stock: dict[str, list[int]] = field(default_factory=lambda: collections.defaultdict(list))
    caught: list[int] = field(default_factory=list)  # hard's deadwood after layoffs when knocked
    discards: int = 0
    fed: int = 0  # hard's discards that complete a meld in the opponent's real hand

    @property
    def net(self) -> float:
        return sum(self.points.values()) / max(self.hands, 1)


def _revealed(mode: str | None, truth: dict[str, int]) -> Callable[[], None]:
    """Patch hard so it sees the real hand ``truth['hand']`` where ``mode`` says; returns the undo."""
    saved_guesses, saved_feed, saved_knock = opponent.guesses, hard.feed, hard._knock

    def real() -> list[Guess]:
        return [Guess(truth["hand"], 1.0)]

    if mode == "all":
        hard.opponent.guesses = lambda *_, **__: real()  # type: ignore[assignment]
    elif mode == "feed":
        hard.feed = lambda _, index: saved_feed(real(), index)  # type: ignore[assignment]
    elif mode == "knock":
        hard._knock = lambda v, k, _, c: saved_knock(v, k, real(), c)  # type: ignore[assignment]

    def undo() -> None:
        opponent.guesses, hard.feed, hard._knock = saved_guesses, saved_feed, saved_knock

    return undo


def split(level: str, seed: str, deals: int, rules: str, reveal: str | None = None) -> Split:
    """Hard against ``level`` on ``deals`` duplicate deals of ``seed``, split by outcome."""
    out = Split()
    truth = {"hand": 0}
    undo = _revealed(reveal, truth)
    real_view = tournament.player_view
    try:
        for index in range(deals):
            game_seed = f"{seed}:{index}"
            for seat in (0, 1):
                levels = ("hard", level) if seat == 0 else (level, "hard")

                def view_and_truth(state: MatchState, who: int, seat: int = seat) -> PlayerView:
                    if who == seat and state.hand is not None:  # before each of hard's moves
                        truth["hand"] = to_mask(state.hand.hands[1 - seat])
                    return real_view(state, who)

                def watch(
                    state: MatchState, view: PlayerView, command: AnySeatCommand, seat: int = seat
                ) -> None:
                    if view.seat == seat and isinstance(command, Discard) and state.hand:
                        real = to_mask(state.hand.hands[1 - seat])
                        out.discards += 1
                        out.fed += bool(knowledge.partners(real, CARD_INDEX[command.card]))

                tournament.player_view = view_and_truth
                state = play_hand(
                    hand_state(game_seed, index % 2, levels, rules), levels, game_seed, watch
                )
                _record(out, state, seat)
    finally:
        tournament.player_view = real_view
        undo()
    return out


def _record(out: Split, state: MatchState, seat: int) -> None:
    out.hands += 1
    result = state.last_result
    if not isinstance(result, HandScored):
        out.count["wash"] += 1
        return
    points = result.points if result.winner == seat else -result.points
    key = f"{'hard' if result.knocker == seat else 'opponent'} {result.outcome}"
    out.count[key] += 1
    out.points[key] += points
    if state.hand is not None:
        out.stock[key].append(len(state.hand.stock))
    if result.knocker != seat and result.outcome in ("knock", "undercut"):
        out.caught.append(result.defender_deadwood)


def report(out: Split) -> list[str]:
    lines = [f"{out.hands} hands, hard's net {out.net:+.3f} points a hand"]
    for key in sorted(out.count):
        n = out.count[key]
        stock = out.stock.get(key) or [0]
        lines.append(
            f"  {key:18s} {n:5d} hands ({n / out.hands:6.1%})  {out.points[key] / out.hands:+7.3f}"
            f" a hand  mean stock left {statistics.mean(stock):5.1f}"
        )
    if out.caught:
        lines.append(
            f"  caught by a knock with deadwood (after layoffs): median {statistics.median(out.caught)}, "
            f"mean {statistics.mean(out.caught):.1f}"
        )
    lines.append(
        f"  hard's discards that complete a meld in the opponent's hand: {out.fed} of "
        f"{out.discards} ({out.fed / max(out.discards, 1):.1%}), {out.fed / out.hands:.2f} a hand"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--b", default="baseline", help="hard's opponent")
    parser.add_argument("--deals", type=int, default=250, help="deals, each played twice")
    parser.add_argument("--seed", default="s17-decomp")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="arcadia")
    parser.add_argument("--reveal", choices=("all", "feed", "knock"), help="diagnostic: cheat")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    opts = parser.parse_args(argv)
    began = time.perf_counter()
    with overridden(opts.set):
        out = split(opts.b, opts.seed, opts.deals, opts.rules, opts.reveal)
    print(
        f"hard vs {opts.b}, seed {opts.seed}, rules {opts.rules}, reveal {opts.reveal}, {opts.set}"
    )
    print("\n".join(report(out)))
    print(f"{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
