"""The choice tool: its conditional logit recovers known weights, and a recorded decision's
contention set keeps hard v2's choice and the truth apart from the features."""

from __future__ import annotations

import math
import random

from benchmarks import choice_model, meld_model


def _choice(xs: list[list[float]], target: int) -> choice_model.Choice:
    return choice_model.Choice(xs, target, [0.0] * len(xs), 0, [0.0] * len(xs))


def test_the_conditional_logit_recovers_the_weights_that_made_the_choices() -> None:
    rng = random.Random(5)
    true = (-1.0, 2.0)
    cs = []
    for _ in range(3000):
        xs = [[rng.uniform(0, 4), float(rng.random() < 0.4)] for _ in range(rng.randint(2, 5))]
        us = [sum(w * x for w, x in zip(true, row, strict=True)) for row in xs]
        es = [math.exp(u) for u in us]
        r, acc, target = rng.random() * sum(es), 0.0, len(es) - 1
        for k, e in enumerate(es):
            acc += e
            if r <= acc:
                target = k
                break
        cs.append(_choice(xs, target))
    w = choice_model.fit(cs, [0, 1], l2=0.0)
    assert all(abs(v - t) < 0.2 for v, t in zip(w, true, strict=True)), w


def test_a_recorded_decision_gives_a_contention_set_with_v2s_choice_in_it() -> None:
    decisions = meld_model.record_game(meld_model.GameJob("baseline", "t20", 0, 1, "arcadia"))
    assert decisions
    for c in choice_model.choices(decisions, 4.0, "dry"):
        assert len(c.xs) >= 1 and 0 <= c.target < len(c.xs)
        assert c.xs[c.v2][0] == min(x[0] for x in c.xs) == 0.0  # v2 throws its least score
        assert all(x[0] <= 4.0 for x in c.xs)
        if c.saves[c.target] > 0:  # the target feeds only when every candidate does
            assert all(s > 0 for s in c.saves)
