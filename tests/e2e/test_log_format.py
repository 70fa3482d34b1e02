"""Every line a server process writes has one shape, with a UTC time (``GINRUMMY_LOG_FORMAT``).

Before, one server wrote the standard library's ``INFO:name:…`` until the app was built,
Litestar's ``INFO - <local time> - …`` after, and uvicorn's ``INFO:     …`` with no time
at all. These tests read the whole log of real processes: every line must parse, the
masking must still hold, and a debug log of a hard match (its AI in a process of its
own) must name no card.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
import websockets

from tests.e2e.harness import Player, as_action, fail_every_append
from tests.e2e.server_log import TEXT_LINE, log_lines, refused_start, serving

CARD = re.compile(r"\b[A2-9TJQK][CDHS]\b")


def _utc(text: str) -> datetime:
    assert text.endswith("Z"), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_json_lines_at_debug_parse_mask_tokens_and_name_no_card(
    database_url: str, tmp_path: Path
) -> None:
    with serving(
        database_url,
        tmp_path,
        GINRUMMY_LOG_FORMAT="json",
        GINRUMMY_LOG_LEVEL="debug",
        GINRUMMY_AI_PROCESSES="1",
    ) as server:
        player = await Player.create(server.url)
        match = await player.new_match(level="hard", seed="log-format")
        match_id = match["match_id"]
        url = f"{server.ws_url}/v1/matches/{match_id}/live?token={player.token}"
        async with websockets.connect(url) as ws:
            assert json.loads(await ws.recv())["type"] == "snapshot"
        view, version = match["view"], match["version"]
        for _ in range(12):  # a few turns each: hard answers from its own process
            if view["phase"] != "playing" or not view["legal"]:
                break
            answer = await player.act(match_id, as_action(view["legal"][0]), version)
            assert answer.status_code == 200, answer.text
            view, version = answer.json()["view"], answer.json()["version"]
        await player.client.get(f"/healthz?token={player.token}")
        await player.close()
    lines = log_lines(server)
    assert lines
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    for record in records:
        assert {"time", "level", "logger", "pid", "message"} <= set(record), record
        _utc(record["time"])
    loggers = {record["logger"] for record in records}
    assert {"ginrummy.migrate", "ginrummy.config", "uvicorn.error", "uvicorn.access"} <= loggers
    access = [r["http"] for r in records if r["logger"] == "uvicorn.access"]
    assert {"method": "GET", "path": "/healthz?token=***", "status": 200}.items() <= next(
        a for a in access if a["path"].startswith("/healthz")
    ).items()
    text = "\n".join(lines)
    assert "/live?token=***" in text
    assert player.token not in text and player.token[-12:] not in text
    assert not CARD.findall(text), "a debug log names no card"


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_text_lines_of_every_worker_and_the_supervisor(
    database_url: str, tmp_path: Path
) -> None:
    with serving(database_url, tmp_path, GINRUMMY_LOG_LEVEL="info", GINRUMMY_WORKERS="2") as server:
        for _ in range(6):
            player = await Player.create(server.url)
            await player.close()
    lines = log_lines(server)
    shapes = [TEXT_LINE.match(line) for line in lines]
    assert all(shapes), [line for line, shape in zip(lines, shapes, strict=True) if not shape]
    pids = {int(shape[2]) for shape in shapes if shape}
    assert len(pids) >= 3, "the supervisor and two workers: " + "\n".join(lines)
    assert any(" uvicorn.access: " in line and "POST /v1/players" in line for line in lines)
    assert any(" uvicorn.error: Started parent process" in line for line in lines)
    # Importing alembic in each worker said seven "setup plugin" INFO lines, before the
    # app quieted alembic: the level comes with the logging set-up now, not after it.
    assert not [line for line in lines if " alembic." in line], "\n".join(lines)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_a_traceback_stays_in_its_records_line(
    database_url: str, tmp_path: Path, log_format: str
) -> None:
    """An unexpected failure's traceback (a 500's) is one line with its record's message.

    In ``text`` it followed the record on lines of its own, which a line-based shipper
    took for records of their own (or for garbage); now its newlines are ``\\n`` escapes
    on the record's line. In ``json`` it is the record's ``exception`` field.
    """
    with serving(database_url, tmp_path, GINRUMMY_LOG_FORMAT=log_format) as server:
        player = await Player.create(server.url)
        fail_every_append(tmp_path / "ginrummy.sqlite3")
        answer = await player.client.post("/v1/matches", json={"level": "easy"})
        assert answer.status_code == 500, answer.text
        await player.close()
    lines = log_lines(server)
    if log_format == "json":
        records = [json.loads(line) for line in lines]
        [failure] = [r for r in records if r["message"] == "unhandled error on POST /v1/matches"]
        assert failure["level"] == "ERROR", failure
        traceback = failure["exception"]
        assert traceback.startswith("Traceback (most recent call last):\n"), traceback
        assert "string or blob too big" in traceback, traceback
        return
    assert all(TEXT_LINE.match(line) for line in lines), "\n".join(lines)
    [failure] = [line for line in lines if "unhandled error on POST /v1/matches" in line]
    assert " ERROR " in failure, failure
    assert "POST /v1/matches\\nTraceback (most recent call last):\\n  File " in failure, failure
    assert "string or blob too big" in failure, failure


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_store_file_that_is_not_a_database_stops_the_start_with_one_line(
    tmp_path: Path, log_format: str
) -> None:
    """A store file that is not a database stopped ``ginrummy serve`` with the driver's
    exception, which nobody caught: Python's own lines on standard error, then (with
    ``report_uncaught_exceptions``) one escaped traceback. It is the setting's fault,
    said in one line as every other refused start is, and nothing is written to the
    file. (Python's reports of what nobody caught: ``tests/server/test_log_format.py``.)"""
    not_a_database = tmp_path / "ginrummy.sqlite3"
    not_a_database.write_bytes(b"not a database " * 512)
    done = refused_start(
        tmp_path,
        GINRUMMY_DATABASE_URL=f"sqlite:///{not_a_database}",
        GINRUMMY_LOG_FORMAT=log_format,
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"ginrummy serve: bad_database_url: {not_a_database} is not a SQLite database: "
        "file is not a database"
    ), done.stderr
    assert "Traceback" not in done.stderr and "ginrummy.uncaught" not in done.stderr
    assert not_a_database.read_bytes() == b"not a database " * 512


def test_an_unknown_log_format_stops_the_server_at_start(tmp_path: Path) -> None:
    done = refused_start(tmp_path, GINRUMMY_LOG_FORMAT="xml")
    assert "GINRUMMY_LOG_FORMAT='xml' must be one of text, json" in done.stderr, done.stderr
