"""Blocking a player, on a real server (SQLite and PostgreSQL): the list, its refusals, and
each thing a block does: no challenge from the blocked, no seat at the blocker's tables,
their challenges gone from the blocker's list, their chat hidden from the blocker, and
the match itself untouched. The blocked player is never told: its own answers do not
change. Then across two server processes on one PostgreSQL, and the rate limit.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
import websockets

from domain.blocks import MAX_BLOCKED, PlayerBlocked, stream_of
from infra.store import open_store
from tests.e2e.harness import Player, ServerProcess, wait_for
from tests.e2e.tables import join, open_table
from tests.e2e.test_chat import connect, say
from tests.e2e.test_limits import assert_rate_limited
from tests.e2e.test_openapi_conformance import frame_validators
from tests.e2e.test_stream_announcements import Heard, over_websocket

# The tests that need no server of their own share one (each_backend_site): every test makes
# players of its own.


async def players(url: str, *names: str) -> list[Player]:
    return [await Player.create(url, name) for name in names]


async def close(*everyone: Player) -> None:
    for player in everyone:
        await player.close()


def problem(answer: httpx.Response, status: int, rule: str) -> str:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    body = answer.json()
    assert (body["rule"], body["type"]) == (rule, f"/problems/{rule.replace('_', '-')}")
    return str(body["detail"])


async def block(player: Player, whom: str) -> httpx.Response:
    return await player.client.post("/v1/me/blocks", json={"player_id": whom})


async def blocked_ids(player: Player) -> list[str]:
    answer = await player.client.get("/v1/me/blocks")
    assert answer.status_code == 200, answer.text
    return [entry["player"]["id"] for entry in answer.json()["blocks"]]


async def challenge_ids(player: Player) -> list[str]:
    answer = await player.client.get("/v1/challenges")
    assert answer.status_code == 200, answer.text
    return [c["table_id"] for c in answer.json()["challenges"]]


async def commitment(player: Player) -> str:
    return str((await player.client.get("/v1/me")).json()["seed_commitment"])


async def test_the_list_is_idempotent_personal_and_refuses_bad_input_changing_nothing(
    each_backend_site: ServerProcess,
) -> None:
    ada, bob, cleo = await players(each_backend_site.url, "Ada", "Bob", "Cleo")
    anonymous = httpx.AsyncClient(base_url=each_backend_site.url)
    try:
        first = await block(ada, bob.id)
        assert first.status_code == 200, first.text
        # Bob as everywhere else, his rating too (it was null, as for a player with none)
        rating = (await ada.client.get(f"/v1/players/{bob.id}")).json()["rating"]
        assert rating is not None and rating["provisional"] is True, rating
        assert first.json()["player"] == {
            "id": bob.id,
            "name": "Bob",
            "kind": "person",
            "rating": rating,
        }
        again = await block(ada, bob.id)  # idempotent: the same answer, the first time kept
        assert again.status_code == 200 and again.json() == first.json()
        assert (await block(ada, cleo.id)).status_code == 200
        listed = (await ada.client.get("/v1/me/blocks")).json()
        assert [e["player"]["id"] for e in listed["blocks"]] == [cleo.id, bob.id]  # latest first
        assert listed["blocks"][1]["player"]["rating"] == rating
        assert listed["max_blocks"] == MAX_BLOCKED
        assert listed["blocks"][1]["blocked_at"] == first.json()["blocked_at"]

        refusals = [
            (await block(ada, ada.id), 422, "cannot_block_self"),
            (await block(ada, "ai:hard"), 422, "cannot_block_house_ai"),
            (await block(ada, "ai:no-such-level"), 422, "cannot_block_house_ai"),
            (await block(ada, "nobody"), 404, "player_not_found"),
            (await ada.client.post("/v1/me/blocks", json={}), 422, "invalid_request"),
            (await block(ada, ""), 422, "invalid_request"),
            (
                await ada.client.post("/v1/me/blocks", json={"player_id": bob.id, "why": "x"}),
                422,
                "invalid_request",
            ),
            (
                await anonymous.post("/v1/me/blocks", json={"player_id": bob.id}),
                401,
                "unauthorized",
            ),
        ]
        for answer, status, rule in refusals:
            problem(answer, status, rule)
        assert await blocked_ids(ada) == [cleo.id, bob.id]  # nothing changed
        assert await blocked_ids(bob) == []  # a list is its owner's alone

        assert (await ada.client.delete(f"/v1/me/blocks/{bob.id}")).status_code == 204
        assert (await ada.client.delete(f"/v1/me/blocks/{bob.id}")).status_code == 204  # again
        assert (await ada.client.delete("/v1/me/blocks/nobody")).status_code == 204
        assert await blocked_ids(ada) == [cleo.id]
        problem(await anonymous.get("/v1/me/blocks"), 401, "unauthorized")
    finally:
        await anonymous.aclose()
        await close(ada, bob, cleo)


async def test_the_list_is_capped_and_the_one_over_changes_nothing(
    each_backend_site: ServerProcess,
) -> None:
    ada, bob, cleo = await players(each_backend_site.url, "Ada", "Bob", "Cleo")
    # the cap's worth of blocks, written directly
    store = await open_store(each_backend_site.database_url)
    try:
        events = [PlayerBlocked(player=f"p{i}", blocked_ms=1000 + i) for i in range(MAX_BLOCKED)]
        events[-1] = PlayerBlocked(player=cleo.id, blocked_ms=2000)
        await store.append(stream_of(ada.id), 0, events)
    finally:
        await store.close()
    try:
        detail = problem(await block(ada, bob.id), 409, "too_many_blocks")
        assert str(MAX_BLOCKED) in detail and "DELETE /v1/me/blocks/" in detail, detail
        listed = await blocked_ids(ada)
        assert len(listed) == MAX_BLOCKED and bob.id not in listed
        assert (await block(ada, cleo.id)).status_code == 200  # blocked already: no change
        assert (await ada.client.delete("/v1/me/blocks/p0")).status_code == 204
        assert (await block(ada, bob.id)).status_code == 200  # a place was freed
        assert (await blocked_ids(ada))[0] == bob.id
    finally:
        await close(ada, bob, cleo)


async def test_a_blocked_player_can_neither_challenge_nor_take_a_seat_and_is_not_told(
    each_backend_site: ServerProcess,
) -> None:
    ada, bob, cleo = await players(each_backend_site.url, "Ada", "Bob", "Cleo")
    try:
        assert (await block(ada, bob.id)).status_code == 200
        seed = await commitment(bob)

        detail = problem(
            await bob.client.post("/v1/challenges", json={"to": ada.id}), 403, "opponent_refused"
        )
        assert "block" not in detail.lower(), detail
        assert await challenge_ids(ada) == [] and await challenge_ids(bob) == []
        assert await commitment(bob) == seed  # no seed was used up: nothing was opened

        public = await open_table(ada)
        detail = problem(await join(bob, public["table_id"]), 403, "opponent_refused")
        assert "block" not in detail.lower(), detail
        assert (await ada.client.get(f"/v1/tables/{public['table_id']}")).json()["status"] == "open"
        seated = await join(cleo, public["table_id"])  # anyone else is seated as before
        assert seated.status_code == 200, seated.text

        private = await open_table(ada, private=True)
        problem(await join(bob, private["table_id"]), 403, "invite_code_required")  # its own first
        problem(
            await join(bob, private["table_id"], invite_code=private["invite_code"]),
            403,
            "opponent_refused",
        )
        seek = (await ada.client.post("/v1/challenges", json={"to": None})).json()
        problem(
            await bob.client.post(f"/v1/challenges/{seek['table_id']}/accept"),
            403,
            "opponent_refused",
        )

        # The blocker cannot challenge whom it blocks: they could never accept.
        detail = problem(
            await ada.client.post("/v1/challenges", json={"to": bob.id}),
            409,
            "you_block_this_player",
        )
        assert "DELETE /v1/me/blocks/" in detail, detail
        assert await challenge_ids(bob) == []

        # Bob sees nothing of it but the refusals; unblocked, he may challenge again.
        assert await blocked_ids(bob) == []
        assert (await ada.client.delete(f"/v1/me/blocks/{bob.id}")).status_code == 204
        sent = await bob.client.post("/v1/challenges", json={"to": ada.id})
        assert sent.status_code == 201, sent.text
        assert await challenge_ids(ada) == [sent.json()["table_id"]]
    finally:
        await close(ada, bob, cleo)


async def test_their_challenges_stay_open_out_of_the_blockers_list_and_the_blockers_are_withdrawn(
    each_backend_site: ServerProcess,
) -> None:
    ada, bob, cleo, dan = await players(each_backend_site.url, "Ada", "Bob", "Cleo", "Dan")
    heard = Heard()
    listening: asyncio.Task[None] | None = None
    try:
        from_bob = (await bob.client.post("/v1/challenges", json={"to": ada.id})).json()
        from_cleo = (await cleo.client.post("/v1/challenges", json={"to": ada.id})).json()
        to_bob = (await ada.client.post("/v1/challenges", json={"to": bob.id})).json()
        bobs_table = await open_table(bob)
        assert await challenge_ids(ada) == [
            from_bob["table_id"],
            from_cleo["table_id"],
            to_bob["table_id"],
        ]

        assert (await block(ada, bob.id)).status_code == 200
        # Bob's challenge leaves Ada's list, but stays open: Bob is not told. Ada's to Bob
        # is withdrawn, as if she had cancelled it: his accept would have been refused.
        assert await challenge_ids(ada) == [from_cleo["table_id"]]
        assert await challenge_ids(bob) == [from_bob["table_id"]]
        withdrawn = await bob.client.get(f"/v1/tables/{to_bob['table_id']}")
        assert withdrawn.json()["status"] == "cancelled", withdrawn.text
        path = f"/v1/challenges/{from_bob['table_id']}"
        assert (await bob.client.get(f"/v1/tables/{from_bob['table_id']}")).json()[
            "status"
        ] == "open"

        # Ada's player stream, connected now, does not announce it either.
        listening = asyncio.create_task(over_websocket(each_backend_site.ws_url, ada.token, heard))
        await heard.first(lambda f: f.get("challenge", {}).get("table_id") == from_cleo["table_id"])
        assert (
            await cleo.client.post(f"/v1/challenges/{from_cleo['table_id']}/cancel")
        ).status_code == 200
        await heard.first(lambda f: f["type"] == "challenge_closed")
        announced = {f["challenge"]["table_id"] for f in heard.frames if f["type"] == "challenge"}
        assert announced == {from_cleo["table_id"]}

        # Ada may still decline it; Bob hears of a decline, as of any.
        declined = await ada.client.post(f"{path}/decline")
        assert declined.status_code == 200 and declined.json()["status"] == "declined"
        # Accepting the challenge Ada withdrew is what it is for any cancelled one.
        late = await bob.client.post(f"/v1/challenges/{to_bob['table_id']}/accept")
        assert late.status_code == 409 and late.json()["rule"] != "opponent_refused", late.text
        # A table Bob opened before is not touched: Ada, who blocks him, may still join it.
        joined = await join(ada, bobs_table["table_id"])
        assert joined.status_code == 200, joined.text
        assert joined.json()["match"]["seats"][0]["id"] == bob.id
        # Nobody else's lobby changed: Dan challenges Ada as before.
        assert (await dan.client.post("/v1/challenges", json={"to": ada.id})).status_code == 201
    finally:
        if listening is not None:
            listening.cancel()
        await close(ada, bob, cleo, dan)


async def test_a_blocked_players_chat_is_hidden_from_the_blocker_and_the_match_goes_on(
    each_backend_site: ServerProcess,
) -> None:
    ada, bob = await players(each_backend_site.url, "Ada", "Bob")
    table = await open_table(ada, clock={"per_move_ms": 60_000})
    joined = await join(bob, table["table_id"])
    assert joined.status_code == 200, joined.text
    match_id = joined.json()["match"]["match_id"]
    ada_ws = await connect(f"{each_backend_site.ws_url}/v1/matches/{match_id}/live", ada.token)
    watcher = await connect(f"{each_backend_site.ws_url}/v1/matches/{match_id}/watch")
    try:
        assert (await say(bob, match_id, "before")).status_code == 201
        before = await ada.view(match_id)
        log = await ada.events(match_id)

        assert (await block(ada, bob.id)).status_code == 200
        # The match is untouched: the same version, log and clock.
        after = await ada.view(match_id)
        assert (after["version"], after["view"]["clock"]) == (
            before["version"],
            before["view"]["clock"],
        )
        assert (await ada.events(match_id))["events"] == log["events"]

        said = await say(bob, match_id, "after")
        assert said.status_code == 201 and said.json()["text"] == "after"  # Bob is not told
        assert (await say(ada, match_id, "sync")).status_code == 201
        await wait_for(lambda: "sync" in ada_ws.texts() and "sync" in watcher.texts())
        assert ada_ws.texts() == ["before", "sync"]
        assert watcher.texts() == ["before", "after", "sync"]  # spectators see all, as on a mute
        ada_reads = (await ada.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert [m["text"] for m in ada_reads["messages"]] == ["before", "sync"]
        assert ada_reads["muted"] is False  # a block is not a mute of this match
        bob_reads = (await bob.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert [m["text"] for m in bob_reads["messages"]] == ["before", "after", "sync"]

        # Both go on playing; then Bob resigns and the result is as ever.
        for player in (ada, bob):
            view = (await player.view(match_id))["view"]
            if view["legal"]:
                legal = view["legal"][0]
                action = {k: v for k, v in legal.items() if k != "seat" and v is not None}
                moved = await player.act(match_id, action)
                assert moved.status_code == 200, moved.text
        resigned = await bob.act(match_id, {"type": "resign"})
        assert resigned.status_code == 200, resigned.text
        over = (await ada.view(match_id))["view"]
        assert over["phase"] == "match_over" and over["settlement"]["winner"] == 0

        # A rematch is a challenge: refused both ways while Ada blocks Bob.
        problem(await bob.client.post(f"/v1/matches/{match_id}/rematch"), 403, "opponent_refused")
        problem(
            await ada.client.post(f"/v1/matches/{match_id}/rematch"), 409, "you_block_this_player"
        )

        # Unblocked: later messages are shown; the hidden one stays hidden, as after a mute.
        assert (await ada.client.delete(f"/v1/me/blocks/{bob.id}")).status_code == 204
        assert (await say(bob, match_id, "later")).status_code == 201
        await wait_for(lambda: "later" in ada_ws.texts())
        ada_reads = (await ada.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert [m["text"] for m in ada_reads["messages"]] == ["before", "sync", "later"]
    finally:
        await ada_ws.close()
        await watcher.close()
        await close(ada, bob)


async def test_a_block_list_is_no_match_and_not_told_to_a_stranger(
    each_backend_site: ServerProcess,
) -> None:
    """A block list is a stream of the store (``blocks:<player>``), as a match is: read
    as a match by its stream's name, it was a 500 where a player had blocked someone and
    a 404 where not, so anyone could tell who had ever blocked (and a 500 is no answer).
    It is no match: the same 404 either way, with or without a token."""
    ada, bob, cleo = await players(each_backend_site.url, "Ada", "Bob", "Cleo")
    anyone = httpx.AsyncClient(base_url=each_backend_site.url, timeout=30)
    try:
        assert (await block(ada, bob.id)).status_code == 200
        for owner in (ada, bob):  # a list with a block in it, and none
            stream = stream_of(owner.id)
            for path in ("spectator", "events", "replay", "chat"):
                answer = await anyone.get(f"/v1/matches/{stream}/{path}")
                problem(answer, 404, "match_not_found")
            for path in ("", "/claim", "/chat", "/rematch", "/events"):
                answer = await cleo.client.get(f"/v1/matches/{stream}{path}")
                problem(answer, 404, "match_not_found")
            async with anyone.stream("GET", f"/v1/matches/{stream}/watch") as upgrade:
                assert upgrade.status_code == 426  # a socket's route, not a 500 either
        assert await blocked_ids(ada) == [bob.id]  # nothing changed
    finally:
        await close(ada, bob, cleo)
        await anyone.aclose()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_block_on_one_process_holds_at_once_on_another(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    ada = await Player.create(first.url, "Ada")
    bob = await Player.create(second.url, "Bob")
    try:
        table = await open_table(ada)
        joined = await join(bob, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        waiting = await open_table(ada)

        assert (await block(ada, bob.id)).status_code == 200  # on the first process
        # ...and at once, on the second:
        problem(
            await bob.client.post("/v1/challenges", json={"to": ada.id}), 403, "opponent_refused"
        )
        problem(await join(bob, waiting["table_id"]), 403, "opponent_refused")
        assert (await say(bob, match_id, "hidden")).status_code == 201
        texts = [
            m["text"]
            for m in (await ada.client.get(f"/v1/matches/{match_id}/chat")).json()["messages"]
        ]
        assert texts == []

        async with (
            httpx.AsyncClient(base_url=second.url, headers=ada.client.headers) as ada_there,
            httpx.AsyncClient(base_url=first.url, headers=bob.client.headers) as bob_there,
        ):
            unblocked = await ada_there.delete(f"/v1/me/blocks/{bob.id}")
            assert unblocked.status_code == 204  # on the second process; heard on the first
            sent = await bob_there.post("/v1/challenges", json={"to": ada.id})
            assert sent.status_code == 201, sent.text
    finally:
        await close(ada, bob)
        first.stop()
        second.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_blocking_counts_with_the_actions_rate_limit(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(
        database_url, tmp_path, GINRUMMY_RATE_WINDOW_S="600", GINRUMMY_RATE_ACTIONS_PER_PLAYER="2"
    ).start()
    try:
        ada, bob = await players(server.url, "Ada", "Bob")
        assert (await block(ada, bob.id)).status_code == 200
        assert (await ada.client.delete(f"/v1/me/blocks/{bob.id}")).status_code == 204
        assert_rate_limited(await block(ada, bob.id), 600)
        assert_rate_limited(await ada.client.delete(f"/v1/me/blocks/{bob.id}"), 600)
        assert await blocked_ids(ada) == []  # refused before anything changed; reading is free
        await close(ada, bob)
    finally:
        server.stop()


async def listed_table_ids(player: Player) -> set[str]:
    answer = await player.client.get("/v1/tables")
    assert answer.status_code == 200, answer.text
    return {table["table_id"] for table in answer.json()["tables"]}


async def next_table_opened(lobby: websockets.ClientConnection) -> str:
    """The id in the lobby feed's next ``table`` frame (pings and closings passed over)."""
    while True:
        frame = json.loads(await asyncio.wait_for(lobby.recv(), 15))
        if frame["type"] == "table":
            return str(frame["table"]["table_id"])


async def test_a_table_is_not_offered_across_a_block_in_the_list_or_the_live_lobby(
    each_backend_site: ServerProcess,
) -> None:
    """Bob, whom Ada blocks, could not sit at her table, and Dev, who blocks Ada, does not
    want to: neither is offered it, in ``GET /v1/tables`` or in the live lobby, while
    Cleo is. Bob is not told why: to him it is as if the table were never opened."""
    ada, bob, cleo, dev, eve = await players(
        each_backend_site.url, "Ada", "Bob", "Cleo", "Dev", "Eve"
    )
    try:
        assert (await block(ada, bob.id)).status_code == 200
        assert (await block(dev, ada.id)).status_code == 200
        before = (await open_table(ada))["table_id"]
        assert before in await listed_table_ids(cleo)
        assert before in await listed_table_ids(ada)
        assert before not in await listed_table_ids(bob)
        assert before not in await listed_table_ids(dev)

        feeds = {}
        for name, player in (("Bob", bob), ("Cleo", cleo), ("Dev", dev)):
            feeds[name] = await websockets.connect(
                f"{each_backend_site.ws_url}/v1/tables/live?token={player.token}"
            )
        for name, lobby in feeds.items():
            frame = json.loads(await asyncio.wait_for(lobby.recv(), 15))
            assert frame["type"] == "tables"
            listed = {table["table_id"] for table in frame["tables"]}
            assert (before in listed) is (name == "Cleo"), (name, listed)

        hers = (await open_table(ada))["table_id"]
        neutral = (await open_table(eve))["table_id"]  # after hers: heard after hers
        assert await next_table_opened(feeds["Cleo"]) == hers
        assert await next_table_opened(feeds["Cleo"]) == neutral
        assert await next_table_opened(feeds["Bob"]) == neutral  # hers passed over
        assert await next_table_opened(feeds["Dev"]) == neutral
        for lobby in feeds.values():
            await lobby.close()
    finally:
        await close(ada, bob, cleo, dev, eve)


async def next_lobby_frame(lobby: websockets.ClientConnection) -> dict[str, object]:
    """The lobby feed's next frame but pings, checked against the AsyncAPI document."""
    validators = frame_validators("lobby", "receiveLobby")
    while True:
        frame = json.loads(await asyncio.wait_for(lobby.recv(), 15))
        if frame["type"] != "ping":
            errors = [e.message for e in validators[frame["type"]].iter_errors(frame)]
            assert not errors, (frame, errors[:3])
            return dict(frame)


async def test_blocking_a_listed_tables_host_elsewhere_takes_it_off_the_live_lobby(
    each_backend_site: ServerProcess,
) -> None:
    """From a QA pass: Cleo's lobby, open on one device, kept offering Ada's table after
    Cleo blocked Ada on another. Now the block closes it there (``blocked``) and the
    unblock offers it again; Ada, who is blocked, is told nothing, and neither is Dev
    when Ada blocks him: her table stays in his list, as the rules say (no one is told)."""
    ada, cleo, dev, eve = await players(each_backend_site.url, "Ada", "Cleo", "Dev", "Eve")
    feeds: dict[str, websockets.ClientConnection] = {}
    try:
        hers = (await open_table(ada))["table_id"]
        for name, player in (("Ada", ada), ("Cleo", cleo), ("Dev", dev)):
            feeds[name] = await websockets.connect(
                f"{each_backend_site.ws_url}/v1/tables/live?token={player.token}"
            )
            first = await next_lobby_frame(feeds[name])
            assert first["type"] == "tables"
            assert hers in {t["table_id"] for t in first["tables"]}  # type: ignore[attr-defined]

        assert (await block(cleo, ada.id)).status_code == 200  # "on another device"
        closed = await next_lobby_frame(feeds["Cleo"])
        assert closed == {"type": "table_closed", "table_id": hers, "status": "blocked"}
        assert hers not in await listed_table_ids(cleo)  # as the list says
        assert (await cleo.client.delete(f"/v1/me/blocks/{ada.id}")).status_code == 204
        offered = await next_lobby_frame(feeds["Cleo"])
        assert offered["type"] == "table"
        assert offered["table"]["table_id"] == hers  # type: ignore[index]

        assert (await block(ada, dev.id)).status_code == 200
        neutral = (await open_table(eve))["table_id"]  # after the blocks: heard after them
        for name in ("Ada", "Dev", "Cleo"):
            frame = await next_lobby_frame(feeds[name])
            assert frame["type"] == "table", (name, frame)  # nothing of the blocks before it
            assert frame["table"]["table_id"] == neutral  # type: ignore[index]
    finally:
        for lobby in feeds.values():
            await lobby.close()
        await close(ada, cleo, dev, eve)
