"""A rename is shown live, on a real server: the opponent's match socket, every
spectator's, the lobby's list and the player streams of its open challenges hear the new
name within seconds (SQLite and PostgreSQL,
then two server processes sharing PostgreSQL, the rename made on the other one). A page
kept the old name until reloaded. Every frame is checked against asyncapi.yaml and by the
secrecy oracle (a ``seats`` frame names players, never a card); a refused rename sends
nothing and changes nothing.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.secrecy import named, states_by_version
from tests.e2e.tables import join, open_table
from tests.e2e.test_absence import Socket, on
from tests.e2e.test_blocks import problem

Frame = dict[str, Any]
NEWS_S = 10.0  # "within a second or two", with room for a test machine at a load of 16


class Lobby(Socket):
    """The lobby's list socket (or a player stream): checked and recorded as a match
    socket is, but its frames carry no version for the secrecy oracle."""

    def __init__(self, ws: Any, channel: str = "lobby", operation: str = "receiveLobby") -> None:
        super().__init__(ws, channel, operation)

    async def until(self, done: Any, limit: float = NEWS_S) -> Frame:
        return await super().until(done, limit)

    def keep(self, frame: Frame) -> None:
        self.frames.append(frame)


def kind(name: str) -> Any:
    return lambda frame: frame["type"] == name


def hosted_by(table_id: str, name: str) -> Any:
    return lambda f: f["type"] == "table" and (f["table"]["table_id"], f["table"]["host"]["name"]) == (table_id, name)  # fmt: skip


async def rename(player: Player, name: str) -> httpx.Response:
    return await player.client.patch(f"/v1/players/{player.id}", json={"name": name})


async def renamed_in_time(player: Player, name: str) -> float:
    """Rename; the moment it was answered (the news is timed from there)."""
    answer = await rename(player, name)
    assert answer.status_code == 200, answer.text
    return time.monotonic()


async def the_match_hears(
    sockets: list[Socket], since: float, names: list[str], match_id: str, reader: Player
) -> None:
    """Each socket's next ``seats`` frame names the seats so, in time, as GET does."""
    for socket in sockets:
        frame = await socket.until(kind("seats"), NEWS_S)
        assert time.monotonic() - since < NEWS_S
        assert [seat["name"] for seat in frame["seats"]] == names, frame
        assert not named(frame), frame  # players only: no card, whatever the version
    seats = (await reader.view(match_id))["seats"]
    assert [seat["name"] for seat in seats] == names


async def play_to_the_end(host: Player, match_id: str, sockets: list[tuple[Socket, int | None]]) -> None:  # fmt: skip
    """The host resigns; every socket hears the end, and none was sent a card it could
    not know at the version it was at."""
    resigned = await host.act(match_id, {"type": "resign"})
    assert resigned.status_code == 200, resigned.text
    over = lambda f: f["type"] == "event" and f["view"]["phase"] == "match_over"  # noqa: E731
    states = states_by_version((await host.events(match_id))["events"])
    for socket, seat in sockets:
        await socket.until(over)
        assert socket.seen.assert_no_leaks(states, seat) >= 2


async def seat_and_spectator(
    stack: contextlib.AsyncExitStack, server: ServerProcess, match_id: str, player: Player
) -> tuple[Socket, Socket]:
    """The player's seat socket on the match and a spectator's, both past their snapshot
    and the ``seats`` frame that follows it (the names as they are as the socket starts)."""
    base = f"{server.ws_url}/v1/matches/{match_id}"
    sockets = []
    for url, channel, operation in (
        (f"{base}/live?token={player.token}", "live", "receiveFeed"),
        (f"{base}/watch", "watch", "receiveWatch"),
    ):
        socket = Socket(
            await stack.enter_async_context(websockets.connect(url)), channel, operation
        )
        await socket.until(kind("snapshot"))
        await socket.until(kind("seats"))
        sockets.append(socket)
    return sockets[0], sockets[1]


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_rename_reaches_the_opponent_the_spectators_and_the_lobby_at_once(
    server: ServerProcess,
) -> None:
    ada, bob, carl = [await Player.create(server.url, n) for n in ("Ada Live", "Bob Live", "Carl")]
    try:
        async with contextlib.AsyncExitStack() as stack:
            lobby_ws = await stack.enter_async_context(
                websockets.connect(f"{server.ws_url}/v1/tables/live?token={carl.token}")
            )
            lobby = Lobby(lobby_ws)
            await lobby.until(kind("tables"))
            table_id = (await open_table(ada))["table_id"]
            await lobby.until(hosted_by(table_id, "Ada Live"))
            since = await renamed_in_time(ada, "Ada Hosting")
            await lobby.until(hosted_by(table_id, "Ada Hosting"))  # the list, in place
            assert time.monotonic() - since < NEWS_S

            joined = await join(bob, table_id)
            assert joined.status_code == 200, joined.text
            match_id = joined.json()["match"]["match_id"]
            seat, watcher = await seat_and_spectator(stack, server, match_id, ada)

            # Refused as before (RFC 9457), changing nothing: no frame says any of them.
            problem(await rename(bob, "ada hosting"), 409, "name_taken")
            assert (await rename(bob, "Bob\u202e")).status_code == 422
            since = await renamed_in_time(bob, "Bob Renamed Live")
            await the_match_hears([seat, watcher], since, ["Ada Hosting", "Bob Renamed Live"], match_id, ada)  # fmt: skip
            since = await renamed_in_time(ada, "Ada Playing")  # the seat's own: its spectators
            await the_match_hears([watcher], since, ["Ada Playing", "Bob Renamed Live"], match_id, ada)  # fmt: skip
            await play_to_the_end(ada, match_id, [(seat, 0), (watcher, None)])
            assert not [f for f in seat.frames + watcher.frames if f["type"] == "error"]
    finally:
        for player in (ada, bob, carl):
            await player.close()


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_rename_between_the_pages_read_and_its_sockets_start_is_sent_as_it_starts(
    server: ServerProcess,
) -> None:
    """A page names the seats from its read of the match, then opens its socket (a seat's
    with ``after`` at the version it read, as the page does: no snapshot). A rename
    between the two woke no socket, and one at the newest version sent nothing at all:
    the page showed the old name until reloaded. Every match socket now sends the seats
    once as it starts, after its snapshot or its replay, at the version they reach."""
    ada, bob = [await Player.create(server.url, n) for n in ("Ada Early", "Bob Early")]
    try:
        table_id = (await open_table(ada))["table_id"]
        joined = await join(bob, table_id)
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]
        read = await ada.view(match_id)  # the seat's page names the seats from this
        watched = (await ada.client.get(f"/v1/matches/{match_id}/spectator")).json()
        assert [seat["name"] for seat in read["seats"]] == ["Ada Early", "Bob Early"]
        assert watched["seats"] == read["seats"]
        await renamed_in_time(bob, "Bob Since")  # before any socket of the match opens
        version, base = read["version"], f"{server.ws_url}/v1/matches/{match_id}"
        seat, watch = ("live", "receiveFeed"), ("watch", "receiveWatch")
        opening = {
            "seat": (f"{base}/live?token={ada.token}&after={version}", seat),
            "resumed spectator": (f"{base}/watch?after={version}", watch),
            "spectator": (f"{base}/watch", watch),
        }
        async with contextlib.AsyncExitStack() as stack:
            sockets = {
                name: Socket(await stack.enter_async_context(websockets.connect(url)), *channel)
                for name, (url, channel) in opening.items()
            }
            for name, socket in sockets.items():
                seats = await socket.until(kind("seats"), NEWS_S)
                assert [seat["name"] for seat in seats["seats"]] == ["Ada Early", "Bob Since"]
                assert seats["version"] == version, (name, seats)
                assert not named(seats), seats  # players only: no card
                first = ["snapshot", "seats"] if name == "spectator" else ["seats"]
                assert [f["type"] for f in socket.frames] == first, (name, socket.frames)
            resigned = await ada.act(match_id, {"type": "resign"})  # its log, whole once over
            assert resigned.status_code == 200, resigned.text
            states = states_by_version((await ada.events(match_id))["events"])
            seat_socket = sockets.pop("seat")
            assert seat_socket.seen.assert_no_leaks(states, 0) == 1
            for socket in sockets.values():
                assert socket.seen.assert_no_leaks(states, None) >= 1
    finally:
        for player in (ada, bob):
            await player.close()


@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
async def test_a_challenge_is_said_again_with_the_challengers_new_name(
    server: ServerProcess,
) -> None:
    """The challenged player's stream, which lists the challenge by its sender's name."""
    ada, bob = [await Player.create(server.url, n) for n in ("Ada Asked", "Bob Asking")]
    try:
        url = f"{server.ws_url}/v1/me/live?token={ada.token}"
        async with websockets.connect(url) as ws:
            stream = Lobby(ws, "player", "receivePlayer")
            await stream.until(kind("ping"))  # nothing open yet
            sent = await bob.client.post("/v1/challenges", json={"to": ada.id})
            assert sent.status_code == 201, sent.text
            table_id = sent.json()["table_id"]
            said = lambda name: lambda f: f["type"] == "challenge" and (f["challenge"]["table_id"], f["challenge"]["host"]["name"]) == (table_id, name)  # noqa: E731  # fmt: skip
            await stream.until(said("Bob Asking"))
            problem(await rename(bob, "ada asked"), 409, "name_taken")  # nothing said
            since = await renamed_in_time(bob, "Bob Renamed")
            again = await stream.until(said("Bob Renamed"))
            assert time.monotonic() - since < NEWS_S
            assert again["challenge"]["invitee"]["name"] == "Ada Asked"
            assert not named(again), again
            assert [f["type"] for f in stream.frames if f["type"] == "challenge"] == [
                "challenge"
            ] * 2
    finally:
        for player in (ada, bob):
            await player.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_rename_on_one_process_reaches_the_sockets_of_another(
    database_url: str, tmp_path: Path
) -> None:
    """The rename is made on the first process; every socket is open on the second."""
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    ada, bob = [await Player.create(first.url, n) for n in ("Ada Apart", "Bob Apart")]
    try:
        async with contextlib.AsyncExitStack() as stack:
            lobby = Lobby(
                await stack.enter_async_context(
                    websockets.connect(f"{second.ws_url}/v1/tables/live?token={bob.token}")
                )
            )
            await lobby.until(kind("tables"))
            table_id = (await open_table(ada))["table_id"]
            await lobby.until(hosted_by(table_id, "Ada Apart"))
            since = await renamed_in_time(ada, "Ada Elsewhere")
            await lobby.until(hosted_by(table_id, "Ada Elsewhere"))
            assert time.monotonic() - since < NEWS_S

            joined = await join(bob, table_id)
            assert joined.status_code == 200, joined.text
            match_id = joined.json()["match"]["match_id"]
            seat, watcher = await seat_and_spectator(stack, second, match_id, ada)
            since = await renamed_in_time(bob, "Bob Elsewhere")
            there = on(second, ada)
            try:
                await the_match_hears([seat, watcher], since, ["Ada Elsewhere", "Bob Elsewhere"], match_id, there)  # fmt: skip
            finally:
                await there.close()
            await play_to_the_end(ada, match_id, [(seat, 0), (watcher, None)])
    finally:
        for player in (ada, bob):
            await player.close()
        first.stop()
        second.stop()
