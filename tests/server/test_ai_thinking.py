"""Hard thinks in a process of its own: the same decisions, and a dead process stalls nothing."""

from __future__ import annotations

import logging
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from domain.ai import choose
from domain.commands import AnySeatCommand, StartMatch
from domain.match import apply
from domain.rules import make_rules
from domain.views import PlayerView, player_view
from infra.sql_event_store import SqlEventStore
from infra.store import open_store
from server.ai_thinking import PARENT_CHECK_S, AiThinker
from server.match_service import MatchService


def _hard_positions(count: int) -> list[tuple[PlayerView, str]]:
    """Views hard must decide from, met along random legal matches, each with a seed."""
    rng = random.Random(11)
    found: list[tuple[PlayerView, str]] = []
    for n in range(50):
        start = StartMatch(
            match_id=f"think-{n}", players=("p1", "p2"), rules=make_rules("classic"), seed=str(n)
        )
        state, _ = apply(None, start)
        while state.settlement is None and len(found) < count:
            seat = state.to_act()[0]
            view = player_view(state, seat, advice=True)
            if state.phase in ("up_card", "draw", "discard"):
                found.append((view, f"seed-{len(found)}"))
            state, _ = apply(state, rng.choice(view.legal))
        if len(found) >= count:
            break
    return found


def _always(command: AnySeatCommand) -> Callable[[int], AnySeatCommand]:
    return lambda seat: command


def _pid() -> int:
    return os.getpid()


async def test_hard_decides_the_same_in_its_process_as_in_a_thread() -> None:
    positions = _hard_positions(30)
    assert len(positions) == 30
    thinker = AiThinker(processes=1)
    try:
        for view, seed in positions:
            in_process, _ = await thinker.decide("hard", view, seed, None)
            assert in_process == choose("hard", view, seed)
        pool = thinker._pool  # private: where the thinking happened is the behaviour here
        assert pool is not None
        assert pool.submit(_pid).result() != os.getpid()
    finally:
        thinker.close()


async def test_a_dead_ai_process_costs_one_decision_a_thread_and_nothing_else() -> None:
    (view, seed), *_ = _hard_positions(1)
    expected = choose("hard", view, seed)
    thinker = AiThinker(processes=1)
    try:
        await thinker.decide("hard", view, seed, None)
        pool = thinker._pool
        assert pool is not None
        for process in list(pool._processes.values()):  # a crash, for real: kill the process
            process.kill()
            process.join()
        command, _ = await thinker.decide("hard", view, seed, None)
        assert command == expected
        assert thinker._pool is None or thinker._pool is not pool
        command, _ = await thinker.decide("hard", view, seed, None)
        assert command == expected and thinker._pool is not None and thinker._pool is not pool
    finally:
        thinker.close()


async def test_a_match_against_hard_plays_through_the_pool(
    store: SqlEventStore, tmp_path: Path
) -> None:
    """The same match (id, seed and moves) in two stores, hard pooled in one, threaded in
    the other: the same log."""
    thinker = AiThinker(processes=1)
    other = await open_store(f"sqlite+aiosqlite:///{tmp_path / 'threaded.sqlite3'}")
    services = (MatchService(store, thinker=thinker), MatchService(other))
    try:
        rules = make_rules("classic")
        for service in services:
            await service.start(("p1", "ai:hard"), rules, "pool-seed", "pool-match")
        for _ in range(12):
            views = []
            for service in services:
                legal = player_view((await service.load("pool-match")).state, 0).legal
                views.append(legal)
                if legal:
                    await service.act("pool-match", "p1", _always(legal[0]), None)
            assert views[0] == views[1]
        pooled = [e.event for e in await store.read_stream("pool-match")]
        threaded = [e.event for e in await other.read_stream("pool-match")]
        assert pooled == threaded and len(pooled) > 12
    finally:
        thinker.close()
        await other.close()


_KILLED_SERVER = """
import os, time
from server.ai_thinking import AiThinker
thinker = AiThinker(1)
thinker.start()
print(thinker._pool.submit(os.getpid).result(timeout=120), flush=True)
time.sleep(600)
"""


def _gone(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie waiting for its reaper counts as exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def test_a_pool_process_exits_when_its_server_is_killed_outright() -> None:
    """``kill -9`` runs no shutdown; the pool process must notice on its own and go."""
    server = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SERVER],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    worker = int(server.stdout.readline())
    try:
        assert worker != server.pid and not _gone(worker)
        time.sleep(2 * PARENT_CHECK_S)
        assert not _gone(worker)  # a living server keeps its pool
        server.kill()
        server.wait(10)
        deadline = time.monotonic() + 10
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(worker), "the pool process outlived its killed server"
    finally:
        server.kill()
        if not _gone(worker):
            os.kill(worker, signal.SIGKILL)


async def test_a_stop_signal_to_the_whole_group_leaves_the_pool_to_the_servers_shutdown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``systemctl stop`` signals every process of the service, and Ctrl-C in a terminal
    every process of the foreground group: the pool's process with its server. It used to
    die at once, so a decision under way was redone in a thread while the server drained,
    and every clean stop logged "the AI's process died". The server stops the pool itself
    (``close``, at the end of its shutdown)."""
    (view, seed), *_ = _hard_positions(1)
    thinker = AiThinker(processes=1)
    try:
        await thinker.decide("hard", view, seed, None)
        pool = thinker._pool  # private: the process is the behaviour here
        assert pool is not None
        worker = pool.submit(_pid).result(timeout=120)
        for number in (signal.SIGTERM, signal.SIGINT):
            os.kill(worker, number)
        time.sleep(0.5)
        assert not _gone(worker)
        with caplog.at_level(logging.WARNING, logger="ginrummy.ai"):
            command, _ = await thinker.decide("hard", view, seed, None)
        assert command == choose("hard", view, seed)
        assert thinker._pool is pool and not caplog.records
    finally:
        thinker.close()
    assert _gone(worker)


async def test_closing_the_thinker_ends_its_process_before_it_returns() -> None:
    """A server's shutdown closes the pool: a process still running when the server's
    own process exits leaks the pool's semaphores (Python warns of them on stderr)."""
    thinker = AiThinker(processes=1)
    thinker.start()
    pool = thinker._pool  # private: the process is the behaviour here
    assert pool is not None
    worker = pool.submit(_pid).result(timeout=120)
    thinker.close()
    assert _gone(worker)


def test_a_line_the_pool_process_logs_has_the_servers_shape_and_masking(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A spawned process starts with logging unconfigured (a bare message, no time): the
    pool's initializer gives it the server's format, level and masking."""
    import json

    thinker = AiThinker(1, ("info", "json"))
    thinker.start()
    try:
        assert thinker._pool is not None
        pool_logger = logging.getLogger("ginrummy.ai")
        thinker._pool.submit(pool_logger.warning, "from the pool: %s", "GET /x?token=s3cr").result(
            60
        )
    finally:
        thinker.close()
    lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line]
    ours = [line for line in lines if line["message"].startswith("from the pool")]
    assert len(ours) == 1, lines
    assert ours[0]["logger"] == "ginrummy.ai" and ours[0]["level"] == "WARNING"
    assert ours[0]["pid"] != os.getpid() and ours[0]["time"].endswith("Z")
    assert ours[0]["message"] == "from the pool: GET /x?token=***"
