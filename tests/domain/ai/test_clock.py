"""Hard's work is bounded by counts; the time cap is a last resort, and counted when it bites."""

from __future__ import annotations

from domain.ai import choose
from domain.ai.clock import cap_hits
from domain.views import PlayerView, player_view
from tests.domain.ai.positions import random_positions


def _discard_views(count: int) -> list[PlayerView]:
    views: list[PlayerView] = []
    for state, seat in random_positions(seed=2112, count=400):
        if state.phase == "discard" and state.to_act() == (seat,):
            views.append(player_view(state, seat))
            if len(views) == count:
                break
    return views


def test_without_a_cap_the_clock_never_changes_a_decision() -> None:
    """The default cap is never reached: a far larger one decides the same, uncounted."""
    before = cap_hits()
    for view in _discard_views(12):
        assert choose("hard", view, seed="c") == choose("hard", view, seed="c", time_budget_ms=1e9)
    assert cap_hits() == before


def test_a_cap_that_bites_is_counted_once_per_decision() -> None:
    views = _discard_views(5)
    before = cap_hits()
    for view in views:
        command = choose("hard", view, seed="c", time_budget_ms=0)
        assert command in view.legal  # thinking less still gives a legal move
    assert cap_hits() == before + len(views)
