"""Migrations: empty to head and back to empty on both databases, and head == the code's schema."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from domain.blocks import PlayerBlocked, stream_of
from domain.events import MatchSettled, MatchStarted
from domain.rules import Clock, make_rules
from infra.database import create_engine
from infra.errors import MigrationFailed, SchemaTooNew
from infra.migrate import (
    alembic_config,
    downgrade_async,
    head_of_files,
    schema_revisions,
    upgrade_async,
)
from infra.projections import projector
from infra.projections.blocks import blocks_between
from infra.projections.lobby import open_public_tables
from infra.schema import metadata
from infra.scratch_database import create_scratch_database, drop_scratch_database
from infra.store import open_store
from tests.infra.helpers import OPENED_MS, open_table

ROOT = Path(__file__).resolve().parents[2]
OURS = set(metadata.tables)
NOW = datetime(2026, 12, 5, tzinfo=UTC)
HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no tables at all (not even Alembic's)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    server = request.getfixturevalue("_pg_session_url")  # fails/skips like the others
    url = asyncio.run(create_scratch_database(server, "ginrummy_m"))
    try:
        yield url
    finally:
        asyncio.run(drop_scratch_database(url))


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


async def _drift(url: str) -> list[object]:
    engine = create_engine(url)

    def compare(conn: Connection) -> list[object]:
        return list(compare_metadata(MigrationContext.configure(conn), metadata))

    try:
        async with engine.connect() as conn:
            return await conn.run_sync(compare)
    finally:
        await engine.dispose()


async def test_upgrade_from_empty_to_head_and_back(empty_url: str) -> None:
    assert not (await _tables(empty_url)) & OURS
    await upgrade_async(empty_url)
    assert await _tables(empty_url) >= OURS
    assert await _drift(empty_url) == []  # the migrations build exactly infra/schema.py
    await upgrade_async(empty_url)  # idempotent: a second server start changes nothing
    await downgrade_async(empty_url, "base")
    assert not (await _tables(empty_url)) & OURS
    await upgrade_async(empty_url)
    assert await _tables(empty_url) >= OURS


async def _execute(url: str, statement: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


async def _revision(url: str) -> str | None:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda c: MigrationContext.configure(c).get_current_revision()
            )
    finally:
        await engine.dispose()


async def test_tables_listed_before_0016_are_listed_with_their_clock(empty_url: str) -> None:
    """0016 gives the lobby a clock column: the rows it finds are projected again, so a
    table opened before it is listed with its clock, not as untimed."""
    await upgrade_async(empty_url, "0013")
    store = await open_store(empty_url, migrate=False)
    try:
        table_id = await open_table(store, Clock(per_move_ms=30_000))
        async with store.engine.begin() as conn:  # the lobby as 0013's projector left it
            await conn.execute(
                text(
                    "INSERT INTO lobby_tables (table_id, host, rules_name, rules, private,"
                    " status, opened_ms, expires_ms, last_position) VALUES (:id, 'host',"
                    " 'classic', :rules, 0, 'open', :opened, :expires, 1)"
                ),
                {
                    "id": table_id,
                    "rules": msgspec.json.encode(make_rules("classic")).decode(),
                    "opened": OPENED_MS,
                    "expires": OPENED_MS + 60_000,
                },
            )
            await conn.execute(
                text("INSERT INTO projection_checkpoints (name, position) VALUES ('lobby', 1)")
            )
        await upgrade_async(empty_url)
        await projector(store).catch_up("lobby")
        rows = await open_public_tables(store.engine, OPENED_MS + 1)
        assert [(row.table_id, row.clock) for row in rows] == [
            (table_id, Clock(per_move_ms=30_000))
        ]
    finally:
        await store.close()


SWEPT_BY_AGE = ("seat_presence", "stream_presence", "spectators")


async def _updated_indexes(url: str) -> dict[str, list[list[str]]]:
    """Per swept table, the columns of each of its indexes on ``updated_ms``."""
    engine = create_engine(url)

    def read(conn: Connection) -> dict[str, list[list[str]]]:
        found = {table: inspect(conn).get_indexes(table) for table in SWEPT_BY_AGE}
        return {
            table: [list(ix["column_names"]) for ix in indexes if ix["name"].endswith("_updated")]
            for table, indexes in found.items()
        }

    try:
        async with engine.connect() as conn:
            return await conn.run_sync(read)
    finally:
        await engine.dispose()


async def _count_rows(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return {
                table: (await conn.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one()
                for table in SWEPT_BY_AGE
            }
    finally:
        await engine.dispose()


async def test_0017_indexes_the_swept_rows_by_age_and_back_keeping_them(empty_url: str) -> None:
    """0017 only adds an ``updated_ms`` index to each table swept by age: the rows there
    stay, going up and coming back down."""
    await upgrade_async(empty_url, "0016")
    await _execute(empty_url, "INSERT INTO seat_presence VALUES ('m1', 0, 'p1', 1, 10)")
    await _execute(empty_url, "INSERT INTO stream_presence VALUES ('ada', 'p1', 0, 20)")
    await _execute(empty_url, "INSERT INTO spectators VALUES ('m1', 'p1', 2, 30)")
    assert await _updated_indexes(empty_url) == {table: [] for table in SWEPT_BY_AGE}
    await upgrade_async(empty_url, "0017")
    assert await _updated_indexes(empty_url) == {t: [["updated_ms"]] for t in SWEPT_BY_AGE}
    assert await _count_rows(empty_url) == {table: 1 for table in SWEPT_BY_AGE}
    await downgrade_async(empty_url, "0016")
    assert await _revision(empty_url) == "0016"
    assert await _updated_indexes(empty_url) == {table: [] for table in SWEPT_BY_AGE}
    assert await _count_rows(empty_url) == {table: 1 for table in SWEPT_BY_AGE}


def test_the_head_read_from_the_files_is_alembics() -> None:
    """A start at head is told without Alembic, by the head the files' lines name."""
    assert head_of_files() == HEAD


async def test_a_database_at_head_is_left_alone_without_alembic(empty_url: str) -> None:
    """A start at head loads no migration: Alembic is not even imported (a fresh
    interpreter, as ``ginrummy serve`` is), and nothing is written."""
    await upgrade_async(empty_url)
    script = (
        "import asyncio, sys\n"
        "from infra.migrate import schema_revisions, upgrade_async\n"
        f"asyncio.run(upgrade_async({empty_url!r}))\n"
        f"print(asyncio.run(schema_revisions({empty_url!r})))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'alembic', 'mako'}))\n"
    )
    run = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await run.communicate()
    assert run.returncode == 0
    assert out.decode().splitlines() == [str((HEAD, HEAD)), "[]"]
    assert await schema_revisions(empty_url) == (HEAD, HEAD)


async def test_a_database_behind_is_still_upgraded_past_the_head_check(empty_url: str) -> None:
    await upgrade_async(empty_url, "0024")
    assert await schema_revisions(empty_url) == ("0024", HEAD)
    await upgrade_async(empty_url)
    assert await _revision(empty_url) == HEAD
    assert await _drift(empty_url) == []


async def test_a_newer_servers_database_is_refused_and_left_alone(empty_url: str) -> None:
    await upgrade_async(empty_url)
    await _execute(empty_url, "UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(SchemaTooNew, match=r"revision 0099.*knows up to"):
        await upgrade_async(empty_url)
    assert await _revision(empty_url) == "0099"
    assert await _tables(empty_url) >= OURS


async def test_a_step_the_database_refuses_changes_nothing_and_says_why(
    empty_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    await upgrade_async(empty_url, "0002")
    await _execute(empty_url, "CREATE TABLE snapshots (x INTEGER)")  # 0003 creates it
    with pytest.raises(MigrationFailed, match=r"from schema revision 0002 failed.*snapshots"):
        await upgrade_async(empty_url)
    assert await _revision(empty_url) == "0002"
    await _execute(empty_url, "DROP TABLE snapshots")
    with caplog.at_level(logging.INFO, logger="ginrummy.migrate"):
        await upgrade_async(empty_url)
    assert await _revision(empty_url) == HEAD
    assert f"migrated from revision 0002 to {HEAD}" in caplog.text


async def _checkpoint(url: str, name: str) -> int | None:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            query = text("SELECT position FROM projection_checkpoints WHERE name = :name")
            return (await conn.execute(query, {"name": name})).scalar()
    finally:
        await engine.dispose()


async def test_0020_starts_the_blocks_projection_at_the_log_and_refolds_blocks_after_a_downgrade(
    empty_url: str,
) -> None:
    """No block exists before 0020, so its projection starts at the log's head (its first
    catch-up reads nothing old); after a downgrade and an upgrade the log's blocks are
    folded again, from just before the first."""
    await upgrade_async(empty_url, "0019")
    store = await open_store(empty_url, migrate=False)
    try:
        await open_table(store, None)  # one event in the log
        await upgrade_async(empty_url, "0020")
        assert await _checkpoint(empty_url, "blocks") == await store.last_position() == 1
        runner = projector(store)
        await store.append(stream_of("ada"), 0, [PlayerBlocked(player="bob", blocked_ms=1)])
        await runner.catch_up("blocks")
        assert await blocks_between(store.engine, "ada", "bob") == {("ada", "bob")}
        runner.close()

        await downgrade_async(empty_url, "0019")
        assert "player_blocks" not in await _tables(empty_url)
        assert await _checkpoint(empty_url, "blocks") is None
        await upgrade_async(empty_url)
        assert await _checkpoint(empty_url, "blocks") == 1  # just before the block, at 2
        runner = projector(store)
        await runner.catch_up("blocks")
        assert await blocks_between(store.engine, "bob", "ada") == {("ada", "bob")}
        runner.close()
    finally:
        await store.close()


async def test_0021_marks_the_rated_matches_already_projected_from_their_start(
    empty_url: str,
) -> None:
    """Rows the matches projection wrote before 0021 get ``rated`` from their own
    ``match_started`` event (the list of matches in play reads it from the row)."""
    await upgrade_async(empty_url, "0020")
    store = await open_store(empty_url, migrate=False)
    try:
        for match_id, rated in (("m-rated", True), ("m-casual", False)):
            started = MatchStarted(
                match_id=match_id,
                players=("ada", "bob"),
                rules=make_rules("arcadia"),
                seed_commitment="c",
                rated=rated,
            )
            await store.append(match_id, 0, [started])
            async with store.engine.begin() as conn:  # the row as 0020's projector wrote it
                for seat, (player, opponent) in enumerate((("ada", "bob"), ("bob", "ada"))):
                    await conn.execute(
                        text(
                            "INSERT INTO matches (match_id, seat, player_id, opponent,"
                            " rules_name, status, score, opponent_score, hands_played,"
                            " started_at, last_position, practice) VALUES (:m, :seat, :p,"
                            " :o, 'arcadia', 'active', 0, 0, 0, :at, 1, 0)"
                        ),
                        {"m": match_id, "seat": seat, "p": player, "o": opponent, "at": NOW},
                    )
        await upgrade_async(empty_url)
        async with store.engine.connect() as conn:
            rows = (await conn.execute(text("SELECT match_id, seat, rated FROM matches"))).all()
        assert sorted(tuple(row) for row in rows) == [
            ("m-casual", 0, 0),
            ("m-casual", 1, 0),
            ("m-rated", 0, 1),
            ("m-rated", 1, 1),
        ]
    finally:
        await store.close()


async def test_0025_marks_the_abandoned_matches_already_projected_from_their_settlement(
    empty_url: str,
) -> None:
    """Rows the matches projection wrote before 0025 get ``abandoned`` from their own
    ``match_settled`` event: a list read no longer calls such a match won or lost."""
    await upgrade_async(empty_url, "0024")
    store = await open_store(empty_url, migrate=False)
    try:
        for match_id, abandoned in (("m-left", True), ("m-played", False)):
            started = MatchStarted(
                match_id=match_id,
                players=("ada", "bob"),
                rules=make_rules("arcadia"),
                seed_commitment="c",
            )
            settled = MatchSettled(
                winner=0,
                hand_points=(100, 0),
                boxes=(4, 0),
                box_points=(100, 0),
                bonus=100,
                bonus_kind="shutout",
                totals=(300, 0),
                seed="s",
                abandoned=abandoned,
            )
            await store.append(match_id, 0, [started, settled])
            async with store.engine.begin() as conn:  # the rows as 0024's projector wrote them
                for seat, (player, opponent) in enumerate((("ada", "bob"), ("bob", "ada"))):
                    await conn.execute(
                        text(
                            "INSERT INTO matches (match_id, seat, player_id, opponent,"
                            " rules_name, status, score, opponent_score, hands_played,"
                            " started_at, last_position, practice, winner) VALUES (:m, :seat,"
                            " :p, :o, 'arcadia', 'finished', 0, 0, 0, :at, 2, 0, 'ada')"
                        ),
                        {"m": match_id, "seat": seat, "p": player, "o": opponent, "at": NOW},
                    )
        await upgrade_async(empty_url)
        async with store.engine.connect() as conn:
            query = text("SELECT match_id, seat, abandoned FROM matches")
            rows = (await conn.execute(query)).all()
        assert sorted(tuple(row) for row in rows) == [
            ("m-left", 0, 1),
            ("m-left", 1, 1),
            ("m-played", 0, 0),
            ("m-played", 1, 0),
        ]
    finally:
        await store.close()
