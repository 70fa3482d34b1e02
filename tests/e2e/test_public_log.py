"""Once a match is over, anyone who may watch it reads its whole log and its replay.

Found on a club night: the organiser could check the fair deal of no match but her
own. docs/fair-deal.md says anyone can recompute every deck "from the public log", but
``GET /v1/matches/{id}/events`` and ``…/replay`` answered 403 ``not_your_match`` to
everyone but the two seats, even for a finished public match whose seed, decks and
salts are all revealed in that log. While the match runs the log stays its players'.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from domain.events import decode_event
from domain.verify import problems
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table


async def a_few_moves_then_resign(players: tuple[Player, Player], match_id: str) -> None:
    for _ in range(6):
        for player in players:
            view = await player.view(match_id)
            legal = view["view"]["legal"]
            if legal:
                chosen = next(
                    (c for c in legal if c["type"] in ("pass_up_card", "draw_stock", "discard")),
                    legal[0],
                )
                action = {k: v for k, v in chosen.items() if k != "seat" and v is not None}
                response = await player.act(match_id, action, view["version"])
                assert response.status_code == 200, response.text
    resigned = await players[1].act(match_id, {"type": "resign"})
    assert resigned.status_code == 200, resigned.text


def verified(events: list[dict[str, Any]]) -> list[str]:
    return problems([decode_event(json.dumps(item["event"])) for item in events])


async def test_a_finished_public_match_is_read_and_verified_by_anyone(
    sqlite_site: ServerProcess,
) -> None:
    ada, bob, organiser = [await Player.create(sqlite_site.url, n) for n in ("Ada", "Bob", "Org")]
    anyone = httpx.AsyncClient(base_url=sqlite_site.url, timeout=30)
    try:
        table = await open_table(ada)
        match_id = (await join(bob, table["table_id"])).json()["match"]["match_id"]
        events, replay = f"/v1/matches/{match_id}/events", f"/v1/matches/{match_id}/replay"

        # while it runs, the log is its players' alone
        for client, status in ((organiser.client, 403), (anyone, 401)):
            for path in (events, replay):
                answer = await client.get(path)
                assert answer.status_code == status, (path, answer.text)

        await a_few_moves_then_resign((ada, bob), match_id)
        theirs = await ada.events(match_id)
        assert theirs["complete"] and not verified(theirs["events"])
        for client in (organiser.client, anyone):
            page = await client.get(events, params={"limit": 1000})
            assert page.status_code == 200, page.text
            assert page.json()["complete"] is True
            assert page.json()["events"] == theirs["events"]
            assert verified(page.json()["events"]) == []
            at = await client.get(replay, params={"at": 5})
            assert at.status_code == 200, at.text
            assert at.json() == (await ada.client.get(replay, params={"at": 5})).json()
    finally:
        for player in (ada, bob, organiser):
            await player.close()
        await anyone.aclose()


async def test_a_finished_private_match_needs_its_watch_code(sqlite_site: ServerProcess) -> None:
    dev, eve, organiser = [await Player.create(sqlite_site.url, n) for n in ("Dev", "Eve", "Org")]
    anyone = httpx.AsyncClient(base_url=sqlite_site.url, timeout=30)
    try:
        table = await open_table(dev, private=True)
        joined = await join(eve, table["table_id"], invite_code=table["invite_code"])
        match_id = joined.json()["match"]["match_id"]
        await a_few_moves_then_resign((dev, eve), match_id)
        for client in (organiser.client, anyone):
            for path in ("events", "replay"):
                url = f"/v1/matches/{match_id}/{path}"
                refused = await client.get(url)
                assert refused.status_code == 403, refused.text
                assert refused.json()["rule"] == "watch_code_required"
                wrong = await client.get(url, params={"watch_code": table["invite_code"]})
                assert wrong.status_code == 403, wrong.text
                read = await client.get(url, params={"watch_code": table["watch_code"]})
                assert read.status_code == 200, read.text
        # a player reads it as before, with no code
        assert (await eve.client.get(f"/v1/matches/{match_id}/replay")).status_code == 200
    finally:
        for player in (dev, eve, organiser):
            await player.close()
        await anyone.aclose()


async def test_a_bad_token_is_still_refused(sqlite_site: ServerProcess) -> None:
    """Reading as anyone is reading with no token, not with a wrong one."""
    ada = await Player.create(sqlite_site.url, "Ada")
    try:
        match = await ada.new_match()
        resigned = await ada.act(match["match_id"], {"type": "resign"})
        assert resigned.status_code == 200, resigned.text
        answer = await ada.client.get(
            f"/v1/matches/{match['match_id']}/events", headers={"Authorization": "Bearer nope"}
        )
        assert answer.status_code == 401, answer.text
    finally:
        await ada.close()
