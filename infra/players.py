"""Players, created with their first bearer token (stored only as a hash; see infra/tokens.py).

A display name is not unique: guests are created freely and cannot sign in again, so a
name nobody could ever free would be squatted. Two players who would be seen together
(the seats of a match in play, the two ends of a challenge) must not go by names that
pass for each other, though; ``names_held`` serialises the steps that bring two names
together (a rename, a seat, a challenge) for the players they name, on every process.
A host's new table holds its own name too, so that its opens take turns at counting the
tables it has open (server/tables.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import weakref
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec
from sqlalchemy import Select, bindparam, func, insert, select, text, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.ext.asyncio import AsyncEngine

from infra.clock import now_ms
from infra.database import one_statement
from infra.driver_errors import translate_errors
from infra.errors import AlreadyExists, LockWaitTimeout
from infra.schema import players, stream_presence, tokens

PlayerKind = Literal["person", "bot"]

# NOTIFYed by each rename (PostgreSQL), payload ``"<origin> <player id>"`` (the renaming
# process's ``Players.origin``, which skips its own): server/renames.py hears it.
RENAME_CHANNEL = "ginrummy_renames"


# Read on every view of a match (its seats): built once, not per request.
_BY_ID = select(players).where(players.c.id == bindparam("id"))

# ``names_held``: this process's locks, one per stripe of player ids (a fixed number, so
# nothing is left behind per player); and PostgreSQL's advisory locks, one per player.
NAME_LOCK_STRIPES = 64
# Steps holding advisory locks at once in a process: each holds a pooled connection while
# its body takes others (to read the names, to append), so a burst of seats must not take
# every connection of the pool and leave none for the bodies: at most this many, and
# always one less than the pool holds (``lock_holders``).
NAME_LOCK_HOLDERS = 6
# How long a step waits for the names it needs before it is refused (503 ``busy``, retry):
# a step holds them for milliseconds, so a wait this long means one is stuck, and its
# request must not hang with it. The default of ``GINRUMMY_NAME_LOCK_WAIT_S``.
NAME_LOCK_WAIT_S = 10.0
_ADVISORY_LOCK = text("SELECT pg_advisory_xact_lock(:key)")
_LOCK_TIMEOUT = text("SELECT set_config('lock_timeout', :ms, true)")  # this transaction's
_LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL's answer once ``lock_timeout`` runs out


def lock_holders(engine: AsyncEngine) -> int:
    """How many steps of this process may hold names at once on ``engine``: one less than
    its pool's connections (at most ``NAME_LOCK_HOLDERS``), so the bodies of those
    holding one always find another. With every connection held by a step, each body
    waited for one until the pool's timeout, and every step failed (a pool of 2 and two
    seats at once sufficed). A pool of one cannot do it: ``GINRUMMY_DB_CONNECTIONS`` is
    at least 2."""
    size: int = engine.pool.size()  # type: ignore[attr-defined]  # a QueuePool on PostgreSQL
    return max(1, min(NAME_LOCK_HOLDERS, size - 1))


class _NameLocks:
    """One database's name locks in this process, shared by every ``Players`` over its
    engine (a ``Players`` is made per request): the lock stripes and, on PostgreSQL, the
    semaphore of steps that may hold advisory locks (and so a pooled connection) at once."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.stripes = [asyncio.Lock() for _ in range(NAME_LOCK_STRIPES)]
        # SQLite takes no advisory locks, and its pool has no size to bound them by
        postgres = engine.dialect.name == "postgresql"
        self.holders = asyncio.Semaphore(lock_holders(engine)) if postgres else None


_NAME_LOCKS: weakref.WeakKeyDictionary[AsyncEngine, _NameLocks] = weakref.WeakKeyDictionary()


def _name_locks(engine: AsyncEngine) -> _NameLocks:
    """``engine``'s name locks, made on first use (not setdefault: that built 64 locks on
    every call, to drop them)."""
    locks = _NAME_LOCKS.get(engine)
    if locks is None:
        locks = _NAME_LOCKS[engine] = _NameLocks(engine)
    return locks


def _name_lock_key(player_id: str) -> int:
    """A player's advisory-lock key: 64 bits of a hash, prefixed so that it shares no
    key with another use of advisory locks (infra/migrate.py's is a small number)."""
    digest = hashlib.sha256(b"ginrummy-name:" + player_id.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class Player(msgspec.Struct, frozen=True):
    id: str
    name: str
    created_at: datetime
    kind: PlayerKind = "person"


class Players:
    """The ``players`` table; the engine is the store's (``store.engine``)."""

    def __init__(
        self,
        engine: AsyncEngine,
        name_wait_s: float = NAME_LOCK_WAIT_S,
        *,
        origin: str = "",
        on_renamed: Callable[[str], None] | None = None,
    ) -> None:
        self.engine = engine
        self.name_wait_s = name_wait_s  # names_held's wait (``GINRUMMY_NAME_LOCK_WAIT_S``)
        self.origin = origin  # this process, in each rename's NOTIFY (its own is skipped)
        self._on_renamed = on_renamed or (lambda id: None)

    async def create_player(
        self,
        id: str,
        name: str,
        token_hash: str,
        kind: PlayerKind = "person",
        expires_ms: int | None = None,
    ) -> Player:
        """Insert a player and its first token; AlreadyExists if the id or the token hash
        is taken. ``expires_ms``: when the token stops working (epoch ms), None: never."""
        player = Player(id=id, name=name, created_at=datetime.now(UTC), kind=kind)
        with translate_errors():
            try:
                async with self.engine.begin() as conn:
                    await conn.execute(
                        insert(players).values(
                            **msgspec.structs.asdict(player),
                            next_seed=new_server_seed(),
                            next_seed_ms=now_ms(),
                        )
                    )
                    await conn.execute(
                        insert(tokens).values(
                            token_hash=token_hash,
                            player_id=id,
                            created_at=player.created_at,
                            expires_ms=expires_ms,
                        )
                    )
            except sa_exc.IntegrityError as error:
                raise AlreadyExists(f"player {id!r} or its token already exists") from error
        return player

    @contextlib.asynccontextmanager
    async def names_held(self, *ids: str, wait_s: float | None = None) -> AsyncIterator[None]:
        """Hold the names of these players still while the body checks them and records
        what brings them together (a rename, a seat, a challenge): two such steps for one
        player take turns, in this process and across processes sharing PostgreSQL
        (a transaction holds an advisory lock per player, taken in one order so two
        steps never wait on each other). SQLite serves one process, whose locks suffice.
        A step that waits more than ``wait_s`` (by default ``name_wait_s``) for them is
        refused (``LockWaitTimeout``).
        A rename checked against the opponents it has while a seat is being taken would
        otherwise miss the new one, and the seat miss the new name."""
        if wait_s is None:
            wait_s = self.name_wait_s
        ordered = sorted(set(ids))
        stripes = sorted({hash(id) % NAME_LOCK_STRIPES for id in ordered})
        locks = _name_locks(self.engine)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        async with contextlib.AsyncExitStack() as stack:
            try:
                async with asyncio.timeout_at(deadline):  # this process's own waits
                    for stripe in stripes:
                        await stack.enter_async_context(locks.stripes[stripe])
                    if locks.holders is not None:
                        await stack.enter_async_context(locks.holders)
            except TimeoutError:
                raise LockWaitTimeout(
                    f"a player's name stayed held for over {wait_s:g} s; retry"
                ) from None
            if locks.holders is None:
                yield
                return
            with translate_errors():  # PostgreSQL's wait: refused past ``lock_timeout``
                conn = await stack.enter_async_context(self.engine.connect())
                await stack.enter_async_context(conn.begin())
                try:
                    for id in ordered:
                        # ``lock_timeout`` bounds one lock's wait: set for each, to what is
                        # left of the step's (set once, two names could take twice as long)
                        left_ms = max(1, round((deadline - loop.time()) * 1000))
                        await conn.execute(_LOCK_TIMEOUT, {"ms": f"{left_ms}ms"})
                        await conn.execute(_ADVISORY_LOCK, {"key": _name_lock_key(id)})
                except sa_exc.DBAPIError as error:
                    # Our own wait ran out (any other lock timeout is the database's:
                    # ``translate_errors`` makes it store_unavailable).
                    if getattr(error.orig, "sqlstate", None) != _LOCK_NOT_AVAILABLE:
                        raise
                    raise LockWaitTimeout(
                        f"a player's name stayed held by another process for over {wait_s:g} s; retry"
                    ) from error
            yield

    async def rename(self, id: str, name: str) -> Player | None:
        """Give the player a new display name; None if there is no such player. On
        PostgreSQL the rename NOTIFYs ``RENAME_CHANNEL`` (this process's ``origin`` and
        the player's id) in its own transaction: the pages of other processes that show
        the name hear it once it is committed, never before and never for a rename that
        failed. This process's are told by ``on_renamed`` as soon as it is committed,
        before the player is read back (a read that fails must not keep the news)."""
        with translate_errors():
            async with self.engine.begin() as conn:
                changed = await conn.execute(
                    update(players).where(players.c.id == id).values(name=name)
                )
                if changed.rowcount and self.engine.dialect.name == "postgresql":
                    payload = f"{self.origin} {id}"
                    await conn.execute(select(func.pg_notify(RENAME_CHANNEL, payload)))
        if changed.rowcount == 0:
            return None
        self._on_renamed(id)
        return await self.get_player(id)

    async def next_seed(self, id: str) -> tuple[str, int] | None:
        """The secret server seed of the player's next match and when it was committed
        to (made now if the player has none yet); None if there is no such player."""
        with translate_errors():
            async with self.engine.begin() as conn:
                for _ in range(2):
                    query = select(players.c.next_seed, players.c.next_seed_ms).where(
                        players.c.id == id
                    )
                    row = (await conn.execute(query)).first()
                    if row is None:
                        return None
                    if row.next_seed is not None:
                        return row.next_seed, row.next_seed_ms
                    await conn.execute(
                        update(players)
                        .where(players.c.id == id, players.c.next_seed.is_(None))
                        .values(next_seed=new_server_seed(), next_seed_ms=now_ms())
                    )
        raise AssertionError("a seed was just made")  # pragma: no cover

    async def take_seed(self, id: str) -> tuple[str, int] | None:
        """The player's next server seed, replaced at once by a fresh one, so it serves
        one match only. The swap is conditional on the seed read, so two processes
        starting two matches of one player at once never both take the same seed."""
        while True:
            current = await self.next_seed(id)
            if current is None:
                return None
            with translate_errors():
                async with self.engine.begin() as conn:
                    swapped = await conn.execute(
                        update(players)
                        .where(players.c.id == id, players.c.next_seed == current[0])
                        .values(next_seed=new_server_seed(), next_seed_ms=now_ms())
                    )
            if swapped.rowcount == 1:
                return current

    async def get_player(self, id: str) -> Player | None:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                row = (await conn.execute(_BY_ID, {"id": id})).first()
        return None if row is None else self._player(row)

    async def named(self, prefix: str, limit: int = 20) -> list[Player]:
        """Players whose name starts with ``prefix`` (any case), for finding an opponent."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = (
            select(players)
            .where(func.lower(players.c.name).like(escaped.lower() + "%", escape="\\"))
            .order_by(players.c.name, players.c.id)
            .limit(limit)
        )
        return await self._players_of(query)

    async def bots_listening(self, fresh_after_ms: int, limit: int = 50) -> list[Player]:
        """Bots with a player stream open, by name: the programs waiting for challenges
        (lichess's "online bots"). A stream counts while a process's presence row for it,
        refreshed after ``fresh_after_ms``, counts a socket (``infra.presence``)."""
        listening = select(stream_presence.c.player_id).where(
            stream_presence.c.sockets > 0, stream_presence.c.updated_ms > fresh_after_ms
        )
        query = (
            select(players)
            .where(players.c.kind == "bot", players.c.id.in_(listening))
            .order_by(players.c.name, players.c.id)
            .limit(limit)
        )
        return await self._players_of(query)

    async def _players_of(self, query: Select[Any]) -> list[Player]:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                rows = (await conn.execute(query)).all()
        return [self._player(row) for row in rows]

    async def kinds_and_names(self, ids: set[str]) -> dict[str, tuple[PlayerKind, str]]:
        """Each known player's kind and name, in one query (for listings)."""
        if not ids:
            return {}
        query = select(players.c.id, players.c.kind, players.c.name).where(
            players.c.id.in_(sorted(ids))
        )
        with translate_errors():
            async with one_statement(self.engine) as conn:
                rows = (await conn.execute(query)).all()
        return {row.id: (row.kind, row.name) for row in rows}

    async def _one(self, condition: object) -> Player | None:
        with translate_errors():
            async with one_statement(self.engine) as conn:
                row = (await conn.execute(select(players).where(condition))).first()  # type: ignore[arg-type]
        if row is None:
            return None
        return self._player(row)

    @staticmethod
    def _player(row: Any) -> Player:
        return player_from_row(row)


def player_from_row(row: Any) -> Player:
    """A ``players`` row (or a join holding its columns) as a Player."""
    created_at = row.created_at
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=UTC)
    return Player(id=row.id, name=row.name, created_at=created_at, kind=row.kind)


def new_server_seed() -> str:
    """32 random bytes as hex: a server seed nobody can guess from its commitment."""
    return secrets.token_hex(32)
