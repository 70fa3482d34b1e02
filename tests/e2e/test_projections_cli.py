"""Rebuilding the read models as an operator does: a real process on a real server's database.

Both commands (``ginrummy rebuild-projections`` and ``python -m infra.projections
rebuild``) print one line per projection with the events it replayed, which is the
log's length; a misspelt projection is a usage error that names the real ones.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from infra.migrate import upgrade
from tests.e2e.harness import GINRUMMY, Player, ServerProcess, play_out

NAMES = ["matches", "player_stats", "lobby", "ratings", "blocks"]  # infra.projections


def run(command: list[str], cwd: Path, database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, "GINRUMMY_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_each_projection_reports_the_log_it_replayed(
    server: ServerProcess, tmp_path: Path
) -> None:
    player = await Player.create(server.url, name="Ada")
    try:
        match = await player.new_match(seed="rebuild-cli")
        await play_out(player, match)
    finally:
        await player.close()
    for command in (
        [str(GINRUMMY), "rebuild-projections"],
        [sys.executable, "-m", "infra.projections", "rebuild"],
    ):
        done = run(command, tmp_path, server.database_url)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert [line.split(":")[0] for line in lines] == NAMES, done.stdout
        counts = {int(line.split(" rebuilt from ")[1].split()[0]) for line in lines}
        assert len(counts) == 1, f"each projection replays the same log: {done.stdout}"
        assert counts.pop() > 0
    chosen = run([str(GINRUMMY), "rebuild-projections", "lobby"], tmp_path, server.database_url)
    assert chosen.returncode == 0, chosen.stderr
    assert [line.split(":")[0] for line in chosen.stdout.splitlines()] == ["lobby"]


def test_a_misspelt_projection_is_a_usage_error_naming_the_real_ones(tmp_path: Path) -> None:
    unused = f"sqlite:///{tmp_path / 'none.sqlite3'}"  # never opened: refused before that
    for command in (
        [str(GINRUMMY), "rebuild-projections", "matchs"],
        [sys.executable, "-m", "infra.projections", "rebuild", "matchs"],
    ):
        done = run(command, tmp_path, unused)
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        assert "no projection named matchs" in done.stderr
        assert all(name in done.stderr for name in NAMES)
    assert not (tmp_path / "none.sqlite3").exists()


def test_a_rebuild_never_migrates_the_database(tmp_path: Path) -> None:
    """The upgrade rule is to stop every old server before the new version migrates; a
    rebuild run from the new version's checkout migrated the database under the old
    servers still using it. It now says the schema is behind and changes nothing."""
    path = tmp_path / "older.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url, "0020")
    for command in (
        [str(GINRUMMY), "rebuild-projections"],
        [sys.executable, "-m", "infra.projections", "rebuild"],
    ):
        done = run(command, tmp_path, url)
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert "schema_behind" in done.stderr and "0020" in done.stderr, done.stderr
        assert str(path) in done.stderr and "Traceback" not in done.stderr
        with contextlib.closing(sqlite3.connect(path)) as db:
            assert db.execute("select version_num from alembic_version").fetchall() == [("0020",)]
