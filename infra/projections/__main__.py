"""``python -m infra.projections rebuild [NAME ...] [--url URL]``: rebuild from position 0."""

from __future__ import annotations

import argparse
import asyncio
import sys

from infra.errors import InfraError
from infra.projections import PROJECTIONS, rebuild
from infra.store import NotOpened, open_existing_store

NAMES = [kind.name for kind in PROJECTIONS]


async def rebuild_and_report(url: str | None, names: list[str]) -> None:
    """Rebuild and print one line per projection (also ``ginrummy rebuild-projections``).

    It never migrates (``open_existing_store``): no database, or one behind this code's
    schema, is ``NotOpened``, which its caller says in one line, and nothing changes."""
    store = await open_existing_store(url)
    try:
        for name, applied, elapsed in await rebuild(store, names):
            sys.stdout.write(f"{name}: rebuilt from {applied} events in {elapsed:.2f}s\n")
    finally:
        await store.close()


def unknown_names(parser: argparse.ArgumentParser, names: list[str]) -> None:
    """A misspelt name is a usage error that lists the real ones, before any database
    is opened (it was a ``KeyError`` traceback after the migrations had run)."""
    unknown = [name for name in names if name not in NAMES]
    if unknown:
        parser.error(f"no projection named {', '.join(unknown)} (choose from {', '.join(NAMES)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.projections")
    commands = parser.add_subparsers(dest="command", required=True)
    rebuild_command = commands.add_parser("rebuild", help="rebuild projections from position 0")
    rebuild_command.add_argument(
        "names", nargs="*", metavar="NAME", help=f"projections: {', '.join(NAMES)} (default: all)"
    )
    rebuild_command.add_argument("--url", help="database URL (default: $GINRUMMY_DATABASE_URL)")
    args = parser.parse_args(argv)
    unknown_names(rebuild_command, args.names)
    try:
        asyncio.run(rebuild_and_report(args.url, args.names))
    except (InfraError, NotOpened) as exc:  # one line, as ``ginrummy rebuild-projections`` says it
        sys.stderr.write(f"{parser.prog}: {exc.rule}: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
