"""Who is playing whom right now: the matches anyone may watch, across server processes.

Found on a club night: once a table was joined it left the lobby, and nothing else
listed it. A member who wanted to watch a friend, or the organiser who wanted to see
who sat at which table, had to be sent the match id. ``GET /v1/matches/watchable``
lists the matches in play that anyone may watch (a private table's match is left out:
it is watched only with its watch code), each with its seats, score and spectators,
optionally only those one player sits in.
"""

from __future__ import annotations

import json
import random
from typing import Any

import httpx
import pytest
import websockets

from domain.melds import best_discard
from tests.e2e.harness import Player, ServerProcess, as_action
from tests.e2e.tables import join, open_table

WATCHABLE = "/v1/matches/watchable"


async def table_match(host: Player, guest: Player, **table: Any) -> tuple[str, dict[str, Any]]:
    opened = await open_table(host, **table)
    body = {"invite_code": opened["invite_code"]} if opened["private"] else {}
    joined = await join(guest, opened["table_id"], **body)
    assert joined.status_code == 200, joined.text
    return joined.json()["match"]["match_id"], opened


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_the_matches_in_play_are_listed_for_anyone_on_every_process(
    database_url: str, tmp_path: Any
) -> None:
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    ada, bob, cleo, dev, eve, finn = [
        await Player.create(first.url if i % 2 == 0 else second.url, name)
        for i, name in enumerate(("Ada", "Bob", "Cleo", "Dev", "Eve", "Finn"))
    ]
    anyone = httpx.AsyncClient(base_url=second.url, timeout=30)
    try:
        public, _ = await table_match(ada, bob)
        private, _ = await table_match(cleo, dev, private=True)
        over, _ = await table_match(eve, finn)
        assert (await finn.act(over, {"type": "resign"})).status_code == 200
        house = (await ada.new_match(level="easy"))["match_id"]

        listed = await anyone.get(WATCHABLE)
        assert listed.status_code == 200, listed.text
        entries = listed.json()["matches"]
        ids = [entry["match_id"] for entry in entries]
        assert ids == [house, public], entries  # newest first; private and finished left out
        assert private not in ids and over not in ids
        assert listed.json()["more"] is False
        seated = {entry["match_id"]: [seat["name"] for seat in entry["seats"]] for entry in entries}
        assert seated == {public: ["Ada", "Bob"], house: ["Ada", "easy"]}
        entry = entries[1]
        assert entry["scores"] == [0, 0] and entry["spectators"] == 0
        assert entry["rules"] == "arcadia+custom" and entry["practice"] is True  # target 25
        assert entries[0]["rules"] == "classic+custom" and entries[0]["rated"] is False

        # a friend's matches: only those that player sits in
        bobs = await anyone.get(WATCHABLE, params={"player": bob.id})
        assert [e["match_id"] for e in bobs.json()["matches"]] == [public]
        devs = await anyone.get(WATCHABLE, params={"player": dev.id})
        assert devs.json()["matches"] == []  # his match is private

        paged = await anyone.get(WATCHABLE, params={"limit": 1})
        assert [e["match_id"] for e in paged.json()["matches"]] == [house]
        assert paged.json()["more"] is True
        # the private match (second newest) takes no place in the pages
        rest = await anyone.get(WATCHABLE, params={"limit": 1, "offset": 1})
        assert [e["match_id"] for e in rest.json()["matches"]] == [public]
        assert rest.json()["more"] is False

        for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"player": "null"}):
            refused = await anyone.get(WATCHABLE, params=bad)
            assert refused.status_code == 422, (bad, refused.text)
            assert refused.json()["rule"] == "invalid_request"
        # the match of that id is still a match
        assert (await ada.client.get(f"/v1/matches/{public}")).status_code == 200
    finally:
        for player in (ada, bob, cleo, dev, eve, finn):
            await player.close()
        await anyone.aclose()
        first.stop()
        second.stop()


async def test_a_private_match_takes_no_place_in_the_pages(server: ServerProcess) -> None:
    """Neither a page nor ``more`` nor ``offset`` gives a private match away. Counted in
    the pages, it showed as a gap ("matches": [], "more": true) where it stood among the
    newest, and ``?player=`` told how many matches a player was in, the hidden ones too:
    asked for two players, the gaps told who was playing whom at a private table."""
    ada, bob, cleo, dev = [
        await Player.create(server.url, name) for name in ("Ada", "Bob", "Cleo", "Dev")
    ]
    anyone = httpx.AsyncClient(base_url=server.url, timeout=30)
    try:
        public, _ = await table_match(cleo, dev)
        house = (await ada.new_match(level="easy"))["match_id"]
        await table_match(ada, bob, private=True)  # the newest of all

        async def page(**params: Any) -> tuple[list[str], bool]:
            listed = await anyone.get(WATCHABLE, params=params)
            assert listed.status_code == 200, listed.text
            return [e["match_id"] for e in listed.json()["matches"]], listed.json()["more"]

        assert await page(limit=1) == ([house], True)
        assert await page(limit=1, offset=1) == ([public], False)
        assert await page(limit=1, offset=2) == ([], False)
        assert await page(player=ada.id, limit=1) == ([house], False)
        assert await page(player=ada.id, limit=1, offset=1) == ([], False)
        assert await page(player=bob.id, limit=1) == ([], False)
    finally:
        for player in (ada, bob, cleo, dev):
            await player.close()
        await anyone.aclose()


async def play_to_the_first_score(seats: tuple[Player, Player], match_id: str) -> None:
    """Both seats play, each ending the hand as soon as it may, until a hand is scored."""
    rng = random.Random(5)
    for _ in range(400):
        for player in seats:
            view = (await player.view(match_id))["view"]
            if view["phase"] == "hand_over" and view["last_result"]["type"] == "hand_scored":
                return
            if not view["legal"]:
                continue
            ending = [a for a in view["legal"] if a["type"] in ("gin", "big_gin", "knock")]
            throwing = [a for a in view["legal"] if a["type"] == "discard"]
            best = best_discard(view["hand"], view["taken"])[0] if throwing else None
            advised = [a for a in throwing if a["card"] == best]  # the least deadwood left
            chosen = (ending or advised or [rng.choice(view["legal"])])[0]
            acted = await player.act(match_id, as_action(chosen))
            assert acted.status_code == 200, acted.text
    raise AssertionError("no hand was scored")


async def test_each_entry_says_what_the_match_itself_says(server: ServerProcess) -> None:
    """The list is read from the read models, not folded from each match: every entry
    must still agree with the match's own spectator view (seats in seat order, also when
    found by the player in seat 1; the points after a scored hand; who watches) and
    with how the match was opened (rated)."""
    ada, bob = [await Player.create(server.url, name) for name in ("Ada", "Bob")]
    anyone = httpx.AsyncClient(base_url=server.url, timeout=30)
    try:
        match_id, opened = await table_match(ada, bob, rules={"preset": "arcadia"}, rated=True)
        assert opened["rated"] is True
        await play_to_the_first_score((ada, bob), match_id)
        async with websockets.connect(f"{server.ws_url}/v1/matches/{match_id}/watch") as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"  # admitted and counted
            own = (await anyone.get(f"/v1/matches/{match_id}/spectator")).json()
            assert own["spectators"] == 1 and sum(own["view"]["scores"]) > 0
            for who in (None, ada.id, bob.id):  # Bob sits in seat 1
                params = {} if who is None else {"player": who}
                (entry,) = (await anyone.get(WATCHABLE, params=params)).json()["matches"]
                assert entry["match_id"] == match_id
                assert entry["seats"] == own["seats"]
                assert [seat["name"] for seat in entry["seats"]] == ["Ada", "Bob"]
                assert entry["scores"] == own["view"]["scores"]
                assert entry["hands_played"] == own["view"]["hand_number"]  # over, counted
                assert entry["spectators"] == 1
                assert entry["rated"] is True and entry["practice"] is False
                assert entry["rules"] == own["view"]["rules"]["name"]
    finally:
        for player in (ada, bob):
            await player.close()
        await anyone.aclose()


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_challenge_and_a_rematch_anyone_may_watch_are_listed(
    server: ServerProcess,
) -> None:
    """Found by QA: a challenge's match and a rematch were watched by link without a
    code, yet never listed (the lobby marks their tables private, to keep them off the
    open tables). A private match's rematch has codes of its own: neither listed nor
    watched without its code."""
    ada, bob, cleo, dev = [
        await Player.create(server.url, name) for name in ("Ada", "Bob", "Cleo", "Dev")
    ]
    anyone = httpx.AsyncClient(base_url=server.url, timeout=30)

    async def rematched(first: Player, second: Player, match_id: str) -> str:
        assert (await second.act(match_id, {"type": "resign"})).status_code == 200
        assert (await first.client.post(f"/v1/matches/{match_id}/rematch")).status_code == 200
        accepted = await second.client.post(f"/v1/matches/{match_id}/rematch")
        assert accepted.status_code == 200, accepted.text
        new: str = accepted.json()["match_id"]
        return new

    try:
        sent = (await ada.client.post("/v1/challenges", json={"to": bob.id})).json()
        accepted = await bob.client.post(f"/v1/challenges/{sent['table_id']}/accept")
        assert accepted.status_code == 200, accepted.text
        challenge = accepted.json()["match"]["match_id"]
        listed = (await anyone.get(WATCHABLE)).json()["matches"]
        assert [e["match_id"] for e in listed] == [challenge]
        assert (await anyone.get(f"/v1/matches/{challenge}/spectator")).status_code == 200

        rematch = await rematched(ada, bob, challenge)
        private, _ = await table_match(cleo, dev, private=True)
        private_rematch = await rematched(cleo, dev, private)
        listed = (await anyone.get(WATCHABLE)).json()["matches"]
        assert [e["match_id"] for e in listed] == [rematch]  # the settled one is gone
        assert (await anyone.get(f"/v1/matches/{rematch}/spectator")).status_code == 200
        for who in (ada, bob):
            mine = (await anyone.get(WATCHABLE, params={"player": who.id})).json()
            assert [e["match_id"] for e in mine["matches"]] == [rematch]
        hidden = await anyone.get(f"/v1/matches/{private_rematch}/spectator")
        assert (hidden.status_code, hidden.json()["rule"]) == (403, "watch_code_required")
        for who in (cleo, dev):
            theirs = (await anyone.get(WATCHABLE, params={"player": who.id})).json()
            assert theirs["matches"] == []
    finally:
        for player in (ada, bob, cleo, dev):
            await player.close()
        await anyone.aclose()
