"""``python -m infra.projections rebuild [NAME ...] [--url URL]``: rebuild from position 0."""

from __future__ import annotations

import argparse
import asyncio
import sys

from infra.database import describe, resolve_url, sqlite_file
from infra.errors import InfraError
from infra.migrate import schema_revisions
from infra.projections import PROJECTIONS, rebuild
from infra.sql_event_store import translate_errors
from infra.store import open_store

NAMES = [kind.name for kind in PROJECTIONS]


async def rebuild_and_report(command: str, url: str | None, names: list[str]) -> int:
    """Rebuild and print one line per projection (also ``ginrummy rebuild-projections``);
    the exit code.

    It never migrates: run from a newer checkout while the old servers still use the
    database, a migration would change tables under them (README, "Upgrading"). A schema
    behind this code's is one line, and nothing changes."""
    resolved = resolve_url(url, create_dirs=False)
    file = sqlite_file(resolved)
    if file is not None and not file.exists():  # a rebuild in the wrong directory
        sys.stderr.write(
            f"{command}: no_database: there is no SQLite file {file}; run this where the"
            " server runs (beside its data/ directory) or set GINRUMMY_DATABASE_URL\n"
        )
        return 1
    with translate_errors():
        revision, head = await schema_revisions(resolved)
    if revision != head:
        sys.stderr.write(
            f"{command}: schema_behind: {describe(resolved)} is at schema revision"
            f" {revision or 'none'}, this version needs {head}: stop the old version's"
            " servers and start this version's (it migrates the database), then rebuild\n"
        )
        return 1
    store = await open_store(resolved, migrate=False)
    try:
        for name, applied, elapsed in await rebuild(store, names):
            sys.stdout.write(f"{name}: rebuilt from {applied} events in {elapsed:.2f}s\n")
    finally:
        await store.close()
    return 0


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
        return asyncio.run(rebuild_and_report(parser.prog, args.url, args.names))
    except InfraError as exc:  # one line, as ``ginrummy rebuild-projections`` says it
        sys.stderr.write(f"{parser.prog}: {exc.rule}: {exc}\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
