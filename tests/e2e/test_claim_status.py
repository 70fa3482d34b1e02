"""``GET /v1/matches/{id}/claim``: whether a seat's claim would be accepted now, on a real
server, agreeing with ``POST …/claim`` at every step: the opponent connected, gone
(the grace running from its leaving), past the grace; the house AI; a spectator. A leave
counts once it settles, as the seat's socket says it. The answer names no card (the
secrecy oracle reads it like every other answer)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.test_absence import claim, table_match
from tests.e2e.test_clocks import pass_the_turn

GRACE_MS = 2000


async def status(player: Player, match_id: str) -> dict[str, Any]:
    answer = await player.client.get(f"/v1/matches/{match_id}/claim")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_claim_status_says_when_the_server_accepts_a_claim(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_ABSENCE_GRACE_S="2").start()
    host = await Player.create(server.url, "Asker")
    guest = await Player.create(server.url, "Leaver")
    seen = Recorder()
    try:
        match_id = await table_match(host, guest)
        await pass_the_turn(host, match_id)  # absence counts while the guest is to act
        url = f"{server.ws_url}/v1/matches/{match_id}/live?token={guest.token}"
        async with websockets.connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
            present = await status(host, match_id)
            seen.add((await host.view(match_id))["version"], present)
            assert present["grace_ms"] == GRACE_MS and present["opponent_connected"] is True
            assert present["opponent_seen_ms"] is None
            assert present["absence_claim_at_ms"] is None and present["claimable"] is False
            # Connected, the guest may not be claimed from, however long it waits.
        left = await status(host, match_id)  # it has left: the grace runs from then on
        for _ in range(50):  # the server hears of the closed socket a moment later
            if not left["opponent_connected"]:
                break
            await asyncio.sleep(0.05)
            left = await status(host, match_id)
        seen.add((await host.view(match_id))["version"], left)
        assert left["opponent_connected"] is False and left["claimable"] is False
        assert left["opponent_seen_ms"] <= left["now_ms"]
        assert left["absence_claim_at_ms"] == left["opponent_seen_ms"] + GRACE_MS
        early = await claim(host, match_id)
        assert early.status_code == 409 and early.json()["rule"] == "claim_too_early"

        await asyncio.sleep((left["absence_claim_at_ms"] - left["now_ms"]) / 1000 + 0.05)
        due = await status(host, match_id)
        seen.add((await host.view(match_id))["version"], due)
        assert (due["claimable"], due["reason"]) == (True, "absence")
        assert due["absence_claim_at_ms"] == left["absence_claim_at_ms"] <= due["now_ms"]
        # the one to act is never told it may claim by absence: it keeps nobody waiting
        assert (await status(guest, match_id))["absence_claim_at_ms"] is None
        spectator = httpx.AsyncClient(base_url=server.url)
        async with spectator:
            refused = await spectator.get(f"/v1/matches/{match_id}/claim")
            assert refused.status_code == 401
        stranger = await Player.create(server.url, "Stranger")
        refused = await stranger.client.get(f"/v1/matches/{match_id}/claim")
        assert refused.status_code == 403 and refused.json()["rule"] == "not_your_match"
        await stranger.close()

        claimed = await claim(host, match_id)
        assert claimed.status_code == 200, claimed.text
        # Once settled, nothing is left to claim and the opponent's presence is none of a
        # former seat's business: it was told for ever after (when the other player was
        # online, through its player stream), to every past opponent, a blocked one too.
        for seat in (host, guest):
            over = await seat.client.get(f"/v1/matches/{match_id}/claim")
            assert over.status_code == 422 and over.json()["rule"] == "match_over", over.text
            assert not {"opponent_connected", "opponent_seen_ms"} & set(over.json())

        house = (await host.new_match())["match_id"]  # the house AI never leaves
        against_house = await status(host, house)
        assert against_house["claimable"] is False and against_house["opponent_connected"]
        assert against_house["absence_claim_at_ms"] is None

        states = states_by_version((await host.events(match_id))["events"])
        assert seen.assert_no_leaks(states, seat=0) == 3
    finally:
        await host.close()
        await guest.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_opponent_gone_a_moment_is_not_away_until_the_leave_settles(
    database_url: str, tmp_path: Path
) -> None:
    """Under a 20 s grace a leave settles for 3 s (``leave_settle_ms``): meanwhile the
    answer is the one of a connected opponent, as the seat's socket says nothing yet; then
    it is away since it left. Before, it was away at once, and the page hid that answer
    with a copy of the settle of its own."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_ABSENCE_GRACE_S="20").start()
    host = await Player.create(server.url, "Asker")
    guest = await Player.create(server.url, "Reloader")
    try:
        match_id = await table_match(host, guest)
        await pass_the_turn(host, match_id)  # absence counts while the guest is to act
        url = f"{server.ws_url}/v1/matches/{match_id}/live?token={guest.token}"
        async with websockets.connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
            assert (await status(host, match_id))["opponent_connected"] is True
        closed_ms = time.time() * 1000
        settling = []
        # asked until 1.5 s, so that a slow answer still comes well within the 3 s settle
        while time.time() * 1000 < closed_ms + 1500:
            settling.append(await status(host, match_id))
            await asyncio.sleep(0.1)
        assert len(settling) >= 3
        for answer in settling:
            assert answer["opponent_connected"] is True, answer
            assert answer["opponent_seen_ms"] is None and answer["absence_claim_at_ms"] is None
            assert answer["claimable"] is False
        for _ in range(60):  # then it is away, since it left
            left = await status(host, match_id)
            if not left["opponent_connected"]:
                break
            await asyncio.sleep(0.05)
        assert left["opponent_connected"] is False, left
        assert left["now_ms"] - left["opponent_seen_ms"] >= 3000
        assert left["opponent_seen_ms"] >= closed_ms - 1000
        assert left["absence_claim_at_ms"] == left["opponent_seen_ms"] + 20_000
        assert left["claimable"] is False
    finally:
        await host.close()
        await guest.close()
        server.stop()
