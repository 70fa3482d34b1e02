"""Two people at a table, driven through a real server: the helpers the table tests share."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import websockets

from domain.melds import best_discard
from tests.e2e.harness import Player, as_action
from tests.e2e.secrecy import Recorder

QUICK_RULES = {"preset": "arcadia", "target": 25}
ENDINGS = ("big_gin", "gin", "knock", "lay_off", "finish_layoffs", "next_hand")


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A player who ends hands: it knocks when it can and else throws its worst card."""
    legal = view["legal"]
    for kind in ENDINGS:
        options = [c for c in legal if c["type"] == kind]
        if options:
            return as_action(rng.choice(options))
    if view["phase"] == "discard" and view["seat"] in view["to_act"]:
        # the engine's choice, computed here: a table's match gives no hints by default
        return {"type": "discard", "card": best_discard(view["hand"], view["taken"])[0]}
    return as_action(rng.choice(legal))


def play_on(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal move that does not end the hand (no knock or gin), where there is one: for a
    test that waits for something (timeouts, a claim) while the match must go on."""
    ending = ("knock", "gin", "big_gin")
    if view["phase"] == "discard" and view["seat"] in view["to_act"]:
        choice = pick(view, rng)
        if choice["type"] in ending:
            return {"type": "discard", "card": choice["card"]}
        return choice
    options = [c for c in view["legal"] if c["type"] not in ending] or view["legal"]
    return as_action(rng.choice(options))


async def open_table(player: Player, **body: Any) -> dict[str, Any]:
    body.setdefault("rules", QUICK_RULES)
    response = await player.client.post("/v1/tables", json=body)
    assert response.status_code == 201, response.text
    table: dict[str, Any] = response.json()
    return table


async def join(player: Player, table_id: str, **body: Any) -> httpx.Response:
    return await player.client.post(f"/v1/tables/{table_id}/join", json=body)


async def follow(url: str, player: Player, match_id: str, seen: Recorder) -> None:
    """One seat's socket, recorded until the match is over."""
    async with websockets.connect(
        f"{url}/v1/matches/{match_id}/live",
        additional_headers={"Authorization": f"Bearer {player.token}"},
    ) as ws:
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if frame["type"] == "ping":
                await ws.send(json.dumps({"type": "pong"}))  # a silent socket is closed
            seen.add(frame["version"], frame)
            if (frame.get("view") or {}).get("phase") == "match_over":
                return


async def play_both_seats(
    players: tuple[Player, Player], match_id: str, recorders: tuple[Recorder, Recorder]
) -> dict[str, Any]:
    """Each seat acts whenever its own view says so, until the match is settled."""
    rng = random.Random(19)
    for _ in range(4000):
        acted = False
        for seat, player in enumerate(players):
            view = await player.view(match_id)
            recorders[seat].add(view["version"], view["view"])
            if view["view"]["phase"] == "match_over":
                return view["view"]
            if not view["view"]["legal"]:
                continue
            response = await player.act(match_id, pick(view["view"], rng), version=view["version"])
            assert response.status_code == 200, response.text
            recorders[seat].add_action_response(response.json())
            acted = True
        assert acted, "neither seat could act: the match stalled"
    raise AssertionError("the match did not finish")
