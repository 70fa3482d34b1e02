"""The knocker's layout over HTTP and the WebSocket, against a real server.

The practice seed ``layout-27269`` deals seat 0 (the non-dealer, first to act) ten cards
that, with the up-card 5S taken, knock discarding 9C in two ways at 10 deadwood:
(AD 2D 3D)(6H 7H 8H) or (2C 2D 2S)(6H 7H 8H). Nothing the house AI does comes first,
so the position is the same on every run.
"""

from __future__ import annotations

import json
from typing import Any

import websockets

from tests.e2e.harness import Player, ServerProcess, opened

SEED = "layout-27269"
LAYOUTS = [
    [["AD", "2D", "3D"], ["6H", "7H", "8H"]],
    [["2C", "2D", "2S"], ["6H", "7H", "8H"]],
]


async def _at_the_knock(player: Player) -> tuple[str, int, dict[str, Any]]:
    match = await player.new_match(seed=SEED, level="easy", rules="arcadia")
    assert match["view"]["phase"] == "up_card" and match["view"]["to_act"] == [0]
    taken = await player.act(match["match_id"], {"type": "take_up_card"}, match["version"])
    assert taken.status_code == 200, taken.text
    body = taken.json()
    return match["match_id"], body["version"], body["view"]


async def _version(player: Player, match_id: str) -> int:
    return int((await player.view(match_id))["version"])


def _problem(response: Any, rule: str) -> dict[str, Any]:
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem: dict[str, Any] = response.json()
    assert problem["rule"] == rule, problem
    assert problem["type"] == "/problems/" + rule.replace("_", "-")
    return problem


# Each test plays a seeded match of a player of its own, so the file shares one server per
# backend (each_backend_site; on SQLite that is sqlite_site too).


async def test_a_knocker_chooses_the_layout_and_a_bad_one_changes_nothing(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site
    player = await Player.create(server.url)
    try:
        match_id, version, view = await _at_the_knock(player)
        (option,) = [o for o in view["knock_layouts"] if o["discard"] == "9C"]
        offered = [layout["melds"] for layout in option["layouts"]]
        assert sorted(offered) == sorted(LAYOUTS)
        hand = set(view["hand"])
        for entry in view["knock_layouts"]:
            for layout in entry["layouts"]:
                assert {c for meld in layout["melds"] for c in meld} | set(
                    layout["deadwood"]
                ) <= hand
        code = (await player.client.get(f"/v1/matches/{match_id}")).json()["watch_code"]
        spectator = await player.client.get(
            f"/v1/matches/{match_id}/spectator", params={"watch_code": code}
        )
        assert spectator.status_code == 200 and "knock_layouts" not in spectator.json()["view"]

        # Over HTTP: not a meld, then more deadwood than the least. Nothing moves.
        bad = [["AD", "2D", "6H"], ["7H", "8H", "2C"]]
        answer = await player.act(match_id, {"type": "knock", "card": "9C", "layout": bad}, version)
        assert "is not a set or a run" in _problem(answer, "invalid_layout")["detail"]
        worse = [["6H", "7H", "8H"]]
        answer = await player.act(
            match_id, {"type": "knock", "card": "9C", "layout": worse}, version
        )
        _problem(answer, "layout_not_least_deadwood")
        kept_out = [["9C", "AD", "2D", "3D"]]
        answer = await player.act(
            match_id, {"type": "knock", "card": "9C", "layout": kept_out}, version
        )
        _problem(answer, "invalid_layout")
        assert await _version(player, match_id) == version

        # Over the socket: the same refusal as an error frame, and still nothing moves.
        async with websockets.connect(
            f"{server.ws_url}/v1/matches/{match_id}/live",
            additional_headers={"Authorization": f"Bearer {player.token}"},
        ) as ws:
            snapshot = await opened(ws)
            assert snapshot["type"] == "snapshot" and snapshot["version"] == version
            frame = {"type": "knock", "card": "9C", "layout": worse}
            await ws.send(json.dumps({"type": "action", "action": frame, "version": version}))
            error = json.loads(await ws.recv())
            assert error["type"] == "error", error
            assert (error["problem"]["status"], error["problem"]["rule"]) == (
                422,
                "layout_not_least_deadwood",
            )
            assert await _version(player, match_id) == version

            # The other layout, over the socket: it is what the table shows.
            other = offered[1]
            await ws.send(
                json.dumps(
                    {
                        "type": "action",
                        "action": {"type": "knock", "card": "9C", "layout": other},
                        "version": version,
                    }
                )
            )
            while True:
                event = json.loads(await ws.recv())
                assert event["type"] != "error", event
                if event["type"] == "event" and event["event"]["type"] == "knocked":
                    break
        assert event["event"]["melds"] == other
        assert event["event"]["deadwood_points"] == 10
        log = (await player.events(match_id))["events"]
        knocked = next(e["event"] for e in log if e["event"]["type"] == "knocked")
        assert knocked["melds"] == other
    finally:
        await player.close()


async def test_without_a_layout_the_knock_lays_the_first_offered(
    sqlite_site: ServerProcess,
) -> None:
    player = await Player.create(sqlite_site.url)
    try:
        match_id, version, view = await _at_the_knock(player)
        (option,) = [o for o in view["knock_layouts"] if o["discard"] == "9C"]
        answer = await player.act(match_id, {"type": "knock", "card": "9C"}, version)
        assert answer.status_code == 200, answer.text
        knocked = next(
            e["event"] for e in answer.json()["events"] if e["event"]["type"] == "knocked"
        )
        assert knocked["melds"] == option["layouts"][0]["melds"]
        assert knocked["deadwood"] == option["layouts"][0]["deadwood"]
    finally:
        await player.close()
