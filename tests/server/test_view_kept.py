"""A seat's newest view is built once for the answer and that seat's socket (issue 22).

An action's HTTP answer and the acting seat's live socket (its frame for the last
event) both showed the newest state to the same seat, and each built the view. The
service keeps the newest view per seat for its record; the other seat never gets it.
"""

from __future__ import annotations

import msgspec

from domain.match import fold
from domain.rules import make_rules
from domain.views import player_view
from infra.store import open_store
from server.match_service import MatchService


async def test_the_answer_s_view_is_what_the_same_seat_is_shown_next(sqlite_url: str) -> None:
    store = await open_store(sqlite_url, migrate=False)
    try:
        service = MatchService(store)
        rules = make_rules("classic", target=100)
        match_id = await service.start(("p0", "p1"), rules, "kept-views")
        for _ in range(6):
            record = await service.load(match_id)
            seat = record.state.to_act()[0]
            legal = player_view(record.state, seat).legal
            answer = await service.act(
                match_id, f"p{seat}", lambda s, first=legal[0]: first, record.state.version
            )
            record = await service.load(match_id, at_least=answer.version)
            # the socket's frame for the last event: its own fold of the log, same version
            replayed = fold(r.match_event for r in record.events)
            assert replayed is not record.state
            assert service.seat_view(record, replayed, seat) is answer.view
            other = service.seat_view(record, record.state, 1 - seat)
            assert other is not answer.view
            assert msgspec.structs.replace(other, clock=None) == player_view(record.state, 1 - seat)
            assert other.hand != answer.view.hand  # the other seat's cards, not these
            older = service.seat_view(record, record.state_at(answer.version - 1), seat)
            assert older == player_view(record.state_at(answer.version - 1), seat)
    finally:
        await store.close()
