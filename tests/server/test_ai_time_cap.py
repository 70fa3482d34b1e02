"""The server logs every AI decision its time cap cut short (issue 21: a last resort, counted)."""

from __future__ import annotations

import logging

import pytest

from domain.commands import DrawStock, PassUpCard
from domain.rules import make_rules
from domain.views import player_view
from infra.store import open_store
from server.match_service import MatchService

AI_SEAT = 1  # create() seats the player at 0 and the house AI at 1


async def _play_until_the_ai_discards(service: MatchService, match_id: str) -> None:
    """Play the human's simplest moves until the AI has made a discard decision."""
    for _ in range(40):
        state = (await service.load(match_id)).state
        if any(m.seat == AI_SEAT and m.action == "discard" for m in state.hand.moves):  # type: ignore[union-attr]
            return
        view = player_view(state, 0)
        pick = next((c for c in view.legal if isinstance(c, (PassUpCard, DrawStock))), None)
        await service.act(match_id, "p1", lambda seat, p=pick or view.legal[0]: p, None)
    raise AssertionError("the AI never discarded")


@pytest.mark.parametrize(("cap_ms", "logged"), [(0, True), (None, False)])
async def test_a_decision_cut_short_by_the_cap_is_logged(
    sqlite_url: str, caplog: pytest.LogCaptureFixture, cap_ms: float | None, logged: bool
) -> None:
    store = await open_store(sqlite_url, migrate=False)
    service = MatchService(store, ai_time_cap_ms=cap_ms)
    try:
        with caplog.at_level(logging.WARNING, logger="ginrummy.ai"):
            match_id = await service.start(("p1", "ai:hard"), make_rules("arcadia"), "cap-log")
            await _play_until_the_ai_discards(service, match_id)
    finally:
        await store.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "ginrummy.ai"]
    assert bool(lines) is logged
    if logged:
        assert "time cap" in lines[0] and match_id in lines[0]
