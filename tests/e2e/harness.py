"""A real server process on a free port, and a client that plays through it.

Tests start ``ginrummy serve`` as a subprocess (never an in-process test client), so
HTTP, WebSocket, startup migrations and kill -9 are the real thing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

from infra.scratch_database import create_scratch_database, drop_scratch_database

ROOT = Path(__file__).resolve().parents[2]
GINRUMMY = Path(sys.executable).parent / "ginrummy"
RATE_LIMITS_OFF = {
    f"GINRUMMY_RATE_{what}_PER_{who}": "0"
    for what in ("CREATES", "ACTIONS")
    for who in ("PLAYER", "ADDRESS")
} | {"GINRUMMY_CONNECTIONS_PER_ADDRESS": "0"}


# The log of each page test's server (test_page.served_site), by base URL, while it runs:
# a failed test's report shows its last lines (conftest.pytest_runtest_makereport).
SITE_LOGS: dict[str, Path] = {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def accepting(port: int) -> bool:
    """Whether something listens on 127.0.0.1:``port``: uvicorn listens once the app has
    started. Asked often while a server starts, so cheap: a bare connect costs tens of
    microseconds where an ``httpx.get`` costs some 20 ms of CPU (a client and its TLS
    context each time), taken from the server starting beside it on two cores."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


def answers_ok(port: int, path: str, timeout: float = 1) -> bool:
    """Whether a GET of ``path`` on 127.0.0.1:``port`` answers 200 within ``timeout``
    (False while nothing listens). Asked at every server start, so a bare socket read to
    the server's close: an ``httpx.get`` made a client and its TLS context each time,
    25 ms of CPU and 70 ms of wall a call (measured, median of 10, at load 9), taken from
    the server starting beside it on two cores; this costs 0.2 ms of CPU."""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    with (
        contextlib.suppress(OSError),
        socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock,
    ):
        sock.sendall(request.encode())
        answer = b""
        while chunk := sock.recv(65536):  # to the end: the server closes, nothing cut off
            answer += chunk
        return answer.split(b"\r\n", 1)[0].split(b" ")[1:2] == [b"200"]
    return False


MINUTE_RATE_WINDOW_S = 60  # a rate window this long or longer is one a test counts in
ROOM_IN_THE_RATE_WINDOW_S = 30  # left in it when such a test's server is ready


class ServerProcess:
    def __init__(self, database_url: str, workdir: Path, **env: str) -> None:
        self.database_url = database_url
        self.workdir = workdir
        self.env = env
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90.0) -> ServerProcess:
        """Start, and wait for ``/readyz``. A start takes seconds when idle; on a shared
        two-core machine at load 16 a two-worker start took 32 s (migration, then each
        worker importing the app), past the 30 s this once allowed. Only a start that
        never comes waits it out."""
        env = {
            **os.environ,
            "GINRUMMY_DATABASE_URL": self.database_url,
            "GINRUMMY_LOG_LEVEL": "warning",
            "GINRUMMY_WORKERS": "1",  # one process per ServerProcess; a test may ask for more
            **RATE_LIMITS_OFF,  # tests play fast from one address; a test may set its own
            **self.env,
        }
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [str(GINRUMMY), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=self.workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log_path.read_text()}")
            if not accepting(self.port):
                time.sleep(0.01)
                continue
            if answers_ok(self.port, "/readyz"):
                self.wait_for_room_in_the_rate_window()
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not become ready:\n{self.log_path.read_text()}")

    def wait_for_room_in_the_rate_window(self) -> None:
        """A test that sets a rate window of minutes counts its requests against one of
        the server's fixed windows, which start at multiples of the window since the epoch
        (server/limits.py); a count begun near a window's end starts again mid-test (a CI
        run's fourth rename in a row passed at 10:30:00). Such a test starts in a window
        with room left; windows of seconds are the tests' own to straddle."""
        window_s = int(self.env.get("GINRUMMY_RATE_WINDOW_S", "0"))
        if window_s < MINUTE_RATE_WINDOW_S:
            return
        left = window_s - time.time() % window_s
        if left < ROOM_IN_THE_RATE_WINDOW_S:
            time.sleep(left + 0.1)

    def kill(self) -> None:
        """kill -9: no shutdown hooks, no flush; the store must cope."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


async def create_database(base_url: str) -> str:
    """A fresh PostgreSQL database next to the one in ``base_url``; returns its URL."""
    return await create_scratch_database(base_url, "ginrummy_e2e")


drop_database = drop_scratch_database


class Player:
    """A guest player's HTTP session."""

    def __init__(self, client: httpx.AsyncClient, token: str, player_id: str) -> None:
        self.client = client
        self.token = token
        self.id = player_id

    @classmethod
    async def create(cls, base_url: str, name: str = "tester") -> Player:
        client = httpx.AsyncClient(base_url=base_url, timeout=30)
        response = await client.post("/v1/players", json={"name": name})
        assert response.status_code == 201, response.text
        body = response.json()
        client.headers["Authorization"] = f"Bearer {body['token']}"
        return cls(client, body["token"], body["id"])

    async def close(self) -> None:
        await self.client.aclose()

    async def new_match(self, **body: Any) -> dict[str, Any]:
        body.setdefault("level", "easy")
        body.setdefault("rules", {"preset": "classic", "target": 30})
        response = await self.client.post("/v1/matches", json=body)
        assert response.status_code == 201, response.text
        result: dict[str, Any] = response.json()
        return result

    async def act(
        self, match_id: str, action: dict[str, Any], version: int | None = None, key: str = ""
    ) -> httpx.Response:
        headers = {"Idempotency-Key": key} if key else {}
        body: dict[str, Any] = {"action": action}
        if version is not None:
            body["version"] = version
        return await self.client.post(f"/v1/matches/{match_id}/actions", json=body, headers=headers)

    async def view(self, match_id: str) -> dict[str, Any]:
        response = await self.client.get(f"/v1/matches/{match_id}")
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    async def events(self, match_id: str, limit: int = 1000) -> dict[str, Any]:
        """The whole log, page by page as a client must read it (one page may not hold it).

        Returns the last page's fields with ``events`` holding every page's events.
        """
        events: list[dict[str, Any]] = []
        while True:
            response = await self.client.get(
                f"/v1/matches/{match_id}/events",
                params={"after": events[-1]["version"] if events else 0, "limit": limit},
            )
            assert response.status_code == 200, response.text
            page: dict[str, Any] = response.json()
            events += page["events"]
            if not page["more"]:
                return {**page, "events": events}
            assert page["events"], "a page that says more follows holds events"


def fail_every_append(database: Path) -> None:
    """Make the live store fail each event it is asked to write, from another connection.

    A trigger, not damaged files: rewriting the files under the server (as a test
    once did) truncates the ``-shm`` that SQLite has mapped into memory, and a read of
    it in that moment kills the server with SIGBUS, so the client saw a reset socket
    instead of a problem. "string or blob too big" (SQLITE_TOOBIG) is a failure the
    store does not translate, as a corrupt file's is not: an unexpected one, a 500.
    Reads still work, so only the action fails.
    """
    with contextlib.closing(sqlite3.connect(database, timeout=30)) as conn:
        conn.execute(
            "CREATE TRIGGER events_fail BEFORE INSERT ON events"
            " BEGIN SELECT zeroblob(2000000000); END"
        )
        conn.commit()


def timeless(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without its ``now_ms`` (the server's time as it answered): two answers of
    one state differ only there."""
    return {key: value for key, value in answer.items() if key != "now_ms"}


def as_action(legal: dict[str, Any]) -> dict[str, Any]:
    """A legal command from the view, as a client action (no seat)."""
    return {k: v for k, v in legal.items() if k != "seat" and v is not None}


async def play_out(player: Player, match: dict[str, Any], seed: int = 23) -> int:
    """Seat 0 ends a hand whenever it may, else plays at random, to the match's end.

    Returns the last version. Knocking at once keeps matches short (a few dozen
    actions), for tests that need a finished match rather than a good game.
    """
    rng = random.Random(seed)
    view, version = match["view"], match["version"]
    for _ in range(3000):
        if view["phase"] == "match_over":
            return int(version)
        legal = view["legal"]
        ending = [a for a in legal if a["type"] in ("gin", "big_gin", "knock")]
        response = await player.act(
            match["match_id"], as_action(ending[0] if ending else rng.choice(legal)), version
        )
        assert response.status_code == 200, response.text
        body = response.json()
        view, version = body["view"], body["version"]
    raise AssertionError("match did not finish")


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.05)


# A seat's match socket says, unasked, when the opponent it waits for is away, back or may
# be claimed from (server/ws/live_presence.py): at any moment, the first just after the
# snapshot when the opponent is not connected. A test reading the answer to what it sent
# reads past them.
PRESENCE_FRAMES = frozenset({"opponent_away", "opponent_back", "claimable"})


async def opened(ws: Any, timeout: float = 10.0) -> dict[str, Any]:
    """A match socket's first frame, its snapshot, read past the ``seats`` frame that
    follows it as every match socket starts (a refusal, an ``error`` frame, as it is)."""
    first: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    if first["type"] == "snapshot":
        seats = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        assert (seats["type"], seats["version"]) == ("seats", first["version"]), seats
    return first


async def next_frame(ws: Any, timeout: float = 10.0) -> dict[str, Any]:
    """A match socket's next frame but for presence frames."""
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if frame["type"] not in PRESENCE_FRAMES:
            return frame


async def chunked(*parts: bytes) -> AsyncIterator[bytes]:
    """A body sent in pieces: httpx then sends no Content-Length (Transfer-Encoding: chunked)."""
    for part in parts:
        yield part
