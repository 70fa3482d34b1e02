"""The meld-model tool: its metrics and its pure-Python fit give known answers, and a
recorded decision keeps the truth apart from what the features read."""

from __future__ import annotations

import math
import random

from benchmarks import meld_model
from domain.ai import knowledge


def test_auc_counts_ties_as_half() -> None:
    assert meld_model.auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75
    assert meld_model.auc([0.5, 0.5], [0, 1]) == 0.5


def test_newton_recovers_the_weights_that_made_the_labels() -> None:
    rng = random.Random(3)
    xs = [[rng.uniform(-2, 2), float(rng.random() < 0.5)] for _ in range(4000)]
    ys = [int(rng.random() < 1 / (1 + math.exp(-(-1.0 + 2.0 * a - 1.5 * b)))) for a, b in xs]
    w = meld_model.fit(xs, ys, l2=0.0)
    assert all(abs(v - t) < 0.25 for v, t in zip(w, (-1.0, 2.0, -1.5), strict=True)), w


def test_a_recorded_game_labels_each_card_from_the_real_hand() -> None:
    decisions = meld_model.record_game(meld_model.GameJob("easy", "t18", 0, 0, "arcadia"))
    assert decisions
    for d in decisions:
        assert len(d.options) == len(d.shares) == len(d.base) == len(d.feeds) == len(d.saves)
        known = knowledge.Knowledge(*d.know)
        assert not known.mine & d.real  # the opponent's hand is not hard's
        for index, saved in zip(d.options, d.saves, strict=True):
            assert known.mine >> index & 1  # every option is a card hard holds
            if saved > 0:
                assert knowledge.partners(d.real, index)
