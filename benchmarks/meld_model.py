"""Fit, offline, the chance that one of hard's discards completes a meld in the opponent's hand.

Hard prices each discard by what it would save the opponent over 32 sampled guesses of
the opponent's hand; those guesses rank the discards that really meld with an AUC of
only 0.78 (RESULTS-ai.md, session 17), while knowing the real hand there is worth about
eight points a hand. This tool records hard's discard decisions against a mix of
levels (so the fit is not fitted to one opponent's style), with the opponent's real
hand read from the game state after the view was built (diagnostic truth for the
label only: every feature comes from ``domain.ai.feed_model``, which reads the view),
fits a logistic regression in pure Python (Newton's method, a small L2 penalty), and
compares it on held-out seeds with the guesses' own share on the very same cards.

The label is "the card melds with the opponent's real hand now" (``partners > 0``):
hard's feed term already counts only saves where the card completes a meld
(``hard.FEED_MELDS_ONLY``, measured better), and the deadwood such a card saves is
computed from the guesses, so the chance of a meld is the part the guesses get wrong.

When the held-out recording has hard's own scores (``record`` keeps them), ``fit`` also
chooses each held-out discard again with the feed term priced each way, everything else
as hard scored it, and reports how often the chosen card feeds: a better AUC over all
cards did not mean fewer feeds in play (session 18), and this one-step choice did agree
with the paired runs, so it is the cheaper gate before them.

    python -m benchmarks.meld_model record --seed s18-train --deals 300 --out /tmp/train.jsonl
    python -m benchmarks.meld_model record --seed s18-test --deals 150 --out /tmp/test.jsonl
    python -m benchmarks.meld_model fit --train /tmp/train.jsonl --test /tmp/test.jsonl --write
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TextIO, TypeVar

from benchmarks.tournament import hand_state, overridden, play_hand
from domain.ai import feed_model, hard, knowledge, opponent, tactics
from domain.ai.choose import seeded_rng
from domain.ai.clock import Clock
from domain.ai.knowledge import Knowledge, bits
from domain.ai.opponent import Guess
from domain.cards import CARD_INDEX, to_mask
from domain.commands import AnySeatCommand
from domain.melds import arrange_mask
from domain.state import MatchState
from domain.views import PlayerView

OPPONENTS = ("baseline", "easy", "medium", "hard")
T = TypeVar("T")
WEIGHTS_FILE = Path(__file__).resolve().parent.parent / "domain" / "ai" / "feed_weights.py"


class Decision(NamedTuple):
    """One of hard's discard decisions: what the view told it, and the truth for the labels."""

    opponent: str
    decision: str  # game seed, seat and move number
    know: list[int]  # the ``Knowledge`` fields, in order
    last: int  # the opponent's latest discard (bit index), -1 before its first
    options: list[int]  # the cards it could discard
    shares: list[float]  # the guesses' weighted meld share of each (what hard v2 prices)
    real: int  # the opponent's real hand: labels only, never a feature
    # for the offline choice study (recorded since session 18's choice study; may be empty):
    base: Sequence[float] = ()  # hard's score of each discard without the feed term
    feeds: Sequence[float] = ()  # the feed term hard v2 adds (the guesses' expected saving)
    saves: Sequence[float] = ()  # what each would really save the opponent (truth, labels only)


class GameJob(NamedTuple):
    opponent: str
    seed: str
    deal: int
    hard_seat: int
    rules: str


def record_game(job: GameJob) -> list[Decision]:
    """Hard's discard decisions in one game."""
    out: list[Decision] = []
    game_seed = f"{job.seed}:{job.deal}"
    seat = job.hard_seat
    levels = ("hard", job.opponent) if seat == 0 else (job.opponent, "hard")

    def watch(state: MatchState, view: PlayerView, command: AnySeatCommand) -> None:
        if view.seat != seat or view.phase != "discard" or state.hand is None:
            return
        know = knowledge.read(view)
        # the very guesses hard draws for this decision (its seeded RNG, no time cap)
        rng = seeded_rng("hard", view, f"{game_seed}:{seat}")
        guesses = opponent.guesses(know, rng, hard.GUESSES, Clock(None))
        options = [CARD_INDEX[card] for card in tactics.discardable(view)]
        with overridden(["hard.FEED_WEIGHT=0"]):
            base = dict(
                (i, score) for score, i in hard.quick_scores(view, know, guesses, Clock(None))
            )
        real = to_mask(state.hand.hands[1 - seat])
        out.append(
            Decision(
                job.opponent,
                f"{game_seed}:{seat}:{len(view.moves)}",
                [getattr(know, name) for name in Knowledge.__slots__],
                feed_model.last_discard(view),
                options,
                [feed_model.meld_share(guesses, i) for i in options],
                real,
                [base[i] for i in options],
                [hard.feed(guesses, i) for i in options],
                [hard.feed([Guess(real, 1.0)], i) for i in options],
            )
        )

    play_hand(hand_state(game_seed, job.deal % 2, levels, job.rules), levels, game_seed, watch)
    return out


def _jobs(opponents: list[str], seed: str, deals: int, rules: str) -> Iterator[GameJob]:
    for level in opponents:
        for index in range(deals):
            for hard_seat in (0, 1):
                yield GameJob(level, f"{seed}:{level}", index, hard_seat, rules)


def record(opts: argparse.Namespace) -> None:
    record_games(opts, record_game, Decision._asdict)


def record_games(
    opts: argparse.Namespace,
    play: Callable[[GameJob], list[T]],
    as_json: Callable[[T], dict[str, Any]],
) -> None:
    """Play every job of ``opts`` (``add_record_arguments``) with ``play`` and write each
    decision it returns to ``opts.out`` as a JSON line (``benchmarks.history_auc`` too)."""
    jobs = list(_jobs(opts.opponents.split(","), opts.seed, opts.deals, opts.rules))
    began = time.perf_counter()
    with opts.out.open("w") as out:
        if opts.workers > 1:
            with multiprocessing.Pool(min(opts.workers, 2)) as pool:
                results = pool.imap(play, jobs, chunksize=2)
                count = sum(_write(out, game, as_json) for game in results)
        else:
            count = sum(_write(out, play(job), as_json) for job in jobs)
    print(
        f"{len(jobs)} games, {count} decisions, {time.perf_counter() - began:.0f} s",
        file=sys.stderr,
    )


def _write(out: TextIO, decisions: list[T], as_json: Callable[[T], dict[str, Any]]) -> int:
    for decision in decisions:
        print(json.dumps(as_json(decision)), file=out)
    return len(decisions)


def add_record_arguments(rec: argparse.ArgumentParser, deals: int) -> None:
    """The ``record`` command's arguments (``benchmarks.history_auc`` has one too)."""
    rec.add_argument("--seed", required=True)
    rec.add_argument(
        "--deals", type=int, default=deals, help="deals per opponent, each played twice"
    )
    rec.add_argument("--opponents", default=",".join(OPPONENTS))
    rec.add_argument("--rules", default="arcadia")
    rec.add_argument("--workers", type=int, default=2)
    rec.add_argument("--out", type=Path, required=True)


def load(path: Path) -> list[Decision]:
    return [Decision(**json.loads(line)) for line in path.open()]


class Row(NamedTuple):
    """One discardable card of one decision."""

    opponent: str
    decision: str
    features: list[float]
    share: float
    label: int  # melds with the opponent's real hand
    loose: bool  # deadwood in hard's best arrangement: the cards a discard is chosen among
    gap: float  # hard's score without the feed term above the decision's least (inf: unknown)


# --- the fit -------------------------------------------------------------------------


def _sigmoid(z: float) -> float:
    if z < -30:
        return 1e-13
    if z > 30:
        return 1.0 - 1e-13
    return 1.0 / (1.0 + math.exp(-z))


def fit(xs: list[list[float]], ys: list[int], l2: float = 1.0, rounds: int = 25) -> list[float]:
    """Logistic regression weights (intercept first) by Newton's method with an L2 penalty.

    Columns are scaled (not centred, so zeros stay zeros and rows stay sparse) to unit
    spread for the penalty; the returned weights apply to the raw features.
    """
    d = len(xs[0])
    scale = []
    for j in range(d):
        column = [x[j] for x in xs]
        mean = sum(column) / len(column)
        spread = math.sqrt(sum((v - mean) ** 2 for v in column) / len(column))
        scale.append(spread or 1.0)
    rows = [[1.0] + [x[j] / scale[j] for j in range(d)] for x in xs]
    sparse = [[(j, v) for j, v in enumerate(r) if v] for r in rows]
    w = [0.0] * (d + 1)
    for _ in range(rounds):
        grad = [0.0] * (d + 1)
        hess = [[0.0] * (d + 1) for _ in range(d + 1)]
        for nz, y in zip(sparse, ys, strict=True):
            p = _sigmoid(sum(w[j] * v for j, v in nz))
            g = p - y
            h = p * (1 - p)
            for j, v in nz:
                grad[j] += g * v
                hv = h * v
                row = hess[j]
                for k, u in nz:
                    row[k] += hv * u
        for j in range(1, d + 1):
            grad[j] += l2 * w[j]
            hess[j][j] += l2
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return [w[0]] + [w[j + 1] / scale[j] for j in range(d)]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        lead = m[col][col]
        if abs(lead) < 1e-12:
            continue
        for r in range(col + 1, n):
            factor = m[r][col] / lead
            if factor:
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(m[r][r]) < 1e-12:
            continue
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def predict(w: list[float], x: list[float]) -> float:
    return _sigmoid(w[0] + sum(a * b for a, b in zip(w[1:], x, strict=True)))


def log_loss(ps: list[float], ys: list[int], clip: float = 0.01) -> float:
    """Mean log-loss, chances clipped to [clip, 1 - clip] (a raw share of 0 is not certainty)."""
    total = 0.0
    for p, y in zip(ps, ys, strict=True):
        p = min(1 - clip, max(clip, p))
        total -= math.log(p if y else 1 - p)
    return total / len(ys)


def auc(ps: list[float], ys: list[int]) -> float:
    """Chance a melding card is ranked above a non-melding one (ties count half)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    ranks = [0.0] * len(ps)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and ps[order[j + 1]] == ps[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    pos = sum(ys)
    neg = len(ys) - pos
    if not pos or not neg:
        return math.nan
    return (sum(r for r, y in zip(ranks, ys, strict=True) if y) - pos * (pos + 1) / 2) / (pos * neg)


def within_decision_auc(rows: list[Row], ps: list[float]) -> float:
    """AUC over pairs from the same decision only: what choosing a discard needs."""
    by: dict[str, list[tuple[float, int]]] = {}
    for row, p in zip(rows, ps, strict=True):
        by.setdefault(row.decision, []).append((p, row.label))
    good = pairs = 0.0
    for items in by.values():
        for p, y in items:
            if not y:
                continue
            for q, z in items:
                if not z:
                    pairs += 1
                    good += 1.0 if p > q else 0.5 if p == q else 0.0
    return good / pairs if pairs else math.nan


def held_rows(decisions: list[Decision], every: int) -> tuple[list[list[float]], list[int]]:
    """Every unseen card of every ``every``-th decision: its features, and whether it is held."""
    xs: list[list[float]] = []
    ys: list[int] = []
    for d in decisions[::every]:
        know = Knowledge(*d.know)
        unseen = know.unseen.bit_count()
        rate = min(1.0, know.hidden_count / unseen) if unseen else 0.0
        for index in bits(know.unseen):
            xs.append(feed_model.held_features(know, d.last, rate, index))
            ys.append(d.real >> index & 1)
    return xs, ys


def meld_rows(decisions: list[Decision], held_weights: tuple[float, ...]) -> list[Row]:
    rows = []
    for d in decisions:
        know = Knowledge(*d.know)
        table = feed_model.table_of(know, d.last, held_weights)
        loose = to_mask(arrange_mask(know.mine).deadwood)
        least = min(d.base, default=0.0)
        gaps = [b - least for b in d.base] if d.base else [math.inf] * len(d.options)
        for index, share, gap in zip(d.options, d.shares, gaps, strict=True):
            rows.append(
                Row(
                    d.opponent,
                    d.decision,
                    feed_model.features(table, index, share),
                    share,
                    int(knowledge.partners(d.real, index) > 0),
                    bool(loose >> index & 1),
                    gap,
                )
            )
    return rows


def _columns(rows: list[Row], names: tuple[str, ...]) -> list[list[float]]:
    at = [feed_model.FEATURES.index(n) for n in names]
    return [[r.features[j] for j in at] for r in rows]


MODELS: dict[str, tuple[str, ...]] = {
    "guesses, calibrated (share_logit alone)": ("share_logit",),
    "base-rate independence alone (naive_logit)": ("naive_logit",),
    "learned held chances, independence (held_logit alone)": ("held_logit",),
    "view features without the guesses": tuple(
        n for n in feed_model.FEATURES if not n.startswith("share")
    ),
    "all features (the model)": feed_model.FEATURES,
}


def evaluate(opts: argparse.Namespace) -> None:
    train, test = load(opts.train), load(opts.test)
    began = time.perf_counter()
    xs, ys = held_rows(train, opts.held_every)
    held_w = tuple(fit(xs, ys, opts.l2))
    txs, tys = held_rows(test, opts.held_every)
    tps = [predict(list(held_w), x) for x in txs]
    base = [1 / (1 + math.exp(-x[0])) for x in txs]
    print(
        f"held model: {len(xs)} training cards ({sum(ys) / len(ys):.1%} held), "
        f"{time.perf_counter() - began:.0f} s; held-out {len(txs)} cards: log-loss "
        f"{log_loss(tps, tys):.3f} (base rate {log_loss(base, tys):.3f}), AUC {auc(tps, tys):.3f}"
    )
    print("held weights: " + _named(("bias", *feed_model.HELD_FEATURES), held_w))
    rows, test_rows = meld_rows(train, held_w), meld_rows(test, held_w)
    if opts.contention is not None:  # fit only on the cards a choice is really made among
        rows = [r for r in rows if r.gap <= opts.contention]
    labels = [r.label for r in rows]
    print(
        f"train: {len(rows)} cards in {len(train)} decisions, {sum(labels) / len(rows):.1%} meld; "
        f"test: {len(test_rows)} cards in {len(test)} decisions, "
        f"{sum(r.label for r in test_rows) / len(test_rows):.1%} meld"
    )
    fitted: dict[str, tuple[tuple[str, ...], list[float]]] = {}
    for label, names in MODELS.items():
        fitted[label] = (names, fit(_columns(rows, names), labels, opts.l2))
    groups = [
        ("all", test_rows),
        ("all, hard's deadwood cards only", [r for r in test_rows if r.loose]),
        ("all, within 5 of hard's least score", [r for r in test_rows if r.gap <= 5]),
    ] + [(level, [r for r in test_rows if r.opponent == level]) for level in OPPONENTS]
    print("| opponent | cards | meld | model | log-loss | AUC | AUC within a decision |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for group, group_rows in groups:
        if not group_rows:
            continue
        truth = [r.label for r in group_rows]
        lines = [("guesses' raw share (hard v2)", [r.share for r in group_rows])]
        for label, (names, w) in fitted.items():
            lines.append((label, [predict(w, x) for x in _columns(group_rows, names)]))
        for label, ps in lines:
            print(
                f"| {group} | {len(group_rows)} | {sum(truth) / len(truth):.1%} | {label} | "
                f"{log_loss(ps, truth):.3f} | {auc(ps, truth):.3f} | "
                f"{within_decision_auc(group_rows, ps):.3f} |"
            )
    names, w = fitted["all features (the model)"]
    print("weights: " + _named(("bias", *names), w))
    if test and test[0].base:
        choice_study(test, held_w, tuple(w))
    if opts.write:
        _write_weights(held_w, tuple(w), opts)


def choice_study(
    decisions: list[Decision], held_w: tuple[float, ...], meld_w: tuple[float, ...]
) -> None:
    """Each decision's discard re-chosen offline with the feed term priced several ways,
    everything else as hard scored it: how often the chosen card feeds, what it gives.

    One step only: what the choice does to the rest of the hand is not played out.
    """
    variants = ("no feed term", "guesses (hard v2)", "learned chance (FEED_MODEL=1)")
    truths = (0.05, 0.1, 0.25, 1.0)
    names = variants + tuple(f"{t:.0%} real hand (--reveal-weight {t})" for t in truths)
    fed = dict.fromkeys(names, 0)
    given = dict.fromkeys(names, 0.0)
    cost = dict.fromkeys(names, 0.0)
    changed = dict.fromkeys(names, 0)
    for d in decisions:
        table = feed_model.table_of(Knowledge(*d.know), d.last, held_w)
        chances = [
            feed_model.chance(feed_model.features(table, index, share), meld_w)
            for index, share in zip(d.options, d.shares, strict=True)
        ]
        learned = hard.feed_at_chance(d.feeds, d.shares, chances)
        prices = {
            names[0]: [0.0] * len(d.options),
            names[1]: list(d.feeds),
            names[2]: learned,
        }
        for t, name in zip(truths, names[3:], strict=True):
            prices[name] = [t * r + (1 - t) * f for r, f in zip(d.saves, d.feeds, strict=True)]
        least = min(d.base)
        v2 = _pick(d, prices[names[1]])
        for name, price in prices.items():
            k = _pick(d, price)
            fed[name] += d.saves[k] > 0
            given[name] += d.saves[k]
            cost[name] += d.base[k] - least
            changed[name] += k != v2
    n = len(decisions)
    print(f"\noffline choice over {n} decisions (one step; hard's other terms as it scored them):")
    print(
        "| feed priced by | chosen card feeds | real saving given a decision | score above the least | choices unlike v2 |"
    )
    print("|---|---:|---:|---:|---:|")
    for name in names:
        print(
            f"| {name} | {fed[name] / n:.1%} | {given[name] / n:.2f} | {cost[name] / n:.2f} | "
            f"{changed[name] / n:.1%} |"
        )


def _pick(d: Decision, price: Sequence[float], among: Sequence[int] | None = None) -> int:
    """The option hard would throw at these prices (its tie-break: the higher card), of
    all of them or of those ``among`` lists."""
    return min(
        range(len(d.options)) if among is None else among,
        key=lambda k: (d.base[k] + price[k], -min(d.options[k] % 13 + 1, 10), d.options[k]),
    )


def _seeds(path: Path) -> str:
    """The seeds a recording was played from (each decision's id starts with its seed)."""
    return ", ".join(sorted({d.decision.split(":")[0] for d in load(path)}))


def _named(names: tuple[str, ...], weights: Sequence[float]) -> str:
    return ", ".join(f"{n} {v:+.3f}" for n, v in zip(names, weights, strict=True))


def _write_weights(
    held: tuple[float, ...], meld: tuple[float, ...], opts: argparse.Namespace
) -> None:
    lines = [
        '"""Fitted by ``python -m benchmarks.meld_model fit --write`` (generated: do not edit).',
        "",
        f"Training seeds: {_seeds(opts.train)}; held out: {_seeds(opts.test)}; L2 {opts.l2}.",
        "Each tuple of weights: the intercept, then one weight per name, in order.",
        '"""',
        "",
        "HELD_NAMES: tuple[str, ...] = (",
        *(f"    {json.dumps(name)}," for name in feed_model.HELD_FEATURES),
        ")",
        "HELD_WEIGHTS: tuple[float, ...] = (",
        *(f"    {v!r}," for v in held),
        ")",
        "NAMES: tuple[str, ...] = (",
        *(f"    {json.dumps(name)}," for name in feed_model.FEATURES),
        ")",
        "WEIGHTS: tuple[float, ...] = (",
        *(f"    {v!r}," for v in meld),
        ")",
        "",
    ]
    WEIGHTS_FILE.write_text("\n".join(lines))
    print(f"wrote {WEIGHTS_FILE}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_record_arguments(
        sub.add_parser("record", help="play and record hard's discard decisions"), 100
    )
    fit_ = sub.add_parser("fit", help="fit on --train, report on held-out --test")
    fit_.add_argument("--train", type=Path, required=True)
    fit_.add_argument("--test", type=Path, required=True)
    fit_.add_argument("--l2", type=float, default=1.0)
    fit_.add_argument(
        "--held-every", type=int, default=3, help="decisions per one the held model learns from"
    )
    fit_.add_argument(
        "--contention",
        type=float,
        help="fit on the cards whose score without the feed is within this of the least only",
    )
    fit_.add_argument("--write", action="store_true", help="write domain/ai/feed_weights.py")
    opts = parser.parse_args(argv)
    if opts.command == "record":
        record(opts)
    else:
        evaluate(opts)


if __name__ == "__main__":
    main()
