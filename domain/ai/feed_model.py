"""A learned chance that a discard completes a meld in the opponent's hand, from the view alone.

Hard's sampled guesses of the opponent's hand rank its discards by this chance with an
AUC of 0.78 (benchmarks/RESULTS-ai.md, session 17), and no likelihood tweak moved that.
Here two logistic regressions, fitted offline (``benchmarks/meld_model.py``) on hard's
recorded discards against several levels with the real hand as the label, do the job
in two steps: first the chance that each unseen card is in the opponent's hand (from
its rank and what the opponent threw, let pass and took around it), then, with those
chances taken as independent, the chance that a discard's partners are held, which
with a few counts and the guesses' own meld share (stacked) gives the meld chance.

Every input comes from ``Knowledge`` (itself rebuilt from ``PlayerView``) and the order
of the public moves: nothing here can see a hidden card. The coefficients are data,
generated into ``feed_weights``; this module only computes features and chances.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from domain.ai import feed_weights
from domain.ai.knowledge import Knowledge, bits, partners
from domain.ai.opponent import Guess
from domain.cards import CARD_INDEX
from domain.views import PlayerView

HELD_FEATURES: tuple[str, ...] = (
    "base_logit",  # log-odds of hidden cards / unseen cards
    "value",  # deadwood value / 10
    "value_x_throws",  # high cards go first: value times the opponent's discards / 10
    "threw_rank",  # cards of its rank the opponent threw
    "threw_near1",  # its suited neighbours (rank +-1) the opponent threw
    "threw_near2",  # suited cards two ranks away the opponent threw
    "passed_rank",
    "passed_near1",
    "passed_near2",
    "known_rank",  # cards of its rank the opponent is known to hold
    "known_near1",
    "known_near2",
    "dead_rank",  # cards of its rank no one can meld with (my hand, the pile)
    "dead_near1",
    "dead_near2",
    "last_threw_rank",  # the opponent's latest discard has its rank
    "last_threw_near",  # ...or is its suit within two ranks
    "stock",  # stock size / 31
)

FEATURES: tuple[str, ...] = (
    "held_logit",  # log-odds of a meld if each card were held with its learned chance
    "naive_logit",  # ...with every unseen card at the base rate
    "share_logit",  # log-odds of the guesses' weighted share that meld with the card
    "set_known",  # two of its rank are known to be held
    "set_half",  # one known to be held, another unseen
    "run_known",  # run windows (r-2 r-1, r-1 r+1, r+1 r+2) with both cards known held
    "run_half",  # ...one known held, the other unseen
    "run_unseen",  # ...both unseen
    "rank_unseen",  # cards of its rank still unseen
    "stock",
    "throws",  # the opponent's discards this hand / 10
    "edge",  # ace or king: one run window
    "value",
    "held_x_stock",
    "share_x_throws",
)

_EPS = 0.01


@dataclass(frozen=True, slots=True)
class Table:
    """What the features of every discard of one decision share."""

    know: Knowledge
    base_rate: float
    throws: int
    held: tuple[float, ...]  # per card index: the chance the opponent holds it


def table(
    view: PlayerView, know: Knowledge, held_weights: tuple[float, ...] | None = None
) -> Table:
    return table_of(know, last_discard(view), held_weights)


def last_discard(view: PlayerView) -> int:
    """The opponent's latest discard (bit index), -1 before its first."""
    last = -1
    for move in view.moves:
        if move.seat != view.seat and move.action in ("discard", "knock") and move.card:
            last = CARD_INDEX[move.card]
    return last


def table_of(know: Knowledge, last: int, held_weights: tuple[float, ...] | None = None) -> Table:
    """``table`` from the knowledge and the opponent's latest discard (-1: none yet)."""
    weights = feed_weights.HELD_WEIGHTS if held_weights is None else held_weights
    unseen = know.unseen.bit_count()
    rate = min(1.0, know.hidden_count / unseen) if unseen else 0.0
    throws = know.opponent_threw.bit_count()
    held = [0.0] * 52
    for index in bits(know.opponent_known):
        held[index] = 1.0
    if unseen:
        chances = {
            i: _chance(held_features(know, last, rate, i), weights) for i in bits(know.unseen)
        }
        # scaled so that the unseen cards add up to the hidden cards, as they must
        scale = know.hidden_count / (sum(chances.values()) or 1.0)
        for index, p in chances.items():
            held[index] = min(1.0, p * scale)
    return Table(know, rate, throws, tuple(held))


def _around(index: int) -> tuple[list[int], list[int], list[int]]:
    """Cards of its rank, its suited neighbours, the suited cards two ranks away."""
    suit, rank = divmod(index, 13)
    others = [s * 13 + rank for s in range(4) if s != suit]
    near1 = [suit * 13 + r for r in (rank - 1, rank + 1) if 0 <= r < 13]
    near2 = [suit * 13 + r for r in (rank - 2, rank + 2) if 0 <= r < 13]
    return others, near1, near2


def _count(mask: int, cards: list[int]) -> float:
    return float(sum(1 for i in cards if mask >> i & 1))


def held_features(know: Knowledge, last: int, rate: float, index: int) -> list[float]:
    """The held model's inputs for unseen card ``index``, in ``HELD_FEATURES`` order."""
    groups = _around(index)
    suit, rank = divmod(index, 13)
    value = min(rank + 1, 10) / 10
    dead = know.mine | know.pile
    out = [_logit(rate), value, value * know.opponent_threw.bit_count() / 10]
    for mask in (know.opponent_threw, know.opponent_passed, know.opponent_known, dead):
        out.extend(_count(mask, group) for group in groups)
    out.append(float(last >= 0 and last % 13 == rank))
    out.append(float(last >= 0 and last // 13 == suit and 0 < abs(last % 13 - rank) <= 2))
    out.append(know.stock_size / 31)
    return out


def meld_share(hands: list[Guess], index: int) -> float:
    """The guesses' weighted share that meld with card ``index``."""
    total = sum(g.weight for g in hands)
    if not total:
        return 0.0
    return sum(g.weight for g in hands if partners(g.hand, index)) / total


def _logit(p: float) -> float:
    p = min(1.0 - _EPS, max(_EPS, p))
    return math.log(p / (1.0 - p))


def _meld_chance(q: list[float], index: int) -> float:
    """Chance that card ``index`` melds, each card held independently with chance ``q``."""
    suit, rank = divmod(index, 13)
    a, b, c = (q[s * 13 + rank] for s in range(4) if s != suit)
    p_set = a * b + a * c + b * c - 2 * a * b * c
    row = [
        q[suit * 13 + r] if 0 <= r < 13 else 0.0 for r in (rank - 2, rank - 1, rank + 1, rank + 2)
    ]
    p_run = _run_chance(row)
    return 1.0 - (1.0 - p_set) * (1.0 - p_run)


def features(t: Table, index: int, share: float) -> list[float]:
    """The meld model's inputs for discarding card ``index``, in ``FEATURES`` order."""
    know = t.know
    suit, rank = divmod(index, 13)
    known, unseen = know.opponent_known, know.unseen
    others, _, _ = _around(index)
    flat = [1.0 if known >> i & 1 else t.base_rate if unseen >> i & 1 else 0.0 for i in range(52)]
    rank_known = sum(1 for i in others if known >> i & 1)
    rank_unseen = sum(1 for i in others if unseen >> i & 1)

    def at(r: int) -> int:
        return suit * 13 + r if 0 <= r < 13 else -1

    run = [0, 0, 0]  # windows: both known, one known and one unseen, both unseen
    for a, b in (
        (at(rank - 2), at(rank - 1)),
        (at(rank - 1), at(rank + 1)),
        (at(rank + 1), at(rank + 2)),
    ):
        if a < 0 or b < 0:
            continue
        ka, kb, ua, ub = known >> a & 1, known >> b & 1, unseen >> a & 1, unseen >> b & 1
        if ka and kb:
            run[0] += 1
        elif (ka and ub) or (kb and ua):
            run[1] += 1
        elif ua and ub:
            run[2] += 1
    stock = know.stock_size / 31
    throws = t.throws / 10
    held_logit = _logit(_meld_chance(list(t.held), index))
    share_logit = _logit(share)
    return [
        held_logit,
        _logit(_meld_chance(flat, index)),
        share_logit,
        float(rank_known >= 2),
        float(rank_known == 1 and rank_unseen >= 1),
        float(run[0]),
        float(run[1]),
        float(run[2]),
        float(rank_unseen),
        stock,
        throws,
        float(rank in (0, 12)),
        min(rank + 1, 10) / 10,
        held_logit * stock,
        share_logit * throws,
    ]


def _run_chance(q: list[float]) -> float:
    """Chance that, of the suited cards at r-2, r-1, r+1, r+2 (held independently with
    chances ``q``), two in a row around r are held."""
    total = 0.0
    for combo in range(16):
        have = [combo >> k & 1 for k in range(4)]
        if not ((have[0] and have[1]) or (have[1] and have[2]) or (have[2] and have[3])):
            continue
        p = 1.0
        for k in range(4):
            p *= q[k] if have[k] else 1.0 - q[k]
        total += p
    return total


def _chance(values: list[float], weights: tuple[float, ...]) -> float:
    if not weights:  # not fitted yet: the base rate
        return 1.0 / (1.0 + math.exp(-values[0]))
    z = weights[0] + sum(w * x for w, x in zip(weights[1:], values, strict=True))
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def chance(values: list[float], weights: tuple[float, ...] | None = None) -> float:
    """The meld chance from ``features``' output (``weights`` starts with the intercept)."""
    return _chance(values, feed_weights.WEIGHTS if weights is None else weights)
