"""``ginrummy``: serve the API, print the OpenAPI document, replay or verify a match.

``serve`` needs nothing set up: with no ``GINRUMMY_DATABASE_URL`` it uses the
embedded SQLite file and applies the migrations first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from typing import Any

from domain.errors import DomainError
from infra.errors import InfraError, StreamNotFound

# Seconds an idle HTTP connection stays open (above a proxy's usual 60 s).
KEEP_ALIVE_S = 65


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ginrummy", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP/WebSocket server")
    serve.add_argument("--host", help="interface (default GINRUMMY_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=_port, help="port (default GINRUMMY_PORT or 8000)")
    commands.add_parser("openapi", help="print the OpenAPI document (JSON)")
    replay = commands.add_parser(
        "replay",
        help="print a finished match hand by hand, every card shown (up to event N)",
        description="Reads the database the server uses (GINRUMMY_DATABASE_URL, else"
        " ./data/ginrummy.sqlite3 in this directory); it changes nothing.",
    )
    replay.add_argument("match_id")
    replay.add_argument(
        "--at", type=_event_number, default=None, help="event number, from 1 (default: last)"
    )
    verify = commands.add_parser(
        "verify",
        help="check a finished match's deal from its log: every deck, salt and the dealer",
        description="Reads the match from the server's database (as replay does), or with"
        " --events from a saved JSON log (GET /v1/matches/{id}/events pages: a list of"
        " {version, event}, or an object with such an events list; - reads stdin)."
        " Exit 0: the deal is proved fair; 1: it is not (each reason printed).",
    )
    verify.add_argument("match_id", nargs="?")
    verify.add_argument("--events", metavar="FILE", help="a saved events JSON instead")
    verify.add_argument(
        "--commitment", help="the seed commitment you saved before the match (GET /v1/me)"
    )
    rebuild = commands.add_parser(
        "rebuild-projections",
        help="rebuild the read models from the log (each projection's events and time printed)",
    )
    rebuild.add_argument("names", nargs="*", metavar="NAME", help="projections (default: all)")
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            return _serve(args.host, args.port)
        except InfraError as exc:
            sys.stderr.write(f"ginrummy serve: {exc.rule}: {exc}\n")
            return 3  # as uvicorn exits when the application cannot start
    if args.command == "openapi":
        sys.stdout.write(openapi_json())
        return 0
    if args.command == "replay":
        try:
            return asyncio.run(_replay(args.match_id, args.at))
        except (InfraError, DomainError) as exc:
            sys.stderr.write(f"ginrummy replay: {exc.rule}: {exc}\n")
            return 1
    if args.command == "verify":
        if (args.match_id is None) == (args.events is None):
            parser.error("verify needs a match id or --events FILE (one of them)")
        try:
            return asyncio.run(_verify(args.match_id, args.events, args.commitment))
        except (InfraError, DomainError, UnreadableLog) as exc:
            sys.stderr.write(f"ginrummy verify: {exc.rule}: {exc}\n")
            return 1
    if args.command == "rebuild-projections":
        from infra.projections.__main__ import rebuild_and_report, unknown_names
        from infra.store import NotOpened

        unknown_names(rebuild, args.names)
        try:
            asyncio.run(rebuild_and_report(None, args.names))
        except (InfraError, NotOpened) as exc:
            sys.stderr.write(f"ginrummy rebuild-projections: {exc.rule}: {exc}\n")
            return 1
        return 0
    return 2


def _event_number(text: str) -> int:
    """Events count from 1; checked here so a bad --at is a usage error (exit 2)."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not an event number (1, 2, ...)")
    return number


def _port(text: str) -> int:
    """A port as GINRUMMY_PORT accepts one (1–65535), so a bad --port is a usage error."""
    from server.config import Refused, read_setting

    try:
        port = read_setting("port", text)
    except Refused as exc:
        raise argparse.ArgumentTypeError(f"{text!r} {exc}") from None
    assert isinstance(port, int)
    return port


def openapi_json() -> str:
    """The OpenAPI document exactly as committed in openapi/openapi.json."""
    from server.app import create_app
    from server.config import Settings

    schema = create_app(Settings()).openapi_schema.to_schema()
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def _serve(host: str | None, port: int | None) -> int:
    from server import gc_tuning

    gc_tuning.pause_for_start()  # until the app has started (or uvicorn's supervisor runs)
    from server.config import (
        Settings,
        proxies_of,
        unknown_variables,
        worker_count,
        ws_transport_max_bytes,
    )

    # The settings are read before the application is imported (uvicorn, the app and
    # its store: some 2 s of CPU), so a value out of range stops serve at once.
    settings = Settings.from_env()

    import uvicorn

    from infra.database import describe, resolve_url
    from server import logs
    from server.app import create_app
    from server.http.header_deadline import HeaderDeadlineProtocol
    from server.log_format import logging_config

    logs.install(settings.log_level, settings.log_format)  # the migration's line too
    logs.report_uncaught_exceptions()  # a failure at start too: one line, not Python's many
    log = logging.getLogger("ginrummy.config")
    for warning in unknown_variables():
        log.warning(warning)
    # Migrate before the server starts, so an unreachable database is one clear line
    # here rather than a traceback from the lifespan (which migrates again, at no cost).
    asyncio.run(_migrate(settings.database_url or None))
    # Which store, said once it answered: a misspelt or missing GINRUMMY_DATABASE_URL
    # means SQLite (a store that fails is one line of its own, above).
    log.info("event store: %s", describe(resolve_url(settings.database_url or None)))
    workers = worker_count(settings)
    options = {
        "host": host or settings.host,
        "port": port or settings.port,
        "log_level": settings.log_level,
        # uvicorn applies this in every process it runs (each worker, and the supervisor),
        # so its own lines have the server's shape and masking from the first one.
        "log_config": logging_config(settings.log_level, settings.log_format),
        # Above the application's limit, so that an over-long message gets its error
        # frame (payload_too_large) rather than a bare 1009; still a hard ceiling.
        "ws_max_size": ws_transport_max_bytes(settings),
        # On shutdown, wait this long for requests in flight (player streams end at once:
        # server/draining.py), then close what is left.
        "timeout_graceful_shutdown": settings.drain_requests_s,
        # An idle connection is kept longer than clients and proxies keep theirs (httpx
        # 5 s, a load balancer's 60 s): the side that closes first can close it just as the
        # other sends a request on it, which is then lost. uvicorn's default is 5 s.
        "timeout_keep_alive": KEEP_ALIVE_S,
        # uvicorn's httptools protocol, closing connections whose headers trickle in
        "http": HeaderDeadlineProtocol,
        # uvicorn trusts X-Forwarded-For from 127.0.0.1 unless told otherwise: anyone on
        # the host could pick the address the rate limits count. Only the proxies named.
        "proxy_headers": bool(proxies_of(settings.trusted_proxies)),
        "forwarded_allow_ips": proxies_of(settings.trusted_proxies) or None,
    }
    if workers == 1:
        uvicorn.run(create_app(settings), **options)  # type: ignore[arg-type]
    else:
        gc_tuning.resume()  # the supervisor serves nothing, so tune_after_start never runs here
        # Each worker process builds its own app (and store, tailer, caches) from the
        # same environment; they share only the database, as separate servers do.
        uvicorn.run("server.app:create_worker_app", factory=True, workers=workers, **options)  # type: ignore[arg-type]
    return 0


async def _migrate(url: str | None) -> None:
    from infra.store import open_store

    store = await open_store(url)
    await store.close()


def _saved_events(path: str) -> list[Any]:
    """Events from a saved log: API pages' ``{version, event}`` items, or bare events."""
    import msgspec

    from domain.events import AnyEvent

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()  # noqa: SIM115
        data = json.loads(text)
        items = data.get("events") if isinstance(data, dict) else data
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise ValueError("expected a list of {version, event} items, or events")
        return [msgspec.convert(item.get("event", item), AnyEvent) for item in items]
    except (OSError, ValueError, msgspec.ValidationError) as exc:
        raise UnreadableLog(f"{path}: {exc}") from exc


class UnreadableLog(Exception):
    """A saved log the verifier cannot read: a missing file, not JSON, not events."""

    rule = "invalid_events"


async def _verify(match_id: str | None, path: str | None, commitment: str | None) -> int:
    from domain.verify import UNPROVABLE, problems

    if path is not None:
        events = _saved_events(path)
    else:
        assert match_id is not None
        loaded = await _read_match("verify", match_id, "its seeds are revealed once it is settled")
        if isinstance(loaded, int):
            return loaded
        events = loaded
    found = problems(events, commitment)
    if found:
        for problem in found:
            said = "NOT PROVABLE" if problem == UNPROVABLE else "FAILED"
            sys.stdout.write(f"{said}: {problem}\n")
        return 1
    hands = sum(1 for e in events if type(e).__name__ == "Dealt")
    sys.stdout.write(
        f"fair deal verified: {hands} hands, every deck, salt and the first dealer"
        " recomputed from the revealed seeds\n"
    )
    return 0


async def _read_match(command: str, match_id: str, unfinished: str) -> list[Any] | int:
    """A finished match's events from the server's database, read only; or the exit
    code after saying plainly why not (no database, schema behind, no such match,
    still being played: ``unfinished`` says why that matters to ``command``).

    It reads only: no migration (an older server may still use a database behind this
    code's schema, and a newer one's is refused as ``serve`` refuses it), and no
    ``data/`` directory made for a SQLite file that is not there (run from another
    directory, that is the likely mistake)."""
    from domain.match import fold
    from infra.database import describe, resolve_url
    from infra.replay import load_match
    from infra.store import NotOpened, open_existing_store

    where = describe(resolve_url(create_dirs=False))
    try:
        store = await open_existing_store()
    except NotOpened as exc:
        sys.stderr.write(f"ginrummy {command}: {exc.rule}: {exc}\n")
        return 1
    try:
        try:
            recorded = await load_match(store, match_id)
        except StreamNotFound:
            sys.stderr.write(
                f"ginrummy {command}: stream_not_found: no match {match_id!r} in {where}\n"
            )
            return 1
    finally:
        await store.close()
    events = [r.match_event for r in recorded]
    if fold(events).settlement is None:
        sys.stderr.write(
            f"ginrummy {command}: match_not_finished: match {match_id!r} ({where}) is still"
            f" being played ({len(events)} events so far); {unfinished}\n"
        )
        return 1
    return events


async def _replay(match_id: str, at: int | None) -> int:
    """Print a finished match; refuse, naming the database read, anything else.

    An active match is refused because the text shows both hands and the stock, which
    stay secret until the match is over (the server's replay endpoint refuses too).
    """
    from domain.match import fold
    from infra.database import resolve_url
    from infra.replay import player_names, render
    from infra.store import open_store

    events = await _read_match(
        "replay",
        match_id,
        "replay prints finished matches only, because it shows both hands and the stock",
    )
    if isinstance(events, int):
        return events
    if at is not None and at > len(events):
        # As the API's ?at= refuses it (version_out_of_range): printing the whole match
        # instead would pass a mistyped number off as the match's end.
        sys.stderr.write(
            f"ginrummy replay: version_out_of_range: --at {at} is past the match's last"
            f" event ({len(events)}); nothing was printed\n"
        )
        return 1
    store = await open_store(resolve_url(create_dirs=False), migrate=False)
    try:
        names = await player_names(store, fold(events).players)
    finally:
        await store.close()
    rendered = render(events, at, names)
    sys.stdout.write(rendered if rendered.endswith("\n") else rendered + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
