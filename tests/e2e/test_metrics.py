"""``GET /metrics`` counts what the service holds, in Prometheus's text format.

A real server on each store, a fresh database: the counts start at nothing, and follow
players made, a match against the house, tables opened and joined, a seat's socket and
a spectator's. Sockets are counted once their rows are written, just after they open or
close, so each expectation is waited for rather than read once.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table

SAMPLE = re.compile(r"^([a-z_]+)(?:\{([a-z_]+)=\"([a-z0-9_]+)\"\})? (\d+)$")


def parsed(text: str) -> dict[str, Any]:
    """The samples by name (a labelled family as {label value: count}); every family is
    announced by its HELP and TYPE before its samples, as the format asks."""
    samples: dict[str, Any] = {}
    announced: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            announced[name] = kind
            continue
        match = SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name, _label, value, count = match.groups()
        assert name in announced, f"{name} sampled before its TYPE"
        if value is None:
            samples[name] = int(count)
        else:
            samples.setdefault(name, {})[value] = int(count)
    assert announced["ginrummy_events_total"] == "counter"
    assert all(
        kind == "gauge" for name, kind in announced.items() if name != "ginrummy_events_total"
    )
    return samples


async def counts(url: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10) as client:
        answer = await client.get(url + "/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return parsed(answer.text)


async def until(url: str, **expected: Any) -> dict[str, Any]:
    """The counts once each family named is as expected (the read models catch up)."""
    deadline = time.monotonic() + 15
    while True:
        seen = await counts(url)
        if all(seen[name] == value for name, value in expected.items()):
            return seen
        assert time.monotonic() < deadline, f"expected {expected}, counted {seen}"
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_the_counts_follow_players_matches_tables_and_sockets(server: ServerProcess) -> None:
    url = server.url
    empty = await until(
        url,
        ginrummy_players={"bot": 0, "person": 0},
        ginrummy_matches_unfinished={"0": 0, "1": 0, "2": 0},
        ginrummy_tables_waiting={"challenge": 0, "private": 0, "public": 0},
        ginrummy_players_connected=0,
        ginrummy_spectators=0,
    )
    ada, bea = await Player.create(url, "Ada"), await Player.create(url, "Bea")
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        made = await client.post("/v1/players", json={"name": "Robo", "kind": "bot"})
        assert made.status_code == 201, made.text
    house = (await ada.new_match())["match_id"]
    public = await open_table(ada)
    await open_table(bea, private=True)
    await until(
        url,
        ginrummy_players={"bot": 1, "person": 2},
        ginrummy_matches_unfinished={"0": 0, "1": 1, "2": 0},
        ginrummy_tables_waiting={"challenge": 0, "private": 1, "public": 1},
    )
    joined = await join(bea, public["table_id"])
    assert joined.status_code == 200, joined.text
    people = joined.json()["match"]["match_id"]
    later = await until(
        url,
        ginrummy_matches_unfinished={"0": 1, "1": 1, "2": 0},
        ginrummy_tables_waiting={"challenge": 0, "private": 1, "public": 0},
    )
    assert later["ginrummy_events_total"] > empty["ginrummy_events_total"]

    # A seat's socket makes its player connected (its row is written before its first
    # frame), a spectator's counts as a spectator, and a player counts once however many
    # sockets they hold
    live = f"{server.ws_url}/v1/matches/{{}}/live?token={{}}"
    async with (
        websockets.connect(live.format(house, ada.token)) as ada_at_house,
        websockets.connect(f"{server.ws_url}/v1/matches/{people}/watch"),
    ):
        await ada_at_house.recv()
        await until(url, ginrummy_players_connected=1, ginrummy_spectators=1)
        async with websockets.connect(live.format(people, bea.token)) as bea_at_table:
            await bea_at_table.recv()
            await until(url, ginrummy_players_connected=2)
            async with websockets.connect(live.format(people, ada.token)) as ada_at_table:
                await ada_at_table.recv()
                assert (await counts(url))["ginrummy_players_connected"] == 2
    await until(url, ginrummy_players_connected=0, ginrummy_spectators=0)
    for player in (ada, bea):
        await player.close()
