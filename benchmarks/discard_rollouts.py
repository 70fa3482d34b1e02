"""What each of hard's leading discards is really worth, played out on resampled stocks.

Issue 21's studies so far labelled a discard by whether it fed the opponent (sessions
18 and 20): a model fitted on that fed less and played no better. Here the label is
the whole consequence. At each of hard's discard decisions against an opponent level
(no knock on offer), the ``--top`` discards hard scores best are each played to the end
of the hand ``--rollouts`` times: the opponent keeps its real hand (offline, labels
only), the stock is reshuffled for each play-out (the same shuffle for every candidate,
so the comparison is paired), and both players go on as they play (hard with
``--rollout-guesses`` guesses, to fit the time). A candidate's worth is hard's mean
points for the hand. The record keeps, beside the worths, the view-only features of
each candidate, so ``fit`` can learn which of them predict the worth beyond hard's score.

    python -m benchmarks.discard_rollouts record --out R.jsonl --seed dr1 --deals 40
    python -m benchmarks.discard_rollouts fit --train R.jsonl [--write]

Whether the cheap continuation biases the labels (session 45): only the decisions where
the fitted pick differs from hard's, each played out with 8 and with 32 guesses on the
same stocks, and the two gains compared:

    python -m benchmarks.discard_rollouts record --out C.jsonl --seed dr2 --deals 40 \
        --changed-only --rollout-guesses 8,32
    python -m benchmarks.discard_rollouts compare-guesses --train C.jsonl
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import msgspec

from benchmarks.meld_model import _solve
from benchmarks.tournament import hand_state, mean_ci, overridden, play_hand
from domain.ai import discard_fit, hard, knowledge, opponent
from domain.ai.choose import seeded_rng
from domain.ai.clock import Clock
from domain.cards import CARD_INDEX, DECK
from domain.commands import AnySeatCommand, Discard
from domain.events import HandScored
from domain.match import apply
from domain.state import MatchState
from domain.views import PlayerView


@dataclass(frozen=True, slots=True)
class Job:
    seed: str
    index: int
    hard_seat: int
    opponent: str
    top: int
    rollouts: int
    rollout_guesses: tuple[int, ...]  # the guesses hard plays out with; the first fills ``worths``
    changed_only: bool  # play out only hard's pick and the fitted pick, where they differ
    settings: tuple[str, ...] = ()  # ``module.NAME=value`` for both players' play (``--set``)


def _points(end: MatchState, seat: int) -> int:
    result = end.last_result
    if not isinstance(result, HandScored):
        return 0
    return result.points if result.winner == seat else -result.points


def candidates(view: PlayerView, game_seed: str) -> tuple[list[int], list[list[float]]] | None:
    """Hard's discard options scored as hard scores them (the same guesses), best first,
    with each one's features; None when a knock is on offer (not a plain discard)."""
    know = knowledge.read(view)
    rng = seeded_rng("hard", view, game_seed)
    clock = Clock(None)
    hands = opponent.guesses(know, rng, hard.GUESSES, clock)
    knock, chance = hard._knock(view, know, hands, clock)
    if knock is not None:
        return None
    if chance is None:
        chance = hard.knock_chance(know, hands, view.knock_limit, clock)
    scored = hard.quick_scores(view, know, hands, clock, chance)
    base = hard.keep_scores(view, know, chance)
    options = [index for _, index in scored]
    rows = [
        hard.candidate_row(view, know, hands, chance, score, base, index) for score, index in scored
    ]
    return options, rows


def restocked(state: MatchState, seed: str) -> MatchState:
    """``state`` with its stock in another order: what nobody has seen, dealt again."""
    assert state.hand is not None
    stock = list(state.hand.stock)
    random.Random(seed).shuffle(stock)
    hand = msgspec.structs.replace(state.hand, stock=tuple(stock))
    return msgspec.structs.replace(state, hand=hand)


def record_game(job: Job) -> list[dict[str, object]]:
    with overridden(job.settings):
        return _record_game(job)


def _record_game(job: Job) -> list[dict[str, object]]:
    game_seed = f"{job.seed}:{job.index}"
    levels = ("hard", job.opponent) if job.hard_seat == 0 else (job.opponent, "hard")
    state = hand_state(game_seed, job.index % 2, levels, "arcadia")
    out: list[dict[str, object]] = []
    seat_seed = f"{game_seed}:{job.hard_seat}"

    def watch(at: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        if view.seat != job.hard_seat or view.phase != "discard":
            return
        if not isinstance(command, Discard):
            return
        found = candidates(view, seat_seed)
        if found is None:
            return
        options, rows = found
        keep = [i for i, row in enumerate(rows) if row[0] < hard.FORBIDDEN][: job.top]
        if len(keep) < 2:
            return
        if job.changed_only:
            fitted = max(keep, key=lambda k: discard_fit.worth(rows[k]))
            if fitted == keep[0]:
                return
            keep = [keep[0], fitted]
        number = len(out)
        by_guesses: dict[str, list[list[int]]] = {}
        for guesses in job.rollout_guesses:
            worths: list[list[int]] = [[] for _ in keep]
            with overridden([f"hard.GUESSES={guesses}"]):
                for r in range(job.rollouts):
                    shuffled = restocked(at, f"{game_seed}:{number}:{r}")
                    for slot, k in enumerate(keep):
                        after, _ = apply(shuffled, Discard(job.hard_seat, DECK[options[k]]))
                        end = play_hand(after, levels, f"{game_seed}:ro{number}:{r}")
                        worths[slot].append(_points(end, job.hard_seat))
            by_guesses[str(guesses)] = worths
        out.append(
            {
                "seed": game_seed,
                "seat": job.hard_seat,
                "picked": CARD_INDEX[command.card],
                "options": [options[k] for k in keep],
                "features": [rows[k] for k in keep],
                "worths": by_guesses[str(job.rollout_guesses[0])],
                "worths_by_guesses": by_guesses,
                "changed_only": job.changed_only,  # then the second candidate is the fitted pick
            }
        )

    play_hand(state, levels, game_seed, watch)
    return out


def _jobs(opts: argparse.Namespace) -> Iterator[Job]:
    for index in range(opts.deals):
        for seat in (0, 1):
            yield Job(
                opts.seed,
                index,
                seat,
                opts.opponent,
                opts.top,
                opts.rollouts,
                tuple(int(g) for g in opts.rollout_guesses.split(",")),
                opts.changed_only,
                tuple(opts.set),
            )


def record(opts: argparse.Namespace) -> None:
    started = time.perf_counter()
    count = 0
    with Path(opts.out).open("a") as out, multiprocessing.Pool(opts.workers) as pool:
        for decisions in pool.imap_unordered(record_game, _jobs(opts)):
            for d in decisions:
                out.write(json.dumps(d) + "\n")
                count += 1
            out.flush()
    print(f"{count} decisions in {time.perf_counter() - started:.0f} s", file=sys.stderr)


# ---- fitting -------------------------------------------------------------------------


class Decision(NamedTuple):
    """One recorded decision: the candidates' features and each one's play-out points."""

    seed: str  # the game's seed, ``SEED:DEAL``
    features: list[list[float]]  # per candidate, ``discard_fit.row``; hard's pick first
    worths: list[list[int]]  # per candidate, hard's points in each play-out

    @property
    def deal(self) -> int:
        return int(self.seed.rsplit(":", 1)[1])

    def means(self) -> list[float]:
        return [statistics.fmean(w) for w in self.worths]


def load(paths: list[str]) -> list[Decision]:
    out = []
    for path in paths:
        with Path(path).open() as f:
            for line in f:
                if line.strip():
                    raw = json.loads(line)
                    out.append(Decision(raw["seed"], raw["features"], raw["worths"]))
    return out


def fit(train: list[Decision], l2: float) -> list[float]:
    """Least squares of each candidate's worth (centred within its decision) on its inputs."""
    n = len(discard_fit.NAMES)
    a = [[l2 if i == j else 0.0 for j in range(n)] for i in range(n)]
    b = [0.0] * n
    for d in train:
        xs = [discard_fit.inputs(f) for f in d.features]
        ys = d.means()
        mx = [statistics.fmean(col) for col in zip(*xs, strict=True)]
        my = statistics.fmean(ys)
        for x, y in zip(xs, ys, strict=True):
            dx = [xi - m for xi, m in zip(x, mx, strict=True)]
            for i in range(n):
                b[i] += dx[i] * (y - my)
                for j in range(n):
                    a[i][j] += dx[i] * dx[j]
    return _solve(a, b)


def picks_gain(test: list[Decision], w: list[float]) -> tuple[list[float], int]:
    """Per held-out decision, the worth of the model's pick over hard's; and how many changed."""
    gains = []
    changed = 0
    for d in test:
        ys = d.means()
        predicted = [discard_fit.worth(f, w) for f in d.features]
        pick = max(range(len(predicted)), key=lambda i: predicted[i])
        changed += pick != 0
        gains.append(ys[pick] - ys[0])
    return gains, changed


def cross_validate(rows: list[Decision], l2: float, folds: int = 4) -> None:
    """Every decision chosen by a model fitted on the other folds (split by deal)."""
    gains: list[float] = []
    changed = 0
    for k in range(folds):
        train = [d for d in rows if d.deal % folds != k]
        test = [d for d in rows if d.deal % folds == k]
        g, c = picks_gain(test, fit(train, l2))
        gains += g
        changed += c
    mean, half = mean_ci(gains)
    print(
        f"{folds}-fold: the model's pick over hard's {mean:+.3f} ± {half:.3f} a decision "
        f"({changed} of {len(rows)} changed)"
    )


def describe(rows: list[Decision]) -> None:
    """How much worse hard's second and third choices are, and how noisy a play-out is."""
    by_rank: dict[int, list[float]] = {}
    spreads = []
    for d in rows:
        means = d.means()
        for rank, m in enumerate(means):
            by_rank.setdefault(rank, []).append(m - means[0])
        for w in d.worths[1:]:
            diffs = [x - y for x, y in zip(w, d.worths[0], strict=True)]
            if len(diffs) > 1:
                spreads.append(statistics.stdev(diffs))
    for rank, values in sorted(by_rank.items()):
        mean, half = mean_ci(values)
        print(f"rank {rank}: over hard's pick {mean:+.3f} ± {half:.3f} ({len(values)} decisions)")
    if spreads:
        print(f"one paired play-out's spread: {statistics.fmean(spreads):.2f} points")


def compare_guesses(paths: list[str]) -> None:
    """For decisions recorded ``--changed-only`` with several ``--rollout-guesses``: the
    fitted pick's worth over hard's as each continuation values it, and how far apart the
    continuations are on the same play-outs (a biased label shows as a gap)."""
    raws = []
    for path in paths:
        with Path(path).open() as f:
            raws += [json.loads(line) for line in f if line.strip()]
    if not raws:
        print("no decisions")
        return
    if not all(raw.get("changed_only") for raw in raws):
        # Without it the second candidate is hard's second choice, not the fitted pick.
        sys.exit("compare-guesses reads decisions recorded with --changed-only")
    gains: dict[str, list[float]] = {}
    for raw in raws:
        for guesses, worths in raw["worths_by_guesses"].items():
            mean_pick, mean_hard = statistics.fmean(worths[1]), statistics.fmean(worths[0])
            gains.setdefault(guesses, []).append(mean_pick - mean_hard)
    for guesses, values in gains.items():
        mean, half = mean_ci(values)
        print(f"{guesses} guesses: the fitted pick over hard's {mean:+.3f} ± {half:.3f}")
    keys = list(gains)
    for other in keys[1:]:
        diffs = [b - a for a, b in zip(gains[keys[0]], gains[other], strict=True)]
        mean, half = mean_ci(diffs)
        print(f"{other} guesses less {keys[0]}: {mean:+.3f} ± {half:.3f}")
    print(f"({len(raws)} changed decisions)")


def _write_weights(w: list[float]) -> None:
    path = Path(discard_fit.__file__)
    text = path.read_text()
    start = text.index("WEIGHTS: tuple[float, ...] = ")
    end = text.index(")", start) + 1
    numbers = "".join(f"    {x:.4f},\n" for x in w)
    path.write_text(text[:start] + f"WEIGHTS: tuple[float, ...] = (\n{numbers})" + text[end:])
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--out", required=True)
    rec.add_argument("--seed", required=True)
    rec.add_argument("--deals", type=int, default=20)
    rec.add_argument("--opponent", default="baseline")
    rec.add_argument("--top", type=int, default=discard_fit.TOP)
    rec.add_argument("--rollouts", type=int, default=16)
    rec.add_argument(
        "--rollout-guesses",
        default="8",
        help="hard's guesses in the play-outs; several (8,32) play the same play-outs with each",
    )
    rec.add_argument(
        "--changed-only",
        action="store_true",
        help="only decisions where the fitted pick differs from hard's: play out those two",
    )
    rec.add_argument("--workers", type=int, default=2)
    rec.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    fitp = sub.add_parser("fit")
    fitp.add_argument("--train", nargs="+", required=True)
    fitp.add_argument("--l2", type=float, default=1000.0)
    fitp.add_argument(
        "--write", action="store_true", help="write the weights into domain/ai/discard_fit.py"
    )
    comparep = sub.add_parser("compare-guesses")
    comparep.add_argument("--train", nargs="+", required=True)
    opts = parser.parse_args(argv)
    if opts.command == "record":
        record(opts)
        return
    if opts.command == "compare-guesses":
        compare_guesses(opts.train)
        return
    rows = load(opts.train)
    describe(rows)
    cross_validate(rows, opts.l2)
    w = fit(rows, opts.l2)
    print(
        "weights: " + ", ".join(f"{n} {x:+.3f}" for n, x in zip(discard_fit.NAMES, w, strict=True))
    )
    if opts.write:
        _write_weights(w)


if __name__ == "__main__":
    main()
