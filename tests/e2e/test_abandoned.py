"""A rated match abandoned by both players, on a real server: not rated, and it says so.

Playing one out through the server would take a hundred one-second turns (the move clock's
floor is ``MIN_CLOCK_MS``, and no setting lowers it), so the match is decided by the domain
as the server's timer would decide it (``decide_timeout`` at each deadline, every turn of
both seats) and written to the server's own database; the server then reads it as any
match: its seats' and a spectator's views, the socket frames, the event log, the ratings.
"""

from __future__ import annotations

import pytest
import websockets

from domain.events import Event, MatchSettled
from infra.store import open_store
from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.test_absence import Socket
from tests.e2e.test_openapi_conformance import Checker
from tests.infra.helpers import both_away as infra_both_away


def both_away(match_id: str, players: tuple[str, str], start_ms: int) -> list[Event]:
    """The log of a rated match whose every turn timed out: the house AI played both seats."""
    return infra_both_away(players, match_id, start_ms)[1]


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_match_abandoned_by_both_players_is_not_rated_and_says_so(
    server: ServerProcess,
) -> None:
    ann = await Player.create(server.url, "Ann")
    bob = await Player.create(server.url, "Bob")
    try:
        match_id = "abandoned-by-both"
        events = both_away(match_id, (ann.id, bob.id), 1_700_000_000_000)
        settled = events[-1]
        assert isinstance(settled, MatchSettled) and settled.abandoned
        store = await open_store(server.database_url, migrate=False)
        try:
            await store.append(match_id, 0, events)
        finally:
            await store.close()

        check = Checker()
        for player, seat in ((ann, 0), (bob, 1)):
            answer = await player.client.get(f"/v1/matches/{match_id}")
            check.check(answer, "/v1/matches/{match_id}")
            body = answer.json()
            assert (body["seat"], body["rated"]) == (seat, True)
            assert body["view"]["settlement"]["abandoned"] is True
            rating = await player.client.get(f"/v1/players/{player.id}/rating")
            check.check(rating, "/v1/players/{player_id}/rating")
            record = rating.json()
            assert record["history"] == [] and round(record["rating"]) == 1500, record
            listed = await player.client.get("/v1/matches")
            check.check(listed, "/v1/matches")
            (summary,) = listed.json()["matches"]
            assert (summary["match_id"], summary["abandoned"]) == (match_id, True)
        watched = await ann.client.get(f"/v1/matches/{match_id}/spectator")
        check.check(watched, "/v1/matches/{match_id}/spectator")
        assert watched.json()["view"]["settlement"]["abandoned"] is True
        log = await ann.events(match_id)
        assert log["events"][-1]["event"]["type"] == "match_settled"
        assert log["events"][-1]["event"]["abandoned"] is True

        # the socket frames say it too, and conform to asyncapi.yaml
        live = f"{server.ws_url}/v1/matches/{match_id}/live?token={ann.token}"
        async with websockets.connect(live) as ws:
            frame = await Socket(ws, "live", "receiveFeed").until(lambda f: f["type"] == "snapshot")
        assert frame["view"]["settlement"]["abandoned"] is True
        async with websockets.connect(f"{server.ws_url}/v1/matches/{match_id}/watch") as ws:
            frame = await Socket(ws, "watch", "receiveWatch").until(
                lambda f: f["type"] == "snapshot"
            )
        assert frame["view"]["settlement"]["abandoned"] is True
    finally:
        await ann.close()
        await bob.close()
