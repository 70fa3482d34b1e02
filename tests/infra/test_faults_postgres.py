"""Connection faults on real PostgreSQL: killed sessions surface as retryable errors and
leave nothing half-written; the tailer's killed LISTEN session is replaced without
losing or repeating an event, and presence readers look again when it is."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from infra.database import asyncpg_dsn
from infra.errors import StoreUnavailable
from infra.event_store import RecordedEvent
from infra.presence import NOTIFY_CHANNEL as CHANNEL
from infra.presence import Presence
from infra.store import open_store
from infra.tailer import LogTailer
from tests.infra.helpers import batch, ids, stream


async def _terminate(url: str, query: str) -> int:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        return len(await conn.fetch(query))
    finally:
        await conn.close()


async def test_connection_killed_mid_append_is_retryable_and_writes_nothing(pg_url: str) -> None:
    store = await open_store(pg_url, migrate=False)
    killed: list[int] = []

    async def kill_my_session(_stage: str) -> None:
        killed.append(
            await _terminate(
                pg_url,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND state = 'idle in transaction'",
            )
        )

    try:
        s = stream()
        store.fault_hook = kill_my_session
        with pytest.raises(StoreUnavailable):
            await store.append(s, 0, batch(2), command_id="c1", command_hash="h")
        assert killed == [1]
        store.fault_hook = None
        assert await store.read_all() == []
        result = await store.append(s, 0, batch(2), command_id="c1", command_hash="h")
        assert (result.last_position, result.duplicate) == (2, False)
    finally:
        await store.close()


async def test_tailer_survives_pg_terminate_backend(pg_url: str) -> None:
    reader = await open_store(pg_url, migrate=False)
    writer = await open_store(pg_url, migrate=False)  # another process: no local wake-ups
    delivered: list[RecordedEvent] = []
    got = asyncio.Event()

    async def collect(event: RecordedEvent) -> None:
        delivered.append(event)
        got.set()

    # A long poll, so only LISTEN/NOTIFY or the reconnect can deliver promptly.
    tailer = LogTailer(reader, 0, collect, poll_interval=0.5)
    s = stream()
    try:
        await tailer.start()
        await asyncio.wait_for(tailer.listening.wait(), 5)
        await writer.append(s, 0, batch(2))
        await asyncio.wait_for(got.wait(), 5)
        for round_ in range(3):
            pid = tailer._conn.get_server_pid()
            assert await _terminate(pg_url, f"SELECT pg_terminate_backend({pid})") == 1
            version = await writer.stream_version(s)
            await writer.append(s, version, batch(3))  # committed while nobody listens
            for _ in range(300):
                if tailer.connects >= round_ + 2 and tailer.position == version + 3:
                    break
                await asyncio.sleep(0.02)
            assert tailer.connects == round_ + 2
        await writer.append(s, await writer.stream_version(s), batch(1))
        for _ in range(300):
            if len(delivered) == 12:
                break
            await asyncio.sleep(0.02)
    finally:
        await tailer.stop()
        await reader.close()
        await writer.close()
    assert [e.position for e in delivered] == list(range(1, 13))
    assert [e.version for e in delivered] == list(range(1, 13))


@pytest.mark.parametrize(
    ("setting", "value"), [("lock_timeout", "300ms"), ("statement_timeout", "300ms")]
)
async def test_a_statement_stopped_by_a_timeout_is_retryable(
    pg_url: str, setting: str, value: str
) -> None:
    """An operator's ``lock_timeout`` or ``statement_timeout`` (on the database, here)
    stops a read kept waiting by a lock: StoreUnavailable (503, ask again), as a lost
    connection is, not an unexpected error (500) that ended a player stream."""
    admin = await asyncpg.connect(asyncpg_dsn(pg_url))
    database = await admin.fetchval("select current_database()")
    await admin.execute(f"ALTER DATABASE \"{database}\" SET {setting} = '{value}'")
    store = await open_store(pg_url, migrate=False)  # its sessions open with the setting
    s = stream()
    try:
        await store.append(s, 0, batch(2))
        async with admin.transaction():
            await admin.execute(f"SET LOCAL {setting} = 0")  # the lock's own wait: none
            await admin.execute("LOCK TABLE events IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(StoreUnavailable, match="did not answer in time"):
                await store.read_stream(s)
        assert [e.version for e in await store.read_stream(s)] == [1, 2]  # asked again
    finally:
        await store.close()
        await admin.execute(f'ALTER DATABASE "{database}" RESET {setting}')
        await admin.close()


async def test_a_presence_reader_looks_again_when_the_listen_session_comes_back(
    pg_url: str,
) -> None:
    """A socket that opens on another process while this one's LISTEN session is down is
    NOTIFYd to nobody; the reader waiting on that seat is woken by the reconnect instead of
    learning it at its next look (30 s by default)."""
    store = await open_store(pg_url, migrate=False)
    other_process = await open_store(pg_url, migrate=False)
    here, there = Presence(store.engine), Presence(other_process.engine)
    m1, ada = ids("m1", "ada")
    woken: list[str] = []
    here.on_change(m1, 1, ada, lambda: woken.append("m1 seat 1"))

    async def ignore(_event: RecordedEvent) -> None:
        pass

    tailer = LogTailer(store, 0, ignore, poll_interval=0.5, also_hear={CHANNEL: here.heard})
    try:
        await tailer.start()
        await asyncio.wait_for(tailer.listening.wait(), 5)
        assert woken == ["m1 seat 1"], "a first LISTEN wakes the readers waiting already"
        woken.clear()
        reconnect = asyncio.Event()
        listen = tailer._listen

        async def listen_when_let() -> None:  # hold the reconnect until the arrival is in
            await reconnect.wait()
            await listen()

        tailer._listen = listen_when_let  # type: ignore[method-assign]
        pid = tailer._conn.get_server_pid()
        assert await _terminate(pg_url, f"SELECT pg_terminate_backend({pid}, 5000)") == 1
        for _ in range(250):  # the old session is gone once the tailer has noticed
            if not tailer.listening.is_set():
                break
            await asyncio.sleep(0.02)
        assert not tailer.listening.is_set()
        await there.arrive_at_seat(m1, 1)  # its NOTIFY finds no listener here
        await asyncio.sleep(0.2)
        assert woken == [] and tailer.connects == 1
        reconnect.set()
        for _ in range(300):
            if tailer.connects == 2 and woken:
                break
            await asyncio.sleep(0.02)
        assert tailer.connects == 2
        assert woken == ["m1 seat 1"], "woken once, to look again"
        assert await here.away_since(m1, 1, ada) is None, "and the look finds the seat there"
    finally:
        await tailer.stop()
        await store.close()
        await other_process.close()
