"""A match dealt from a chosen seed is watched only with its watch code.

Found by a red-team review: such a match shows ``seed_commitment = sha256("seed:" +
seed)``, and its first public cards narrow the seed down, so an anonymous spectator
guessed ``lucky7`` in one hash per guess and knew every card of every hand. Like a
private table's match, it now has a watch code its players (or, for two house AIs, its
host) share, and it is not listed among the matches being played. A fair deal's match
is watched and listed as before.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess

SHORT = {"preset": "classic", "target": 30}


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_match_from_a_chosen_seed_is_watched_only_with_its_code(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path).start()
    player = await Player.create(server.url)
    anyone = httpx.AsyncClient(base_url=server.url, timeout=30)
    try:
        seeded = await player.new_match(seed="lucky7", rules=SHORT)
        fair = await player.new_match(rules=SHORT)
        code = seeded["watch_code"]
        assert code and fair["watch_code"] is None
        assert seeded["view"]["seed_commitment"] == hashlib.sha256(b"seed:lucky7").hexdigest()

        spectator = f"/v1/matches/{seeded['match_id']}/spectator"
        for params in ({}, {"watch_code": "lucky7"}):  # no code, or a wrong one
            refused = await anyone.get(spectator, params=params)
            assert refused.status_code == 403, refused.text
            assert refused.json()["rule"] == "watch_code_required"
        watched = await anyone.get(spectator, params={"watch_code": code})
        assert watched.status_code == 200, watched.text
        assert watched.json()["watch_code"] is None  # a spectator is never given the code
        assert (await anyone.get(f"/v1/matches/{fair['match_id']}/spectator")).status_code == 200

        socket = f"{server.ws_url}/v1/matches/{seeded['match_id']}/watch"
        async with websockets.connect(socket) as ws:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403

        listed = (await anyone.get("/v1/matches/watchable")).json()["matches"]
        assert [entry["match_id"] for entry in listed] == [fair["match_id"]]

        house = await player.client.post(
            "/v1/house-matches",
            json={"seats": ["ai:easy", "ai:medium"], "rules": SHORT, "seed": "lucky7"},
        )
        assert house.status_code == 201, house.text
        house_id, house_code = house.json()["match_id"], house.json()["watch_code"]
        assert house_code
        house_view = f"/v1/matches/{house_id}/spectator"
        assert (await anyone.get(house_view)).status_code == 403
        assert (await anyone.get(house_view, params={"watch_code": house_code})).status_code == 200
        unseeded = await player.client.post(
            "/v1/house-matches", json={"seats": ["ai:easy", "ai:medium"], "rules": SHORT}
        )
        assert unseeded.status_code == 201 and unseeded.json()["watch_code"] is None
    finally:
        await anyone.aclose()
        await player.close()
        server.stop()
