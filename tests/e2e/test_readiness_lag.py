"""``/readyz`` says how far behind the log each read model is, and refuses past a limit.

Two real servers share one PostgreSQL database. Events appended by one are behind in
the other's read models until its next catch-up (every 5 s, or before a read of a
read model): the other's readiness reports them and, past ``GINRUMMY_READY_MAX_BEHIND``,
answers 503 ``projections_behind``; once it has caught up it is ready again. The
default limit is generous, so the same burst leaves a server ready, its lag reported.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.e2e.harness import Player
from tests.e2e.server_log import log_lines, refused_start, serving


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_readiness_reports_lag_and_fails_only_past_its_limit(
    database_url: str, tmp_path: Path
) -> None:
    with (
        serving(database_url, tmp_path, GINRUMMY_READY_MAX_BEHIND="3") as strict,
        serving(database_url, tmp_path) as busy,
    ):
        async with httpx.AsyncClient(timeout=10) as client:
            refused = None
            for attempt in range(3):  # the strict server's own catch-up may fall in between
                players = [await Player.create(busy.url, name=f"b{attempt}{i}") for i in range(3)]
                for player in players:
                    await player.new_match(seed="lag")
                    await player.close()
                answer = await client.get(strict.url + "/readyz")
                if answer.status_code == 503:
                    refused = answer
                    break
            assert refused is not None, "the strict server never reported its lag"
            assert refused.headers["content-type"].startswith("application/problem+json")
            problem = refused.json()
            assert problem["rule"] == "projections_behind", problem
            assert "events behind the log (at most 3)" in problem["detail"], problem
            generous = (await client.get(busy.url + "/readyz")).json()
            assert generous["status"] == "ready" and generous["max_behind"] == 50000
            assert generous["behind"] == max(generous["projections"].values())
            assert {"lobby", "ratings"} <= set(generous["projections"]), generous
            for _ in range(80):  # the strict server catches up by itself, within 5 s
                answer = await client.get(strict.url + "/readyz")
                if answer.status_code == 200:
                    break
                await asyncio.sleep(0.1)
            assert answer.status_code == 200, answer.text
            assert answer.json()["behind"] <= 3, answer.json()
    log = "\n".join(log_lines(strict))
    assert "not ready: the read models are" in log and "Traceback" not in log, log


def test_the_limit_must_be_a_whole_number(tmp_path: Path) -> None:
    done = refused_start(tmp_path, GINRUMMY_READY_MAX_BEHIND="-1")
    assert "GINRUMMY_READY_MAX_BEHIND='-1' must be 0 or more" in done.stderr, done.stderr
