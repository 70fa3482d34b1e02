"""What a request costs the server's event loop, with and without the framework around it.

    python -m benchmarks.request_cost [--actions 500] [--database-url URL] [--direct]

The app runs in this process on a fresh PostgreSQL database (its lifespan, its
background loops and all); one player plays the easy AI, and each action is followed
by a ``GET /v1/matches/{id}``. Both are sent by calling the ASGI app directly (no
socket, no HTTP parsing, no client library in the measured time), and each is timed in
CPU of the loop's thread (``time.thread_time``), so a wait on the database costs
nothing and everything the loop ran meanwhile (the request, and any background task
that ran in between) counts. ``--direct`` makes the actions by calling the service
(``action_keys.act``) instead of the app: the difference between the two runs is what
Litestar, the middleware, the body's decoding and the answer's encoding cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from infra.scratch_database import create_scratch_database, drop_scratch_database

Asgi = Callable[..., Awaitable[None]]
RULES = {"preset": "classic", "target": 100}


async def call(app: Asgi, method: str, path: str, body: bytes = b"", token: str = "") -> Any:
    """One request through the ASGI app; its status and decoded JSON answer."""
    headers = [(b"host", b"bench"), (b"content-type", b"application/json")]
    headers.append((b"content-length", str(len(body)).encode()))
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # no disconnect: the request is answered first
        raise AssertionError("unreachable")

    status, chunks = 0, []

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, json.loads(b"".join(chunks) or b"null")


async def started(app: Any) -> tuple[asyncio.Queue[dict[str, Any]], asyncio.Task[None]]:
    """Run the app's lifespan until it has started; put a shutdown message to stop it."""
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    ready = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "lifespan.startup.failed":
            raise SystemExit(message.get("message", "the app did not start"))
        if message["type"] == "lifespan.startup.complete":
            ready.set()

    lifespan = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    task = asyncio.create_task(app(lifespan, inbox.get, send))
    await inbox.put({"type": "lifespan.startup"})
    await ready.wait()
    return inbox, task


async def measure(database_url: str, actions: int, direct: bool) -> dict[str, float]:
    os.environ["GINRUMMY_DATABASE_URL"] = database_url
    os.environ.setdefault("GINRUMMY_LOG_LEVEL", "warning")
    for what in ("CREATES", "ACTIONS"):  # as bench_server: one address plays many matches
        for who in ("PLAYER", "ADDRESS"):
            os.environ[f"GINRUMMY_RATE_{what}_PER_{who}"] = "0"
    from server import action_keys
    from server.app import create_app
    from server.schemas import ActionRequest

    app = create_app()
    inbox, lifespan = await started(app)
    rng = random.Random(1)
    posts: list[float] = []
    gets: list[float] = []
    try:
        _, player = await call(app, "POST", "/v1/players", b'{"name": "bench"}')
        token, player_id = player["token"], player["id"]
        new_match = json.dumps({"level": "easy", "rules": RULES}).encode()
        _, match = await call(app, "POST", "/v1/matches", new_match, token)
        while len(posts) < actions:
            if match["view"]["phase"] == "match_over":
                _, match = await call(app, "POST", "/v1/matches", new_match, token)
                continue
            legal = rng.choice(match["view"]["legal"])
            action = {k: v for k, v in legal.items() if k != "seat" and v is not None}
            body = json.dumps({"action": action, "version": match["version"]}).encode()
            path = f"/v1/matches/{match['match_id']}"
            before = time.thread_time()
            if direct:
                request = msgspec.json.decode(body, type=ActionRequest, strict=True)
                services = app.state.services
                answered = await action_keys.act(
                    services, match["match_id"], player_id, request, None
                )
                status, answer = 200, msgspec.to_builtins(answered)
            else:
                status, answer = await call(app, "POST", path + "/actions", body, token)
            posts.append(time.thread_time() - before)
            assert status == 200, answer
            match = {
                "match_id": match["match_id"],
                "version": answer["version"],
                "view": answer["view"],
            }
            before = time.thread_time()
            status, _ = await call(app, "GET", path, token=token)
            gets.append(time.thread_time() - before)
            assert status == 200
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await lifespan
    return {
        "actions": len(posts),
        "post_median_us": statistics.median(posts) * 1e6,
        "post_mean_us": statistics.fmean(posts) * 1e6,
        "get_median_us": statistics.median(gets) * 1e6,
        "get_mean_us": statistics.fmean(gets) * 1e6,
    }


async def run(args: argparse.Namespace) -> dict[str, float]:
    base = args.database_url or os.environ.get("TEST_DATABASE_URL")
    if not base or "postgresql" not in base:
        raise SystemExit("needs PostgreSQL: --database-url or TEST_DATABASE_URL")
    database_url = await create_scratch_database(base, "ginrummy_request_cost")
    try:
        return await measure(database_url, args.actions, args.direct)
    finally:
        await drop_scratch_database(database_url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=500)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--direct", action="store_true", help="act through the service, not HTTP")
    result = asyncio.run(run(parser.parse_args()))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
