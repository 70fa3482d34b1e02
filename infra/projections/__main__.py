"""``python -m infra.projections rebuild [NAME ...] [--url URL]``: rebuild from position 0."""

from __future__ import annotations

import argparse
import asyncio
import time

from infra.projections import projector
from infra.store import open_store


async def _rebuild(url: str | None, names: list[str]) -> None:
    store = await open_store(url)
    try:
        runner = projector(store)
        for name in names or list(runner.projections):
            started = time.perf_counter()
            applied = await runner.rebuild(name)
            elapsed = time.perf_counter() - started
            print(f"{name}: rebuilt from {applied} events in {elapsed:.2f}s")
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.projections")
    commands = parser.add_subparsers(dest="command", required=True)
    rebuild = commands.add_parser("rebuild", help="rebuild projections from position 0")
    rebuild.add_argument("names", nargs="*", help="projections (default: all)")
    rebuild.add_argument("--url", help="database URL (default: $GINRUMMY_DATABASE_URL)")
    args = parser.parse_args(argv)
    asyncio.run(_rebuild(args.url, args.names))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
