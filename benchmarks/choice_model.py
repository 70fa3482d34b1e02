"""Fit hard's discard correction on the choice itself: near-tied candidates, a conditional logit.

Session 18 (benchmarks/RESULTS-ai.md) found that a better meld prediction over all cards
did not make hard feed less, because what pays is being right on the few near-tied
choices. Here the model is fitted on exactly those: for each recorded discard decision
(``benchmarks.meld_model record``, which keeps hard's scores) the candidates whose hard v2
score (``base + feed``) is within ``--contention`` points of the best, and as the outcome
the candidate that is best *with the real feed* (``base + save``, the opponent's real hand:
labels only). A conditional logit over the candidates, utility ``w . x``, is fitted by
Newton's method with an L2 penalty; ``x`` holds hard v2's score and the view-only features
of ``domain.ai.feed_model`` (the learned meld chance and its inputs), so the choice is
hard's score minus a learned correction, within the contention set only.

``fit`` chooses every held-out decision again (one step, everything else as hard scored
it) and reports how often the chosen card feeds and what it really saves the opponent,
against hard v2 on the same decisions, with ``--frontier`` also fixed extra prices (no
fit) and the cheat that sees part of the real hand: a fed rate bought with a worse kept
hand ("base above least") lies on the fixed prices' curve, and did not pay in play
(RESULTS-ai.md, session 20), so compare a model against that curve, not only against v2.

    python -m benchmarks.choice_model --train T.jsonl --test H.jsonl --target dry --frontier
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from benchmarks.meld_model import Decision, _pick, _solve, load
from domain.ai import feed_model, hard
from domain.ai.knowledge import Knowledge

# per candidate, after "score" (hard v2's base + feed, centred on the decision's best)
NAMES: tuple[str, ...] = (
    "score",
    "feed",  # the guesses' expected saving (hard v2's feed term)
    "share",  # the guesses' meld share
    "chance",  # the learned meld chance (feed_model)
    "learned_feed",  # the learned chance times the guesses' saving per meld (FEED_MODEL=1)
    "chance_minus_share",
    "chance_x_stock",
    *feed_model.FEATURES,
)


def candidate_features(d: Decision) -> list[list[float]]:
    """Every option's features, in ``NAMES`` order (from the view and hard's scores only)."""
    table = feed_model.table_of(Knowledge(*d.know), d.last)
    totals = [b + f for b, f in zip(d.base, d.feeds, strict=True)]
    best = min(totals)
    stock = table.know.stock_size / 31
    view_features = [
        feed_model.features(table, index, share)
        for index, share in zip(d.options, d.shares, strict=True)
    ]
    chances = [feed_model.chance(features) for features in view_features]
    learned = hard.feed_at_chance(d.feeds, d.shares, chances)
    return [
        [total - best, fed, share, p, learned_feed, p - share, p * stock, *features]
        for total, fed, share, p, learned_feed, features in zip(
            totals, d.feeds, d.shares, chances, learned, view_features, strict=True
        )
    ]


class Choice:
    """One decision's contention set: candidates' features and real outcomes."""

    __slots__ = ("extra", "feeds", "saves", "target", "v2", "xs")

    def __init__(
        self, xs: list[list[float]], target: int, saves: list[float], v2: int, extra: list[float]
    ) -> None:
        self.xs = xs
        self.target = target
        self.saves = saves
        self.v2 = v2
        self.extra = extra  # base score above the decision's least base score
        self.feeds = [x[1] for x in xs]


def choices(decisions: list[Decision], contention: float, target: str = "real") -> list[Choice]:
    out = []
    for d in decisions:
        xs_all = candidate_features(d)
        keep = [k for k, x in enumerate(xs_all) if x[0] <= contention]
        least = min(d.base)
        totals = [d.base[k] + d.saves[k] for k in keep]
        if target == "real":
            goal = min(range(len(keep)), key=lambda j: (totals[j], xs_all[keep[j]][0]))
        elif target == "dry":  # the candidate that does not feed with the best v2 score
            dry = [j for j, k in enumerate(keep) if d.saves[k] <= 0]
            goal = min(dry, key=lambda j: xs_all[keep[j]][0]) if dry else _v2_pick(d, keep)
        else:  # "cheat:T": the choice with T of the real saving in the feed price
            t = float(target.split(":")[1])
            goal = min(
                range(len(keep)),
                key=lambda j: (
                    xs_all[keep[j]][0] + t * (d.saves[keep[j]] - d.feeds[keep[j]]),
                    -min(d.options[keep[j]] % 13 + 1, 10),
                    d.options[keep[j]],
                ),
            )
        v2 = _v2_pick(d, keep)
        out.append(
            Choice(
                [xs_all[k] for k in keep],
                goal,
                [d.saves[k] for k in keep],
                v2,
                [d.base[k] - least for k in keep],
            )
        )
    return out


def _v2_pick(d: Decision, keep: list[int]) -> int:
    """Position in ``keep`` of hard v2's choice among them."""
    return keep.index(_pick(d, d.feeds, keep))


def scales(cs: list[Choice], columns: list[int]) -> list[float]:
    """Each column's spread of the within-decision deviations (for the penalty)."""
    out = []
    for j in columns:
        total = count = 0.0
        for c in cs:
            if len(c.xs) < 2:
                continue
            mean = sum(x[j] for x in c.xs) / len(c.xs)
            total += sum((x[j] - mean) ** 2 for x in c.xs)
            count += len(c.xs)
        out.append(math.sqrt(total / count) if count and total else 1.0)
    return out


def fit(cs: list[Choice], columns: list[int], l2: float, rounds: int = 30) -> list[float]:
    """Conditional-logit weights over ``columns`` (raw features), Newton's method, L2."""
    sc = scales(cs, columns)
    dim = len(columns)
    data = [
        ([[x[j] / s for j, s in zip(columns, sc, strict=True)] for x in c.xs], c.target)
        for c in cs
        if len(c.xs) >= 2
    ]
    w = [0.0] * dim
    w[0] = -1.0  # start at hard v2: a lower score is better
    for _ in range(rounds):
        grad = [l2 * v for v in w]
        hess = [[l2 if i == k else 0.0 for k in range(dim)] for i in range(dim)]
        for xs, target in data:
            us = [sum(a * b for a, b in zip(w, x, strict=True)) for x in xs]
            top = max(us)
            es = [math.exp(u - top) for u in us]
            z = sum(es)
            ps = [e / z for e in es]
            mean = [sum(p * x[i] for p, x in zip(ps, xs, strict=True)) for i in range(dim)]
            for i in range(dim):
                grad[i] -= xs[target][i] - mean[i]
            for p, x in zip(ps, xs, strict=True):
                dev = [x[i] - mean[i] for i in range(dim)]
                for i in range(dim):
                    pdi = p * dev[i]
                    if pdi:
                        row = hess[i]
                        for k in range(dim):
                            row[k] += pdi * dev[k]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return [v / s for v, s in zip(w, sc, strict=True)]


def log_lik(cs: list[Choice], columns: list[int], w: list[float]) -> float:
    total = 0.0
    n = 0
    for c in cs:
        if len(c.xs) < 2:
            continue
        us = [sum(a * x[j] for a, j in zip(w, columns, strict=True)) for x in c.xs]
        top = max(us)
        z = sum(math.exp(u - top) for u in us)
        total += us[c.target] - top - math.log(z)
        n += 1
    return total / max(n, 1)


def within_auc(cs: list[Choice], column: int) -> float:
    """Over pairs of one contention set, one feeding and one not: the chance the
    feature is higher for the feeding one (ties half)."""
    good = pairs = 0.0
    for c in cs:
        for x, r in zip(c.xs, c.saves, strict=True):
            if r <= 0:
                continue
            for y, q in zip(c.xs, c.saves, strict=True):
                if q <= 0:
                    pairs += 1
                    good += 1.0 if x[column] > y[column] else 0.5 if x[column] == y[column] else 0.0
    return good / pairs if pairs else math.nan


def cheat(c: Choice, t: float) -> int:
    """The choice with ``t`` of the real saving in the feed price (diagnostic, truth)."""
    totals = [x[0] + t * (r - f) for x, r, f in zip(c.xs, c.saves, c.feeds, strict=True)]
    best = min(totals)
    return c.v2 if totals[c.v2] <= best + 1e-9 else totals.index(best)


def pick(c: Choice, columns: list[int], w: list[float]) -> int:
    """The candidate the model chooses: highest utility (ties: hard v2's choice)."""
    us = [sum(a * x[j] for a, j in zip(w, columns, strict=True)) for x in c.xs]
    best = max(us)
    if us[c.v2] >= best - 1e-9:
        return c.v2
    return us.index(best)


def study(
    cs: list[Choice], chooser: str, columns: list[int] | None, w: list[float] | None
) -> tuple[float, float, float, float]:
    fed = given = extra = changed = 0.0
    for c in cs:
        if chooser == "v2":
            k = c.v2
        elif chooser.startswith("cheat:"):
            k = cheat(c, float(chooser.split(":")[1]))
        else:
            k = pick(c, columns or [], w or [])
        fed += c.saves[k] > 0
        given += c.saves[k]
        extra += c.extra[k]
        changed += k != c.v2
    n = len(cs)
    return fed / n, given / n, extra / n, changed / n


MODELS: dict[str, tuple[str, ...]] = {
    "score + learned chance": ("score", "chance"),
    "score + learned feed": ("score", "learned_feed"),
    "score + feed + chance + share": ("score", "feed", "share", "chance"),
    "score + small set": (
        "score",
        "feed",
        "share",
        "chance",
        "learned_feed",
        "chance_minus_share",
        "chance_x_stock",
    ),
    "score + all": NAMES,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", type=Path, required=True)
    parser.add_argument("--test", type=Path, required=True)
    parser.add_argument("--contention", type=float, nargs="+", default=[4.0])
    parser.add_argument("--l2", type=float, nargs="+", default=[1.0])
    parser.add_argument("--target", default="real", help="real, dry or cheat:T")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument(
        "--frontier",
        action="store_true",
        help="also fixed knobs, score + a * feature (no fit), for a fed-rate/cost curve",
    )
    opts = parser.parse_args(argv)
    began = time.perf_counter()
    train, test = load(opts.train), load(opts.test)
    print(f"train {len(train)} decisions, test {len(test)}", file=sys.stderr)
    print(
        "| contention | L2 | model | train decisions tied | train log-lik | held-out fed "
        "| real saving | base above least | unlike v2 |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for contention in opts.contention:
        tc = choices(train, contention, opts.target)
        hc = choices(test, contention, opts.target)
        tied = sum(len(c.xs) >= 2 for c in tc) / len(tc)
        f, g, e, ch = study(hc, "v2", None, None)
        print(
            f"| {contention} | | hard v2 | {tied:.1%} | | {f:.1%} | {g:.2f} | {e:.2f} | {ch:.1%} |"
        )
        if opts.frontier:
            for t in (0.05, 0.1, 0.25):
                f, g, e, ch = study(hc, f"cheat:{t}", None, None)
                print(
                    f"| {contention} | | cheat: {t:.0%} real hand (truth) | | | "
                    f"{f:.1%} | {g:.2f} | {e:.2f} | {ch:.1%} |"
                )
            print(
                "    within-contention AUC (feeding vs not): "
                + ", ".join(
                    f"{n} {within_auc(hc, NAMES.index(n)):.3f}"
                    for n in ("feed", "share", "chance", "learned_feed", "held_logit")
                )
            )
            for name in ("feed", "share", "chance"):
                for scale in (0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0):
                    w = [-1.0, -scale]
                    cols = [0, NAMES.index(name)]
                    f, g, e, ch = study(hc, "model", cols, w)
                    print(
                        f"| {contention} | | score + {scale} x {name} (fixed) | | | "
                        f"{f:.1%} | {g:.2f} | {e:.2f} | {ch:.1%} |"
                    )
        if not opts.models:
            continue
        for label in opts.models.split(","):
            columns = [NAMES.index(n) for n in MODELS[label]]
            for l2 in opts.l2:
                w = fit(tc, columns, l2)
                f, g, e, ch = study(hc, "model", columns, w)
                print(
                    f"| {contention} | {l2} | {label} | | {log_lik(tc, columns, w):.3f} | "
                    f"{f:.1%} | {g:.2f} | {e:.2f} | {ch:.1%} |",
                    flush=True,
                )
                if label == "score + small set" or len(columns) <= 4:
                    print(
                        "    weights: "
                        + ", ".join(
                            f"{NAMES[j]} {v:+.4f}" for j, v in zip(columns, w, strict=True)
                        ),
                        flush=True,
                    )
    print(f"{time.perf_counter() - began:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
