"""``ginrummy``: serve the API, print the OpenAPI document, replay a match.

``serve`` needs nothing set up: with no ``GINRUMMY_DATABASE_URL`` it uses the
embedded SQLite file and applies the migrations first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from domain.errors import DomainError
from infra.errors import InfraError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ginrummy", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the HTTP/WebSocket server")
    serve.add_argument("--host", help="interface (default GINRUMMY_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default GINRUMMY_PORT or 8000)")
    commands.add_parser("openapi", help="print the OpenAPI document (JSON)")
    replay = commands.add_parser("replay", help="print a match's complete state after event N")
    replay.add_argument("match_id")
    replay.add_argument(
        "--at", type=_event_number, default=None, help="event number, from 1 (default: last)"
    )
    commands.add_parser("rebuild-projections", help="rebuild the read models from the log")
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
    if args.command == "rebuild-projections":
        try:
            return asyncio.run(_rebuild())
        except InfraError as exc:
            sys.stderr.write(f"ginrummy rebuild-projections: {exc.rule}: {exc}\n")
            return 1
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


def openapi_json() -> str:
    """The OpenAPI document exactly as committed in openapi/openapi.json."""
    from server.app import create_app
    from server.config import Settings

    schema = create_app(Settings()).openapi_schema.to_schema()
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def _serve(host: str | None, port: int | None) -> int:
    import uvicorn

    from server import logs
    from server.app import create_app
    from server.config import Settings

    settings = Settings.from_env()
    logs.install(settings.log_level)  # so the migration's line is logged like the server's
    # Migrate before the server starts, so an unreachable database is one clear line
    # here rather than a traceback from the lifespan (which migrates again, at no cost).
    asyncio.run(_migrate(settings.database_url or None))
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_level=settings.log_level,
        ws_max_size=settings.ws_max_message_bytes,
    )
    return 0


async def _migrate(url: str | None) -> None:
    from infra.store import open_store

    store = await open_store(url)
    await store.close()


async def _replay(match_id: str, at: int | None) -> int:
    from infra.replay import render_replay
    from infra.store import open_store

    store = await open_store()
    try:
        rendered = await render_replay(store, match_id, at)
    finally:
        await store.close()
    sys.stdout.write(rendered if rendered.endswith("\n") else rendered + "\n")
    return 0


async def _rebuild() -> int:
    from infra.projections import rebuild_all
    from infra.store import open_store

    store = await open_store()
    try:
        applied = await rebuild_all(store)
    finally:
        await store.close()
    sys.stdout.write(f"rebuilt the projections from {applied} events\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
