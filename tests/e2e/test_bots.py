"""``examples/bot.py`` as a real subprocess: it takes challenges on its player stream and
plays match after match, against a person and against another bot, across a rematch
and a server restart that breaks its stream."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.e2e.conftest import server_for
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import pick

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


@pytest.fixture(scope="module")
def sqlite_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """This file's one SQLite server for the tests that need no setting of their own or
    a restart (and ``each_backend_site``'s on SQLite, which asks for this fixture): each
    makes its own person and bots, and reads only their matches. A server start is
    seconds on a loaded machine; these tests each started one. No AI pace, so a house
    match a bot only watches is played within its request; no test here plays one
    otherwise (the pace is for matches of two house AIs only)."""
    with server_for("sqlite", tmp_path_factory.mktemp("bots"), GINRUMMY_AI_PACE_MS="0") as site:
        yield site


class BotProcess:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[dict[str, Any]] = []

    @classmethod
    async def start(cls, server: str, *args: str, clock_skew_s: float = 0) -> BotProcess:
        """``clock_skew_s``: the bot's ``time.time()`` runs that far ahead (behind, if
        negative) of the server's, as on a computer whose clock is wrong."""
        argv = [str(BOT), "--server", server, *args]
        skewed = (
            "import runpy, sys, time\n"
            f"real = time.time\ntime.time = lambda: real() + {clock_skew_s!r}\n"
            f"sys.argv = {argv!r}\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
        )
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", skewed, stdout=asyncio.subprocess.PIPE
        )
        bot = cls(proc)
        await bot.next_line()  # {"event": "created", ...}
        return bot

    @property
    def id(self) -> str:
        return str(self.lines[0]["id"])

    @property
    def token(self) -> str:
        return str(self.lines[0]["token"])

    async def next_line(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 60)
        assert line, f"the bot exited early ({await self.proc.wait()})"
        self.lines.append(json.loads(line))
        return self.lines[-1]

    async def finish(self, timeout: float = 120) -> int:
        """Read the rest of its output until it exits; its exit status."""
        assert self.proc.stdout is not None
        rest = await asyncio.wait_for(self.proc.stdout.read(), timeout)
        self.lines += [json.loads(line) for line in rest.splitlines() if line.strip()]
        return await self.proc.wait()

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == kind]

    async def kill(self) -> None:
        """Kill it if it still runs, and reap it while the test's event loop is open: a
        process left to the garbage collector warned "Event loop is closed"."""
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()


async def play_seat(player: Player, match_id: str, rng: random.Random) -> dict[str, Any]:
    """The person's seat, played until the match is settled; the bot acts on its own."""
    for _ in range(20_000):
        answer = await player.view(match_id)
        view = answer["view"]
        if view["phase"] == "match_over":
            return view
        if not view["legal"]:
            await asyncio.sleep(0.02)  # the bot's move
            continue
        reply = await player.act(match_id, pick(view, rng), version=answer["version"])
        assert reply.status_code in (200, 409), reply.text
    raise AssertionError("the match did not finish")


async def started_match(player: Player, path: str) -> str:
    """Wait for the table (a challenge or a rematch) at ``path`` to start; its match id."""
    for _ in range(600):
        table = (await player.client.get(path)).json()
        if table.get("status") == "started":
            return str(table["match_id"])
        assert table.get("status", "open") == "open", table
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} never started")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_example_bot_plays_a_person_three_times_across_a_restart(
    server: ServerProcess,
) -> None:
    person = await Player.create(server.url, "Person")
    bot = await BotProcess.start(server.url, "--matches", "3", "--rematch")
    rng = random.Random(3)
    try:
        # to 1 point: one scored hand a match, as three matches, their rematches and the
        # restart are what is checked (to 25 each match was several hands)
        offer = await person.client.post(
            "/v1/challenges", json={"to": bot.id, "rules": {"target": 1}}
        )
        assert offer.status_code == 201, offer.text
        assert offer.json()["invitee"] == {
            "id": bot.id,
            "name": "SimpleBot",
            "kind": "bot",
            "rating": {"rating": 1500, "deviation": 350, "provisional": True},  # a newcomer's
        }
        match_id = await started_match(person, f"/v1/tables/{offer.json()['table_id']}")
        played = [match_id]
        for number in range(3):
            final = await play_seat(person, match_id, rng)
            assert final["settlement"] is not None
            if number == 2:
                break
            if number == 0:  # the bot's stream breaks here; it must reconnect on its own
                server.stop()
                server.start()
            rematch = await person.client.post(f"/v1/matches/{match_id}/rematch")
            assert rematch.status_code == 200, rematch.text
            assert rematch.json()["rematch_of"] == match_id
            match_id = await started_match(person, f"/v1/matches/{match_id}/rematch")
            played.append(match_id)
        assert await bot.finish() == 0
        assert [e["match_id"] for e in bot.events("match_finished")] == played
        assert len(set(played)) == 3
        # the stopping server said why the stream ended; the bot reconnected on its own
        reasons = {e["reason"] for e in bot.events("reconnecting")}
        assert "server_restarting" in reasons, bot.lines
        finished = (await person.client.get("/v1/matches?status=finished")).json()["matches"]
        assert {m["match_id"] for m in finished} == set(played)
        assert {m["opponent_kind"] for m in finished} == {"bot"}
    finally:
        await bot.kill()
        await person.close()


async def test_two_example_bots_play_each_other_three_matches(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site
    waiting = await BotProcess.start(server.url, "--name", "Waiter", "--matches", "3", "--rematch")
    challenger = await BotProcess.start(
        server.url,
        "--name",
        "Challenger",
        "--challenge",
        waiting.id,
        "--target",
        "1",  # one scored hand a match: the three matches and their rematches are checked
        "--matches",
        "3",
        "--rematch",
    )
    try:
        assert await challenger.finish() == 0
        assert await waiting.finish() == 0
        played = [e["match_id"] for e in challenger.events("match_finished")]
        assert played == [e["match_id"] for e in waiting.events("match_finished")]
        assert len(set(played)) == 3
        viewer = await Player.create(server.url, "Viewer")
        for old, new in itertools.pairwise(played):
            as_challenger = {"Authorization": f"Bearer {challenger.token}"}
            link = await viewer.client.get(f"/v1/matches/{old}/rematch", headers=as_challenger)
            assert link.status_code == 200 and link.json()["match_id"] == new
        spectated = await viewer.client.get(f"/v1/matches/{played[-1]}/spectator")
        assert spectated.json()["view"]["settlement"] is not None
        await viewer.close()
    finally:
        await waiting.kill()
        await challenger.kill()


async def test_a_match_the_bot_only_watches_is_not_one_it_played(
    sqlite_site: ServerProcess,
) -> None:
    """Its stream announces a house match started with its token (``seat`` null); the bot
    does not count it towards ``--matches`` (nor ask a rematch of it), and plays on the
    match it was challenged to (it used to stop there, its one "match" played)."""
    server = sqlite_site  # no AI pace
    person = await Player.create(server.url, "Person")
    bot = await BotProcess.start(server.url, "--matches", "1", "--rematch")
    try:
        offer = await person.client.post(
            "/v1/challenges", json={"to": bot.id, "rules": {"target": 25}}
        )
        assert offer.status_code == 201, offer.text
        # Accepted from its stream: the stream is open and hears what follows.
        match_id = await started_match(person, f"/v1/tables/{offer.json()['table_id']}")
        as_bot = {"Authorization": f"Bearer {bot.token}"}
        house = await person.client.post(  # no pace: played to its end within the request
            "/v1/house-matches", headers=as_bot, json={"seats": ["ai:random", "ai:easy"]}
        )
        assert house.status_code == 201, house.text
        watched = house.json()["match_id"]
        while (await bot.next_line()).get("event") != "watched_finished":
            pass
        assert bot.events("watching") == [
            {"event": "watching", "match_id": watched, "players": ["ai:random", "ai:easy"]}
        ]
        await play_seat(person, match_id, random.Random(7))
        assert await bot.finish() == 0
        assert [e["match_id"] for e in bot.events("match_finished")] == [match_id]
    finally:
        await bot.kill()
        await person.close()


async def claimed_by_the_bot(bot: BotProcess, person: Player, match_id: str) -> dict[str, Any]:
    """Wait for the bot to say it claimed ``match_id``; the claim as the log has it."""
    while (line := await bot.next_line()).get("event") != "claimed":
        assert line.get("event") != "match_finished", bot.lines  # played out, not claimed
    assert line["match_id"] == match_id
    events = (await person.events(match_id))["events"]
    claimed = [e["event"] for e in events if e["event"]["type"] == "match_claimed"]
    assert len(claimed) == 1 and claimed[0]["seat"] == 1, events[-4:]  # the bot's seat
    assert claimed[0]["reason"] == line["reason"]
    settled = (await person.view(match_id))["view"]["settlement"]
    assert settled["resigned"] == 0 and settled["winner"] == 1
    return dict(claimed[0])


async def test_the_example_bot_claims_from_a_person_who_left_a_clocked_match(
    sqlite_site: ServerProcess,
) -> None:
    """The person never plays: the house stand-in plays three of its turns, and the bot
    claims the match on its next turn (before, it played the whole match out against the
    stand-in)."""
    server = sqlite_site
    person = await Player.create(server.url, "Leaver")
    bot = await BotProcess.start(server.url, "--matches", "1")
    try:
        offer = await person.client.post(
            "/v1/challenges", json={"to": bot.id, "clock": {"per_move_ms": 2000}}
        )
        assert offer.status_code == 201, offer.text
        match_id = await started_match(person, f"/v1/tables/{offer.json()['table_id']}")
        claim = await claimed_by_the_bot(bot, person, match_id)
        assert claim["reason"] == "timeouts"
        assert await bot.finish() == 0
        assert [e["match_id"] for e in bot.events("match_finished")] == [match_id]
    finally:
        await bot.kill()
        await person.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_example_bot_claims_once_its_opponent_has_been_away_for_the_grace(
    database_url: str, tmp_path: Path
) -> None:
    """A five-minute bank: the stand-in would wait minutes. The person sits on its turn
    with its live socket open for longer than the grace, and the bot waits; once the
    socket closes, the bot claims by absence, having asked the server when it may."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_ABSENCE_GRACE_S="2").start()
    person = await Player.create(server.url, "Leaver")
    bot = await BotProcess.start(server.url, "--matches", "1")
    try:
        clock = {"bank_ms": 300_000, "increment_ms": 0}
        offer = await person.client.post("/v1/challenges", json={"to": bot.id, "clock": clock})
        assert offer.status_code == 201, offer.text
        match_id = await started_match(person, f"/v1/tables/{offer.json()['table_id']}")
        url = f"{server.ws_url}/v1/matches/{match_id}/live?token={person.token}"
        async with websockets.connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
            while not (await person.view(match_id))["view"]["legal"]:
                await asyncio.sleep(0.05)  # the bot's move
            await asyncio.sleep(3.5)  # connected, thinking: longer than the grace
            assert (await person.view(match_id))["view"]["settlement"] is None  # no claim
        left = asyncio.get_running_loop().time()
        claim = await claimed_by_the_bot(bot, person, match_id)
        assert claim["reason"] == "absence"
        assert asyncio.get_running_loop().time() - left < 2 + 8  # the grace, and a little
        assert await bot.finish() == 0
    finally:
        await bot.kill()
        await person.close()
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_example_bot_waits_out_a_rate_limit_and_plays_on(
    database_url: str, tmp_path: Path
) -> None:
    """Over the move limit, a move is a 429 with ``Retry-After``: the bot tries that turn
    again then, and its stream stays open (it used to take the 429 for a broken stream,
    reconnect, and send the move again a second later, whatever the server had said)."""
    # One move a second: a turn's discard comes right after its draw, so nearly every
    # turn meets the limit however slow the machine (3 moves in 4 s needed the house
    # AI's reply within the window: at a load of 12 a whole match passed without a 429).
    limits = {"GINRUMMY_RATE_WINDOW_S": "1", "GINRUMMY_RATE_ACTIONS_PER_PLAYER": "1"}
    server = ServerProcess(database_url, tmp_path, **limits).start()
    bot = await BotProcess.start(  # not pacing itself on the headers: the 429s come
        server.url, "--challenge", "ai:easy", "--target", "1", "--matches", "1", "--no-pace"
    )
    try:
        assert await bot.finish(timeout=240) == 0
        assert len(bot.events("match_finished")) == 1
        waits = bot.events("rate_limited")
        assert waits and all(0 < w["retry_after"] <= 1 for w in waits), bot.lines
        assert not bot.events("reconnecting") and not bot.events("request_failed"), bot.lines
    finally:
        await bot.kill()
        server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_example_bot_paces_its_moves_on_the_ratelimit_header(
    database_url: str, tmp_path: Path
) -> None:
    """Under the same tight limit, the bot reads what is left of it on each answer
    (``RateLimit``) and holds its next move for the window's end once nothing is: it
    plays the match through without one move refused."""
    # 3 moves in 2 s: a turn's draw and discard and the next turn's draw (the house AI
    # replies at once), so a bot reaches it even on a loaded machine (6 in 2 s: not
    # always). A match to 10 is a hand or two: to 25 (4 s windows) it took 74 s.
    limits = {"GINRUMMY_RATE_WINDOW_S": "2", "GINRUMMY_RATE_ACTIONS_PER_PLAYER": "3"}
    server = ServerProcess(database_url, tmp_path, GINRUMMY_LOG_LEVEL="info", **limits).start()
    bot = await BotProcess.start(
        server.url, "--challenge", "ai:easy", "--target", "10", "--matches", "1"
    )
    try:
        assert await bot.finish(timeout=240) == 0
        assert len(bot.events("match_finished")) == 1
        paced = bot.events("paced")
        assert paced and all(0 < p["wait_s"] <= 2 for p in paced), bot.lines
        assert not bot.events("rate_limited"), bot.lines
        server.stop()  # its log is written in blocks: all of it is there once it stops
        log = server.log_path.read_text()
        moves = re.findall(r'"POST /v1/matches/\w+/actions HTTP/1.1" (\d+)', log)
        assert len(moves) > 3 and set(moves) <= {"200", "409"}, moves
    finally:
        await bot.kill()
        server.stop()


def test_the_example_bot_counts_down_to_the_next_hand_deadline_between_hands() -> None:
    """Between hands no seat's clock runs (``running`` is null) but a seat that has not
    said "ready" by ``next_hand_deadline_ms`` times out: a bot thinking 30 s over its
    ``next_hand`` must see that deadline, or the server says ready for it. (Before, it
    saw no clock there, thought the full 30 s and timed out: found by the test below
    when the person's random play ended a hand within the bot's two turns.)"""
    time_left_s = runpy.run_path(str(BOT))["time_left_s"]
    clock = {"running": None, "deadline_ms": None, "next_hand_deadline_ms": 1_030_000}
    between_hands = {"seat": 1, "now_ms": 1_000_000, "view": {"clock": clock}}
    assert time_left_s(between_hands) == 30.0
    in_play = {**clock, "running": 1, "deadline_ms": 1_006_000, "next_hand_deadline_ms": None}
    assert time_left_s({**between_hands, "view": {"clock": in_play}}) == 6.0
    their_turn = {**in_play, "running": 0}
    assert time_left_s({**between_hands, "view": {"clock": their_turn}}) is None
    assert time_left_s({**between_hands, "view": {"clock": None}}) is None


@pytest.mark.parametrize("skew_s", [30, -30])
async def test_the_example_bot_thinks_as_long_as_the_servers_clock_allows(
    sqlite_site: ServerProcess, skew_s: int
) -> None:
    """``--think 10`` under a 6 s move clock, on a computer whose clock is 30 s off: the
    bot takes most of each turn and never runs out of time. Counting the deadline against
    its own clock, 30 s fast it saw no time left and moved at once; 30 s slow it saw 36 s
    and let the clock run out (the house stand-in played its turn). Ten seconds is past
    the clock either way; thirty made a hand that ended within the bot's two turns cost
    the test a 30 s "ready" (a 50 s run in a full suite)."""
    server = sqlite_site
    person = await Player.create(server.url, "Quick")
    bot = await BotProcess.start(server.url, "--matches", "1", "--think", "10", clock_skew_s=skew_s)
    rng = random.Random(5)
    try:
        offer = await person.client.post(
            "/v1/challenges", json={"to": bot.id, "clock": {"per_move_ms": 6000}}
        )
        assert offer.status_code == 201, offer.text
        match_id = await started_match(person, f"/v1/tables/{offer.json()['table_id']}")
        loop = asyncio.get_running_loop()
        turns: list[float] = []  # how long each of the bot's turns took, as seen from here
        began: tuple[float, int] | None = None  # (when, in which hand)
        while len(turns) < 2:
            answer = await person.view(match_id)
            view = answer["view"]
            if view["legal"]:
                # A wait that spans a new deal is the bot's "ready" between hands, which it
                # may think over for --think (10 s): not a turn under the move clock.
                if began is not None and view["hand_number"] == began[1]:
                    turns.append(loop.time() - began[0])
                began = None
                reply = await person.act(match_id, pick(view, rng), version=answer["version"])
                assert reply.status_code in (200, 409), reply.text
                if reply.status_code == 200 and not reply.json()["view"]["legal"]:
                    began = (loop.time(), view["hand_number"])  # the bot's turn: its clock runs
                continue
            await asyncio.sleep(0.05)
        timeouts = [
            e["event"]
            for e in (await person.events(match_id))["events"]
            if e["event"]["type"] == "turn_timed_out"
        ]
        assert timeouts == [], (skew_s, turns, timeouts)
        assert all(3.5 <= took < 6 for took in turns), (skew_s, turns)  # most of 6 s, in time
    finally:
        await bot.kill()
        await person.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_two_example_bots_play_from_their_streams_reading_no_match(
    database_url: str, tmp_path: Path
) -> None:
    """Each turn is one request, the move: ``your_turn`` carries the match. Before, every
    turn read the match first (``GET /v1/matches/{id}``), and a waiting bot asked
    ``GET …/claim`` on a schedule; the server's access log shows neither now."""
    server = ServerProcess(database_url, tmp_path, GINRUMMY_LOG_LEVEL="info").start()
    waiting = await BotProcess.start(server.url, "--name", "Waiter", "--matches", "1")
    challenger = await BotProcess.start(
        server.url, "--challenge", waiting.id, "--target", "25", "--matches", "1"
    )
    try:
        assert await challenger.finish() == 0
        assert await waiting.finish() == 0
        server.stop()  # its log is written in blocks: all of it is there once it stops
        log = server.log_path.read_text()
        moves = re.findall(r'"POST /v1/matches/\w+/actions HTTP', log)
        reads = re.findall(r'"GET /v1/matches/[^ "]*', log)
        assert moves, log[-2000:]  # the log holds the match's requests
        assert reads == [], reads[:5]
    finally:
        await waiting.kill()
        await challenger.kill()
        server.stop()
