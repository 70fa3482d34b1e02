"""Hard's discard re-ranked by the worth learned from play-outs (``domain.ai.discard_fit``)."""

from __future__ import annotations

from benchmarks.tournament import overridden
from domain.ai import choose, discard_fit, hard, knowledge, opponent
from domain.ai.choose import seeded_rng
from domain.ai.clock import Clock
from domain.cards import CARD_INDEX
from domain.commands import Discard
from domain.views import PlayerView, player_view
from tests.domain.ai.positions import random_positions

# Hidden-card invariance with the fit on is test_hidden_cards' (hard's defaults).


def _discards(setting: str, count: int) -> list[tuple[PlayerView, Discard | None]]:
    out = []
    with overridden([setting]):
        for state, seat in random_positions(seed=4401, count=count):
            if state.phase != "discard":
                continue
            view = player_view(state, seat)
            command = choose("hard", view, seed="fit", time_budget_ms=60_000)
            out.append((view, command if isinstance(command, Discard) else None))
    return out


def test_the_fit_only_reorders_hards_best_few_discards() -> None:
    assert len(discard_fit.WEIGHTS) == len(discard_fit.inputs([0.0] * 9))
    with_fit = _discards("hard.ROLLOUT_FIT=1", 400)
    without = _discards("hard.ROLLOUT_FIT=0", 400)
    changed = 0
    for (view, fitted), (_, plain) in zip(with_fit, without, strict=True):
        if fitted is None or plain is None:
            assert fitted == plain  # knocks are decided before the discard is ranked
            continue
        if fitted == plain:
            continue
        changed += 1
        # what v2 scored, without the fit: the fitted choice is one of its best few, never
        # a card v2 ruled out for feeding a known meld
        with overridden(["hard.ROLLOUT_FIT=0"]):
            scored = _v2_scores(view)
        leading = [index for score, index in scored[: discard_fit.TOP] if score < hard.FORBIDDEN]
        assert CARD_INDEX[fitted.card] in leading
    assert changed > 0  # the fit is on, and it changes some choices


def _v2_scores(view: PlayerView) -> list[tuple[float, int]]:
    """Hard's scores as ``hard.play`` works them out (same guesses), best first."""
    know = knowledge.read(view)
    clock = Clock(60_000)
    hands = opponent.guesses(know, seeded_rng("hard", view, "fit"), hard.GUESSES, clock)
    _, chance = hard._knock(view, know, hands, clock)
    return hard.quick_scores(view, know, hands, clock, chance)
