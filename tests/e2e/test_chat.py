"""A match's chat on a real server: who may write, who reads what, and the limits.

Every chat frame is checked against asyncapi.yaml and for leaks: it carries a message
and nothing else (no view, no card of either hand), and a muted message never reaches
the seat that muted its author, over HTTP or its socket.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from domain import chat as c
from infra.store import open_store
from tests.e2e.harness import Player, ServerProcess, next_frame, opened, wait_for
from tests.e2e.tables import join, open_table
from tests.e2e.test_openapi_conformance import frame_validators

MESSAGE_KEYS = {"version", "seat", "text", "posted_at"}


# The tests that need no server of their own share one (sqlite_site): each seats players of
# its own, and a chat, its limit and its mutes are one match's.


async def seated(url: str, **table: Any) -> tuple[Player, Player, dict[str, Any], str]:
    host = await Player.create(url, "Host")
    guest = await Player.create(url, "Guest")
    opened = await open_table(host, **table)
    joined = await join(guest, opened["table_id"], invite_code=opened["invite_code"])
    assert joined.status_code == 200, joined.text
    return host, guest, opened, joined.json()["match"]["match_id"]


class Socket:
    """A socket's frames, collected in the background; pings are answered."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for text in self.ws:
            frame = json.loads(text)
            if frame["type"] == "ping":
                await self.ws.send('{"type":"pong"}')
            self.frames.append(frame)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == kind]

    def texts(self) -> list[str]:
        return [f["message"]["text"] for f in self.of("chat")]

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def connect(url: str, token: str | None = None) -> Socket:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    socket = Socket(await websockets.connect(url, additional_headers=headers))
    await wait_for(lambda: socket.of("snapshot"))
    return socket


async def say(player: Player, match_id: str, text: Any) -> httpx.Response:
    return await player.client.post(f"/v1/matches/{match_id}/chat", json={"text": text})


def hidden_cards(*views: dict[str, Any]) -> set[str]:
    return {card for view in views for card in view["view"]["hand"]}


def assert_only_a_message(frames: list[dict[str, Any]], cards: set[str], channel: str) -> None:
    validators = frame_validators(*channel)
    for frame in frames:
        assert set(frame) == {"type", "version", "message", "now_ms"}, (
            frame
        )  # the time: every frame
        assert set(frame["message"]) == MESSAGE_KEYS, frame
        errors = [e.message for e in validators["chat"].iter_errors(frame)]
        assert not errors, errors
        assert not any(card in json.dumps(frame) for card in cards), frame


async def test_players_chat_spectators_read_and_a_mute_hides_only_from_the_muter(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site  # its own players, match and sockets
    host, guest, _, match_id = await seated(server.url)
    base = f"{server.ws_url}/v1/matches/{match_id}"
    host_ws = await connect(f"{base}/live", host.token)
    guest_ws = await connect(f"{base}/live", guest.token)
    watcher = await connect(f"{base}/watch")
    spectator = httpx.AsyncClient(base_url=server.url)
    try:
        before = (await host.view(match_id))["version"]
        posted = await say(host, match_id, "Good luck \u202eevil\u202c!")
        assert posted.status_code == 201, posted.text
        assert posted.json()["text"] == "Good luck evil!" and posted.json()["seat"] == 0
        await wait_for(lambda: guest_ws.texts() and watcher.texts() and host_ws.texts())
        assert guest_ws.texts() == watcher.texts() == host_ws.texts() == ["Good luck evil!"]
        assert (await host.view(match_id))["version"] == before  # the game's log is the game's

        # over the socket too; the answer comes back as a frame
        await guest_ws.ws.send(json.dumps({"type": "chat", "text": "Thanks"}))
        await wait_for(lambda: len(host_ws.texts()) == 2 and len(watcher.texts()) == 2)

        muted = await guest.client.post(f"/v1/matches/{match_id}/chat/mute")
        assert muted.json() == {"match_id": match_id, "seat": 1, "muted": True}
        assert (await say(host, match_id, "you will not hear this")).status_code == 201
        assert (await say(guest, match_id, "gg")).status_code == 201
        await wait_for(lambda: "gg" in host_ws.texts() and "gg" in watcher.texts())
        await wait_for(lambda: "gg" in guest_ws.texts())
        assert "you will not hear this" not in guest_ws.texts()
        assert (
            "you will not hear this" in host_ws.texts()
            and "you will not hear this" in watcher.texts()
        )

        page = (await guest.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert [m["text"] for m in page["messages"]] == ["Good luck evil!", "Thanks", "gg"]
        assert (page["seat"], page["muted"]) == (1, True)
        for reader in (host.client, spectator):
            everything = (await reader.get(f"/v1/matches/{match_id}/chat")).json()
            texts = [m["text"] for m in everything["messages"]]
            assert texts == ["Good luck evil!", "Thanks", "you will not hear this", "gg"]
        host_page = (await host.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert host_page["muted"] is False  # the host is not told it was muted
        spectator_page = (await spectator.get(f"/v1/matches/{match_id}/chat")).json()
        assert (spectator_page["seat"], spectator_page["muted"]) == (None, None)

        # unmuted, later messages reach the guest again; the muted one stays hidden
        await guest.client.post(f"/v1/matches/{match_id}/chat/unmute")
        assert (await say(host, match_id, "sorry")).status_code == 201
        await wait_for(lambda: "sorry" in guest_ws.texts())
        assert "you will not hear this" not in guest_ws.texts()

        # paging by the chat's own versions
        first = (await spectator.get(f"/v1/matches/{match_id}/chat?after=0&limit=2")).json()
        assert first["more"] and len(first["messages"]) == 2
        rest = await spectator.get(
            f"/v1/matches/{match_id}/chat?after={first['messages'][-1]['version']}"
        )
        assert [m["text"] for m in rest.json()["messages"]] == [
            "you will not hear this",
            "gg",
            "sorry",
        ]

        # a reconnect with chat_after gets what it missed, never a muted message
        again = await connect(f"{base}/live?chat_after=0", guest.token)
        await wait_for(lambda: len(again.texts()) == 4)
        assert again.texts() == ["Good luck evil!", "Thanks", "gg", "sorry"]
        await again.close()

        cards = hidden_cards(await host.view(match_id), await guest.view(match_id))
        assert_only_a_message(watcher.of("chat"), cards, ("watch", "receiveWatch"))
        for socket in (host_ws, guest_ws):
            assert_only_a_message(socket.of("chat"), set(), ("live", "receiveFeed"))
        responses = [page, host_page, spectator_page, first, rest.json()]
        assert not any(card in json.dumps(r) for r in responses for card in cards)
        assert all(set(m) == MESSAGE_KEYS for r in responses for m in r["messages"])
    finally:
        for socket in (host_ws, guest_ws, watcher):
            await socket.close()
        await spectator.aclose()
        await host.close()
        await guest.close()


async def test_bad_chat_is_a_clear_problem_and_changes_nothing(sqlite_site: ServerProcess) -> None:
    host, guest, table, match_id = await seated(sqlite_site.url, private=True)
    stranger = await Player.create(sqlite_site.url, "Stranger")
    anonymous = httpx.AsyncClient(base_url=sqlite_site.url)
    path = f"/v1/matches/{match_id}/chat"
    try:
        assert (await say(host, match_id, "hello")).status_code == 201

        async def refused(response: httpx.Response, status: int, rule: str) -> None:
            assert response.status_code == status, response.text
            assert response.headers["content-type"].startswith("application/problem+json")
            assert response.json()["rule"] == rule

        await refused(await say(host, match_id, "x" * 281), 422, "message_too_long")
        await refused(await say(host, match_id, "x" * 2001), 422, "invalid_request")
        await refused(await say(host, match_id, " \u202e\u2066\x00\n "), 422, "empty_message")
        for blank in ("\u3164\u3164\u3164", "\u2800\u2800", "\u115f", "\ufe0f"):  # show nothing
            await refused(await say(host, match_id, blank), 422, "empty_message")
        for not_text in (5, None, ["hi"], {"text": "hi"}):
            await refused(await say(host, match_id, not_text), 422, "invalid_request")
        await refused(await host.client.post(path, json={"txt": "hi"}), 422, "invalid_request")
        json_label = {"content-type": "application/json"}
        await refused(
            await host.client.post(path, content=b"{", headers=json_label), 400, "malformed_json"
        )
        lone = await host.client.post(
            path, content=b'{"text": "\\ud800"}', headers=json_label
        )  # half a pair
        await refused(lone, 400, "malformed_json")
        assert "not valid Unicode" in lone.json()["detail"], lone.text
        await refused(await say(stranger, match_id, "hi"), 403, "not_your_match")
        await refused(await anonymous.post(path, json={"text": "hi"}), 401, "unauthorized")
        await refused(await say(host, "no-such-match", "hi"), 404, "match_not_found")
        await refused(await say(host, f"chat:{match_id}", "hi"), 404, "match_not_found")
        await refused(await stranger.client.post(f"{path}/mute"), 403, "not_your_match")
        # a private match's chat is read only by its seats, or with its watch code
        await refused(await anonymous.get(path), 403, "watch_code_required")
        await refused(await stranger.client.get(path), 403, "watch_code_required")
        await refused(await anonymous.get(f"{path}?watch_code=wrong"), 403, "watch_code_required")
        watched = await anonymous.get(f"{path}?watch_code={table['watch_code']}")
        assert [m["text"] for m in watched.json()["messages"]] == ["hello"]
        await refused(await anonymous.get("/v1/matches/no-such-match/chat"), 404, "match_not_found")

        # a flood: at most five in ten seconds, then a 429 with Retry-After
        statuses = [(await say(guest, match_id, f"spam {i}")).status_code for i in range(5)]
        assert statuses == [201] * 5
        flood = await say(guest, match_id, "one too many")
        await refused(flood, 429, "chat_flood")
        assert 1 <= int(flood.headers["retry-after"]) <= 10
        assert (await say(host, match_id, "my own limit")).status_code == 201

        # a spectator's socket reads but cannot write
        code = table["watch_code"]
        async with websockets.connect(
            f"{sqlite_site.ws_url}/v1/matches/{match_id}/watch?watch_code={code}"
        ) as ws:
            assert (await opened(ws))["type"] == "snapshot"
            await ws.send(json.dumps({"type": "chat", "text": "let me in"}))
            error = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert error["type"] == "error" and error["problem"]["rule"] == "spectators_cannot_chat"
        # a seat's socket gets the same refusals as HTTP, the flood with its wait
        async with websockets.connect(
            f"{sqlite_site.ws_url}/v1/matches/{match_id}/live",
            additional_headers={"Authorization": f"Bearer {guest.token}"},
        ) as ws:
            assert (await opened(ws))["type"] == "snapshot"
            for text, rule in (("x" * 281, "message_too_long"), ("again", "chat_flood")):
                await ws.send(json.dumps({"type": "chat", "text": text}))
                error = await next_frame(ws)  # the host, if to act, is away: said first
                assert error["problem"]["rule"] == rule, error
            assert 1 <= error["retry_after"] <= 10
            await ws.send(json.dumps({"type": "chat", "text": 7}))
            error = await next_frame(ws)
            assert error["problem"]["rule"] == "invalid_request"

        texts = [m["text"] for m in (await host.client.get(path)).json()["messages"]]
        assert texts == ["hello", *(f"spam {i}" for i in range(5)), "my own limit"]
        assert (await host.client.get(path)).json()["version"] == 7
    finally:
        await anonymous.aclose()
        for player in (host, guest, stranger):
            await player.close()


async def test_the_canned_messages_are_listed(sqlite_site: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=sqlite_site.url) as client:
        canned = (await client.get("/v1/chat/canned")).json()["messages"]
    assert "Good game" in canned and "Nice knock" in canned
    assert all(0 < len(text) <= 280 for text in canned)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_two_processes_posting_at_once_respect_one_limit(
    database_url: str, tmp_path: Path
) -> None:
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    players: list[Player] = []
    try:
        host, guest, _, match_id = await seated(first.url)
        on_second = Player(
            httpx.AsyncClient(
                base_url=second.url, headers={"Authorization": f"Bearer {host.token}"}
            ),
            host.token,
            host.id,
        )
        players = [host, guest, on_second]
        # the guest listens on the first process; half the posts go through the second
        listening = await connect(f"{first.ws_url}/v1/matches/{match_id}/live", guest.token)
        answers = await asyncio.gather(
            *(say(p, match_id, f"at once {i}") for i in range(6) for p in (host, on_second))
        )
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [201] * 5 + [429] * 7, statuses
        page = (await guest.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert len(page["messages"]) == 5 and page["version"] == 5
        await wait_for(lambda: len(listening.texts()) == 5)
        assert listening.texts() == [m["text"] for m in page["messages"]]
        await listening.close()
    finally:
        for player in players:
            await player.close()
        first.stop()
        second.stop()


async def test_posts_racing_on_one_process_respect_the_limit(sqlite_site: ServerProcess) -> None:
    """Racing posts decide on one chat version each; the losers decide again."""
    host, guest, _, match_id = await seated(sqlite_site.url)
    try:
        answers = await asyncio.gather(*(say(host, match_id, f"race {i}") for i in range(9)))
        assert sorted(a.status_code for a in answers) == [201] * 5 + [429] * 4
        accepted = sorted(a.json()["version"] for a in answers if a.status_code == 201)
        assert accepted == [1, 2, 3, 4, 5]  # each answer names its own message
        texts = {a.json()["text"] for a in answers if a.status_code == 201}
        page = (await guest.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert {m["text"] for m in page["messages"]} == texts and page["version"] == 5
    finally:
        await host.close()
        await guest.close()


def without_time(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k != "posted_at"}


async def paged(client: httpx.AsyncClient, match_id: str) -> list[tuple[int, str]]:
    """Every message a reader may see, one page of one at a time, by ``after``."""
    seen: list[tuple[int, str]] = []
    after, more = 0, True
    while more:
        page = (await client.get(f"/v1/matches/{match_id}/chat?after={after}&limit=1")).json()
        seen += [(m["version"], m["text"]) for m in page["messages"]]
        after, more = (seen[-1][0] if seen else after), page["more"]
    return seen


async def chatted(server: ServerProcess, mute: bool) -> dict[str, Any]:
    """The reviewer's scenario: the host (A) talks, the guest (B) mutes it and unmutes,
    or not; everything the host and a spectator can observe, timestamps aside."""
    host, guest, _, match_id = await seated(server.url)
    base = f"{server.ws_url}/v1/matches/{match_id}"
    host_ws = await connect(f"{base}/live", host.token)
    watcher = await connect(f"{base}/watch")
    spectator = httpx.AsyncClient(base_url=server.url)
    seen: dict[str, Any] = {"answers": [], "host_pages": [], "spectator_pages": []}

    async def look() -> None:
        for reader, key in ((host.client, "host_pages"), (spectator, "spectator_pages")):
            page = (await reader.get(f"/v1/matches/{match_id}/chat")).json()
            page["messages"] = [without_time(m) for m in page["messages"]]
            seen[key].append({k: v for k, v in page.items() if k != "match_id"})

    async def host_says(text: str) -> None:
        answer = await say(host, match_id, text)
        assert answer.status_code == 201, answer.text
        seen["answers"].append(without_time(answer.json()))
        await look()

    async def guest_sets(muted: bool) -> None:
        if mute:
            settings = await guest.client.post(
                f"/v1/matches/{match_id}/chat/{'un' * (not muted)}mute"
            )
            assert settings.json()["muted"] is muted
        await look()

    try:
        await host_says("one")
        await guest_sets(True)
        await host_says("two")
        assert (await say(guest, match_id, "hey")).status_code == 201
        await guest_sets(False)
        await host_says("three")
        await wait_for(lambda: "three" in host_ws.texts() and "three" in watcher.texts())
        seen["host_frames"] = [without_time(f["message"]) for f in host_ws.of("chat")]
        seen["watch_frames"] = [without_time(f["message"]) for f in watcher.of("chat")]
        seen["host_paged"] = await paged(host.client, match_id)
        seen["spectator_paged"] = await paged(spectator, match_id)
        seen["guest_paged"] = await paged(guest.client, match_id)
        # a socket reconnecting from a number gets the messages after it, as GET would
        again = await connect(f"{base}/live?chat_after=1", host.token)
        await wait_for(lambda: "three" in again.texts())
        seen["host_resumed"] = [without_time(f["message"]) for f in again.of("chat")]
        await again.close()
        return seen
    finally:
        for socket in (host_ws, watcher):
            await socket.close()
        await spectator.aclose()
        await host.close()
        await guest.close()


async def test_a_mute_is_invisible_to_the_muted_player_and_to_spectators(
    sqlite_site: ServerProcess,
) -> None:
    """The chat the host and a spectator see, versions, pages, frames and answers, is the
    same whether or not the guest muted and unmuted the host; only the guest can tell."""
    muted, plain = await chatted(sqlite_site, mute=True), await chatted(sqlite_site, mute=False)
    assert {k: v for k, v in muted.items() if k != "guest_paged"} == {
        k: v for k, v in plain.items() if k != "guest_paged"
    }
    assert [a["version"] for a in muted["answers"]] == [1, 2, 4]
    # A's page after B's mute (and after the unmute) says what it said before it
    assert [p["version"] for p in muted["host_pages"]] == [1, 1, 2, 3, 4]
    everything = [(1, "one"), (2, "two"), (3, "hey"), (4, "three")]
    assert muted["host_paged"] == muted["spectator_paged"] == everything
    assert [(m["version"], m["text"]) for m in muted["host_frames"]] == everything
    assert [m["version"] for m in muted["host_resumed"]] == [2, 3, 4]
    # the muter pages past the message it was not shown, by the same numbers
    assert muted["guest_paged"] == [(1, "one"), (3, "hey"), (4, "three")]
    assert plain["guest_paged"] == everything


async def test_an_old_log_with_mutes_in_the_chat_stream_reads_as_before(
    sqlite_site: ServerProcess,
) -> None:
    """A chat recorded before messages were numbered apart (mutes in its stream, as ever)
    loads: the muter still misses what it muted and is still muted; readers number the
    messages 1, 2, 3 with no gap where the mutes are."""
    host, guest, _, match_id = await seated(sqlite_site.url)
    store = await open_store(sqlite_site.database_url, migrate=False)
    try:
        await store.append(
            c.stream_of(match_id),
            0,
            [
                c.MessagePosted(seat=0, text="one", posted_ms=1_000),
                c.OpponentMuted(seat=1, muted_ms=2_000),
                c.MessagePosted(seat=0, text="two", posted_ms=3_000, hidden_from=1),
                c.OpponentUnmuted(seat=1, unmuted_ms=4_000),
                c.MessagePosted(seat=0, text="three", posted_ms=5_000),
                c.OpponentMuted(seat=1, muted_ms=6_000),
            ],
        )
    finally:
        await store.close()
    spectator = httpx.AsyncClient(base_url=sqlite_site.url)
    try:
        page = (await guest.client.get(f"/v1/matches/{match_id}/chat")).json()
        assert [(m["version"], m["text"]) for m in page["messages"]] == [(1, "one"), (3, "three")]
        assert (page["version"], page["muted"]) == (3, True)
        assert await paged(guest.client, match_id) == [(1, "one"), (3, "three")]
        everything = [(1, "one"), (2, "two"), (3, "three")]
        for reader in (host.client, spectator):
            assert await paged(reader, match_id) == everything
        # the mute recorded last still holds; the next message is numbered on
        answer = await say(host, match_id, "four")
        assert answer.json()["version"] == 4
        page = (await guest.client.get(f"/v1/matches/{match_id}/chat?after=3")).json()
        assert (page["messages"], page["version"]) == ([], 4)
        assert await paged(spectator, match_id) == [*everything, (4, "four")]
    finally:
        await spectator.aclose()
        await host.close()
        await guest.close()
