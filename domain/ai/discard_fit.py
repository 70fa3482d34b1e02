"""Hard's leading discards re-ranked by a worth learned from play-outs (issue 21, session 44).

Offline (``benchmarks.discard_rollouts``), each of hard's best few discards was played
to the end of the hand many times on reshuffled stocks against the opponent's real
hand; a linear model of the view-only parts of hard's score (medium's keep judgement,
the guessed feed, the stock) was fitted to what each candidate really scored. Here the
model picks among the ``TOP`` discards hard scores best: the hidden hand was only ever a
label, never an input. Off (``WEIGHTS`` empty, or ``hard.ROLLOUT_FIT`` false) hard
chooses as v2 did.
"""

from __future__ import annotations

from collections.abc import Sequence

NAMES = (
    "score",
    "base",
    "feed",
    "share",
    "value",
    "left",
    "feed*stock",
    "base*stock",
    "value*chance",
)
TOP = 3  # the discards, best-scored first, the model may choose among
# The fitted weights of ``inputs`` (benchmarks/RESULTS-ai.md, session 44).
WEIGHTS: tuple[float, ...] = (
    -0.5010,
    -0.4807,
    -0.0203,
    -0.3132,
    -0.6279,
    -0.6748,
    0.6030,
    0.8569,
    1.1665,
)


def row(
    score: float,
    base: float,
    feed: float,
    share: float,
    value: int,
    left: int,
    stock_size: int,
    chance: float,
    known: bool,
) -> list[float]:
    """One candidate's raw features, as the play-outs recorded them."""
    return [
        score,
        base,
        feed,
        share,
        float(value),
        float(left),
        stock_size / 31,
        chance,
        1.0 if known else 0.0,
    ]


def inputs(raw: Sequence[float]) -> list[float]:
    """The model's inputs for one candidate: the raw features and a few interactions."""
    score, base, feed, share, value, left, stock, chance, _known = raw
    return [score, base, feed, share, value, left, feed * stock, base * stock, value * chance]


def worth(raw: Sequence[float], weights: Sequence[float] | None = None) -> float:
    """The model's worth of a candidate (higher is better; only differences matter)."""
    chosen = WEIGHTS if weights is None else weights
    return sum(w * x for w, x in zip(chosen, inputs(raw), strict=True))
