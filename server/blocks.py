"""The block service: a player's block list (its own stream), and the blocks between two.

Blocking and unblocking are decided from the blocker's stream (``blocks:<id>``) and
appended at the version they were decided on; two requests racing (from one process or
several) cannot both pass the cap: the loser's append conflicts, it reads the list again
and decides anew.

The lobby and the chat ask whether two players block each other. They read the blocks
projection, caught up first, so a block recorded a moment ago on any process counts (the
projector reads the global log, which every process appends to). Nobody is told of a
block: it records nothing in the blocked player's streams and sends it no frame; only the
blocker's own live lobby takes the blocked host's tables off (server/ws/lobby.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from domain import blocks as b
from domain.errors import quoted
from infra.clock import now_ms
from infra.errors import ConcurrencyConflict, StreamNotFound
from infra.players import Players
from infra.projections import Projector
from infra.projections.blocks import blocks_between
from infra.sql_event_store import SqlEventStore
from server.house_ai import is_house_ai
from server.problems import PlayerNotFound

RACE_RETRIES = 8
CACHE_SIZE = 2000  # lists kept as last read; always caught up by version


class BlockService:
    def __init__(
        self,
        store: SqlEventStore,
        projector: Projector,
        players: Players,
        on_append: Callable[[str, int], None] | None = None,
    ) -> None:
        self.store = store
        self.projector = projector
        self.players = players
        self._on_append = on_append or (lambda stream_id, version: None)
        self._cache: OrderedDict[str, b.BlockList] = OrderedDict()

    async def load(self, blocker: str) -> b.BlockList:
        """The player's list, caught up with its stream (empty if it never blocked)."""
        cached = self._cache.get(blocker) or b.BlockList()
        try:
            new = await self.store.read_stream(b.stream_of(blocker), after_version=cached.version)
        except StreamNotFound:
            new = []
        state = b.fold([r.event for r in new], cached)  # type: ignore[misc]
        latest = self._cache.get(blocker)
        if latest is not None and latest.version > state.version:
            return latest  # a concurrent load got further
        self._cache[blocker] = state
        self._cache.move_to_end(blocker)
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return state

    async def block(self, blocker: str, player: str) -> b.Blocked:
        """Block ``player``; blocking again answers the first block, unchanged."""
        house = is_house_ai(player)
        if not house and player != blocker and await self.players.get_player(player) is None:
            raise PlayerNotFound(f"no player {quoted(player)}")
        state = await self._decide(
            blocker,
            lambda: b.BlockPlayer(blocker=blocker, player=player, now_ms=now_ms(), house=house),
        )
        entry = state.entry(player)
        assert entry is not None
        return entry

    async def unblock(self, blocker: str, player: str) -> None:
        """Unblock ``player``; unblocking one not blocked changes nothing and is no error."""
        await self._decide(
            blocker, lambda: b.UnblockPlayer(blocker=blocker, player=player, now_ms=now_ms())
        )

    async def between(self, one: str, other: str) -> set[tuple[str, str]]:
        """The blocks in force between two players, as (blocker, blocked), as of now on
        every process. The house AI blocks nobody and cannot be blocked: no read."""
        if is_house_ai(one) or is_house_ai(other) or one == other:
            return set()
        await self.projector.catch_up("blocks")
        return await blocks_between(self.store.engine, one, other)

    async def blocks(self, blocker: str, blocked: str) -> bool:
        return (blocker, blocked) in await self.between(blocker, blocked)

    async def _decide(
        self, blocker: str, command_for: Callable[[], b.AnyBlockCommand]
    ) -> b.BlockList:
        for _ in range(RACE_RETRIES):
            state = await self.load(blocker)
            events = b.decide(state, command_for())
            if not events:
                return state
            try:
                result = await self.store.append(b.stream_of(blocker), state.version, events)
            except ConcurrencyConflict:
                continue  # another request of this player changed its list: decide again
            self._on_append(result.stream_id, result.last_version)  # the blocker's lobby hears
            return b.fold(events, state)
        state = await self.load(blocker)
        b.decide(state, command_for())  # the refusal the list now gives, if any
        raise ConcurrencyConflict("the block list kept changing; retry")
