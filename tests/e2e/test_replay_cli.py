"""``ginrummy replay`` as an operator runs it: a real process reading a real server's database.

It names players as people know them, prints only finished matches (its text shows
both hands and the stock), and when it finds nothing it says which database it read,
without creating a ``data/`` directory in whatever directory it was run from.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
from pathlib import Path

from infra.migrate import upgrade
from tests.e2e.harness import GINRUMMY, Player, ServerProcess, play_out


def replay(*args: str, cwd: Path, database_url: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GINRUMMY_DATABASE_URL"}
    if database_url is not None:
        env["GINRUMMY_DATABASE_URL"] = database_url
    return subprocess.run(
        [str(GINRUMMY), "replay", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_replay_names_players_refuses_active_matches_and_names_its_database(
    server: ServerProcess, tmp_path: Path
) -> None:
    player = await Player.create(server.url, name="Ada")
    try:
        finished = await player.new_match(seed="replay-cli")
        await play_out(player, finished)
        log = await player.events(finished["match_id"])
        active = await player.new_match(seed="replay-cli-active")
    finally:
        await player.close()
    database = tmp_path / "ginrummy.sqlite3"
    assert server.database_url.endswith(str(database))

    done = replay(finished["match_id"], cwd=tmp_path, database_url=server.database_url)
    assert done.returncode == 0, done.stderr
    assert "Ada (seat 0) vs the easy AI (seat 1)" in done.stdout
    assert done.stdout.count(player.id) == 1, "the id is given once, beside the name"
    assert f"Player id of Ada: {player.id}" in done.stdout

    first_end = next(
        e["version"] for e in log["events"] if e["event"]["type"] in ("hand_scored", "hand_washed")
    )
    partial = replay(
        finished["match_id"], "--at", str(first_end), cwd=tmp_path, database_url=server.database_url
    )
    assert partial.returncode == 0, partial.stderr
    assert "after 1 hand\n" in partial.stdout and "after 1 hands" not in partial.stdout
    last = log["events"][-1]["version"]
    whole = replay(
        finished["match_id"], "--at", str(last), cwd=tmp_path, database_url=server.database_url
    )
    assert whole.returncode == 0 and whole.stdout == done.stdout, "--at the last event: all"
    past = replay(
        finished["match_id"], "--at", str(last + 1), cwd=tmp_path, database_url=server.database_url
    )
    assert past.returncode == 1 and past.stdout == "", "past the end: refused, not the whole"
    assert "version_out_of_range" in past.stderr and f"({last})" in past.stderr

    refused = replay(active["match_id"], cwd=tmp_path, database_url=server.database_url)
    assert refused.returncode == 1
    assert "match_not_finished" in refused.stderr and str(database) in refused.stderr
    assert refused.stdout == "", "nothing of an active match is printed"
    for card in active["view"]["hand"]:
        assert card not in refused.stderr

    unknown = replay("no-such-match", cwd=tmp_path, database_url=server.database_url)
    assert unknown.returncode == 1
    assert "no match 'no-such-match' in the SQLite file" in unknown.stderr
    assert str(database) in unknown.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lost = replay(finished["match_id"], cwd=elsewhere, database_url=None)
    assert lost.returncode == 1
    assert str(elsewhere / "data" / "ginrummy.sqlite3") in lost.stderr
    assert "GINRUMMY_DATABASE_URL" in lost.stderr
    assert list(elsewhere.iterdir()) == [], "reading creates no data/ directory"


def test_replay_never_migrates_the_database_it_reads(tmp_path: Path) -> None:
    """An older server may still be using a database behind this code's schema."""
    path = tmp_path / "older.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade(url, "0003")
    before = _dump(path)
    done = replay("some-match", cwd=tmp_path, database_url=url)
    assert done.returncode == 1
    assert "schema_behind" in done.stderr and "0003" in done.stderr and str(path) in done.stderr
    assert _dump(path) == before


def _dump(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return "\n".join(db.iterdump())


def test_replay_of_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    """``ginrummy serve`` refuses such a file in one line; the maintenance commands,
    which never migrate, read its schema revision first, and printed the driver's
    traceback instead. Now the same line, and the file is left as it was."""
    path = tmp_path / "ginrummy.sqlite3"
    path.write_bytes(b"not a database " * 512)
    done = replay("some-match", cwd=tmp_path, database_url=f"sqlite:///{path}")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"ginrummy replay: bad_database_url: {path} is not a SQLite database: "
        "file is not a database"
    ], done.stderr
    assert path.read_bytes() == b"not a database " * 512
