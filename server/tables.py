"""The lobby service: open, join, cancel and expire tables, and start their matches.

A table is a stream of its own (``table:<id>``) in the same store as the matches. Each
command is decided from the table's log and appended at the version it was decided
on, so two guests racing for one seat, or two processes racing to expire one table,
end with exactly one recorded outcome: the loser's append conflicts, it reads the
table again and gets the refusal the new state gives (``table_full``, say).

Joining records ``TableJoined`` with the new match's id, then starts that match. If
the process dies between the two, the next read of the table starts it (the match's
first append is at version 0, so it can only ever start once).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import uuid
from collections import OrderedDict
from collections.abc import Callable

import msgspec

from domain import table as t
from domain.errors import TableError, TableFull, TableNotOpened, quoted
from domain.rules import Clock, Rules, raised_to_the_floor
from infra.clock import now_ms
from infra.errors import ConcurrencyConflict, StreamNotFound
from infra.players import Players
from infra.projections import Projector
from infra.projections.lobby import (
    TABLE_STREAM_PREFIX,
    LobbyRow,
    open_challenges,
    open_public_tables,
    open_tables_of,
    overdue_tables,
)
from infra.sql_event_store import SqlEventStore
from server.blocks import BlockService
from server.fair_deal import house_seed, seat_seed, take_server_seed
from server.house_ai import is_house_ai
from server.match_service import MatchService
from server.names import NameService
from server.problems import MatchNotFinished
from server.seats import seat_of

log = logging.getLogger("ginrummy.tables")
CODE_BYTES = 16  # 128 bits: an invite or watch code cannot be guessed
RACE_RETRIES = 5
TABLE_CACHE_SIZE = 2000  # tables kept as last read; small, and always checked by version


def stream_of(table_id: str) -> str:
    return TABLE_STREAM_PREFIX + table_id


class TableService:
    def __init__(
        self,
        store: SqlEventStore,
        matches: MatchService,
        projector: Projector,
        blocks: BlockService,
        on_append: Callable[[str, int], None] | None = None,
        players: Players | None = None,
    ) -> None:
        self.store = store
        self.matches = matches
        self.projector = projector
        self.blocks = blocks
        self._on_append = on_append or (lambda stream_id, version: None)
        self._cache: OrderedDict[str, t.TableState] = OrderedDict()
        self.players = players or Players(store.engine)
        self.names = NameService(self.players, projector, store.engine)

    async def _append(self, table_id: str, expected: int, events: list[t.TableEvent]) -> None:
        """Append to the table's stream and tell this process's listeners at once."""
        result = await self.store.append(stream_of(table_id), expected, events)
        self._on_append(result.stream_id, result.last_version)

    async def load(self, table_id: str, at_least: int | None = None) -> t.TableState:
        """The table from its log; with ``at_least``, a table this process has already
        read at that version is not read again (every player stream and the lobby list
        hear of each table that moves, and would otherwise each read it)."""
        cached = self._cache.get(table_id)
        if cached is not None and at_least is not None and cached.version >= at_least:
            return cached
        try:
            recorded = await self.store.read_stream(stream_of(table_id))
        except StreamNotFound:
            recorded = []
        if not recorded:
            raise TableNotOpened(f"no table {quoted(table_id)}")
        state = t.fold([r.event for r in recorded])  # type: ignore[misc]
        self._cache[table_id] = state
        self._cache.move_to_end(table_id)
        while len(self._cache) > TABLE_CACHE_SIZE:
            self._cache.popitem(last=False)
        return state

    async def open(
        self,
        host: str,
        rules: Rules,
        private: bool,
        ttl_s: int,
        invitee: str | None = None,
        rematch_of: str | None = None,
        table_id: str | None = None,
        *,
        hints: bool = False,
        client_seed: str | None = None,
        rated: bool = False,
        clock: Clock | None = None,
    ) -> t.TableState:
        """A table anyone may join, or with ``invitee`` a challenge only they may accept.

        Its match is dealt fairly from the host's committed server seed (taken now)
        and the seats' client seeds (server/fair_deal.py).
        A given ``table_id`` is opened once: a second open is a ConcurrencyConflict.
        A table the rules refuse (a challenge to oneself, or one more than the host may
        have open: ``t.check_room``) is refused before the seed is taken, so the refusal
        changes nothing. A challenge to the house AI is not counted: it is accepted at once.
        Nor is a challenge between two players of whom one blocks the other opened: the
        blocks are read (``BlockService.between``) and decided with the table's rules;
        nor one between two players whose names pass for each other (server/names.py,
        read with both names held still, so neither can rename meanwhile)."""
        table_id = table_id or uuid.uuid4().hex
        async with self._held_for_open(host, invitee):
            return await self._open(
                table_id, host, rules, private, ttl_s, invitee, rematch_of,
                hints=hints, client_seed=client_seed, rated=rated, clock=clock,
            )  # fmt: skip

    async def _open(
        self,
        table_id: str,
        host: str,
        rules: Rules,
        private: bool,
        ttl_s: int,
        invitee: str | None,
        rematch_of: str | None,
        *,
        hints: bool,
        client_seed: str | None,
        rated: bool,
        clock: Clock | None,
    ) -> t.TableState:
        """``open``, with the host's and the invitee's names held still."""
        blocked: set[tuple[str, str]] = set()
        alike = False
        if invitee is not None:
            blocked = await self.blocks.between(host, invitee)
            alike = await self.names.alike(host, invitee)
        now = now_ms()
        unseeded = t.OpenTable(
            table_id=table_id,
            host=host,
            rules=rules,
            private=private,
            now_ms=now,
            expires_ms=now + ttl_s * 1000,
            invite_code=secrets.token_urlsafe(CODE_BYTES) if private else None,
            watch_code=secrets.token_urlsafe(CODE_BYTES) if private else None,
            invitee=invitee,
            rematch_of=rematch_of,
            hints=hints,
            rated=rated,
            clock=clock,
            host_blocks_invitee=(host, invitee) in blocked,
            invitee_blocks_host=(invitee, host) in blocked,
            same_name=alike,
        )
        t.decide(None, unseeded)  # the table's own refusals, before a seed is used up
        if invitee is None or not is_house_ai(invitee):  # the house accepts at once
            t.check_room(host, invitee, await self.hosted_by(host))
        server_seed, committed_ms = await take_server_seed(self.players, host)
        now = now_ms()
        command = msgspec.structs.replace(
            unseeded,
            now_ms=now,
            expires_ms=now + ttl_s * 1000,
            seed=server_seed,
            seed_committed_ms=committed_ms,
            host_seed=seat_seed(host, client_seed, now),
        )
        events = t.decide(None, command)
        await self._append(table_id, 0, events)
        return t.fold(events)

    def _held_for_open(
        self, host: str, invitee: str | None
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """What an open holds from counting the host's tables to recording the new one:
        the host's name (``Players.names_held``: a lock in this process, and an advisory
        lock across processes sharing PostgreSQL), so twenty opens sent at once, to one
        process or to several, cannot all count the same two tables and all pass the cap.
        A challenge holds the invitee's name too, since it brings the two names together
        (``NameService.held``); a challenge to the house holds nothing and is not counted."""
        if invitee is None:
            return self.players.names_held(host)
        return self.names.held(host, invitee)

    async def hosted_by(self, host: str) -> list[t.Hosted]:
        """The tables ``host`` has open now, from the lobby projection (caught up first,
        so a table this process has just opened is counted)."""
        await self.projector.catch_up("lobby")
        rows = await open_tables_of(self.store.engine, host, now_ms())
        return [t.Hosted(table_id, invitee) for table_id, invitee in rows]

    async def join(
        self, table_id: str, guest: str, invite_code: str | None, client_seed: str | None = None
    ) -> t.TableState:
        """Take the free seat and start the match; exactly one of racing guests wins.
        A host who blocks the guest does not seat it (read now, on every process), nor
        one whose name passes for the host's (read with both names held still, until
        the match has started: a rename checks the opponents of the matches in play)."""
        host = (await self.load(table_id, at_least=1)).host  # a table's host never changes
        async with self.names.held(host, guest):
            return await self._join(table_id, host, guest, invite_code, client_seed)

    async def _join(
        self, table_id: str, host: str, guest: str, invite_code: str | None, client_seed: str | None
    ) -> t.TableState:
        host_blocks_guest = await self.blocks.blocks(host, guest)
        alike = await self.names.alike(host, guest)

        def joining() -> t.JoinTable:
            now = now_ms()
            return t.JoinTable(
                guest=guest,
                now_ms=now,
                match_id=uuid.uuid4().hex,
                invite_code=invite_code,
                guest_seed=house_seed(now)
                if is_house_ai(guest)
                else seat_seed(guest, client_seed, now),
                host_blocks_guest=host_blocks_guest,
                same_name=alike,
            )

        state = await self._decide(table_id, joining)
        await self.ensure_match(state)
        return state

    async def cancel(self, table_id: str, player: str) -> t.TableState:
        return await self._decide(table_id, lambda: t.CancelTable(player=player, now_ms=now_ms()))

    async def withdraw_challenges(self, sender: str, to: str) -> None:
        """Cancel every open challenge (a rematch offer too) ``sender`` has sent ``to``,
        as the sender would one by one; one answered or expired meanwhile is left be."""
        for challenge in await self.challenges_of(sender):
            if challenge.host == sender and challenge.invitee == to:
                with contextlib.suppress(TableError):
                    await self.cancel(challenge.table_id, sender)

    async def decline(self, table_id: str, player: str) -> t.TableState:
        return await self._decide(table_id, lambda: t.DeclineTable(player=player, now_ms=now_ms()))

    async def rematch(
        self, match_id: str, player: str, ttl_s: int, client_seed: str | None = None
    ) -> t.TableState:
        """Offer to play a settled match again, or accept the opponent's standing offer.

        An offer is a challenge to the opponent under the same rules, linked to the old
        match; against the house AI it is accepted at once. The k-th offer of a match
        has the table id ``<match id>-r<k>``, so two players who offer at the same moment
        race for one table: the loser finds the winner's offer and accepts it, and one
        rematch starts, not two. Offering twice returns the offer already standing, and
        accepting twice the rematch that started. The rematch of a private match is
        private too (new codes, so only its players may watch it). ``client_seed`` is
        the player's part of the deal, as when opening or joining a table.
        """
        record = await self.matches.load(match_id)
        state = record.state
        seat = seat_of(state, player)
        if state.settlement is None:
            raise MatchNotFinished("a rematch is offered once the match is settled")
        opponent = state.players[1 - seat]
        for _ in range(RACE_RETRIES):
            offer, table_id = await self._standing_rematch(match_id)
            if offer is not None and (offer.status == "started" or offer.host == player):
                return offer
            if offer is not None:  # the opponent's offer, still open: accept it
                try:
                    return await self.join(offer.table_id, player, None, client_seed)
                except TableFull:
                    continue  # accepted a moment ago (a double click): it has started
            try:
                offer = await self.open(
                    player,
                    state.rules,
                    state.watch_code is not None,  # a private match's rematch stays private
                    ttl_s,
                    invitee=opponent,
                    rematch_of=match_id,
                    table_id=table_id,
                    hints=state.hints,
                    client_seed=client_seed,
                    rated=state.rated,  # a rated match's rematch is rated, an unrated one's not
                    # the same clock as the match it plays again (at least today's floor)
                    clock=None
                    if record.clock.clock is None
                    else raised_to_the_floor(record.clock.clock),
                )
            except ConcurrencyConflict:
                continue  # the opponent offered in the same moment: look again
            if is_house_ai(opponent):
                return await self.join(offer.table_id, opponent, None)
            return offer
        raise ConcurrencyConflict("the rematch kept changing; retry")

    async def _standing_rematch(self, match_id: str) -> tuple[t.TableState | None, str]:
        """The open or started rematch offer of a match, else the id the next offer takes."""
        number = 1
        while True:
            table_id = f"{match_id}-r{number}"
            try:
                offer = await self.load(table_id)
            except TableNotOpened:
                return None, table_id
            if offer.status == "started" or offer.open_at(now_ms()):
                return offer, table_id
            number += 1  # declined, cancelled or expired: a later offer may stand

    async def latest_rematch(self, match_id: str) -> t.TableState | None:
        """The newest rematch offer of a match, whatever became of it."""
        latest = None
        number = 1
        while True:
            try:
                latest = await self.load(f"{match_id}-r{number}")
            except TableNotOpened:
                return latest
            number += 1

    async def challenges_of(self, player: str) -> list[t.TableState]:
        """Open challenges to or from ``player``, oldest first, but those sent to it by
        a player it blocks: they stay open (their sender is not told), unlisted."""
        await self.projector.catch_up("lobby")
        await self.projector.catch_up("blocks")
        return [
            await self.load(table_id)
            for table_id in await open_challenges(self.store.engine, player, now_ms())
        ]

    async def ensure_match(self, state: t.TableState) -> None:
        """Start the table's match if it was joined but the match is not yet in the store."""
        if state.match_id is None or state.players is None:
            return
        if await self.store.stream_version(state.match_id):
            return
        # A conflict means another process started it a moment ago: it is there, once.
        seeds = None
        if state.host_seed is not None and state.guest_seed is not None:
            seeds = (state.host_seed, state.guest_seed)
        with contextlib.suppress(ConcurrencyConflict):
            await self.matches.start(
                state.players,
                state.rules,
                state.seed,
                state.match_id,
                watch_code=state.watch_code,
                client_seeds=seeds,
                seed_committed_ms=state.seed_committed_ms,
                hints=state.hints,
                rated=state.rated,
                clock=state.clock,
            )

    async def open_tables(self, viewer: str, rules_name: str | None, limit: int) -> list[LobbyRow]:
        """The lobby as ``viewer`` sees it: no table of a player either one blocks."""
        await self.projector.catch_up("lobby")  # read your own writes: the list is never behind
        await self.projector.catch_up("blocks")
        return await open_public_tables(self.store.engine, now_ms(), rules_name, limit, viewer)

    async def expire_overdue(self) -> int:
        """Record TableExpired for every open table past its time; any process may do it."""
        await self.projector.catch_up("lobby")
        expired = 0
        for table_id in await overdue_tables(self.store.engine, now_ms()):
            try:
                await self._decide(table_id, lambda: t.ExpireTable(now_ms=now_ms()), retries=1)
                expired += 1
            except TableError:
                pass  # joined, cancelled or expired by someone else first
        return expired

    async def _decide(
        self,
        table_id: str,
        command_for: Callable[[], t.AnyTableCommand],
        retries: int = RACE_RETRIES,
    ) -> t.TableState:
        for _ in range(retries):
            state = await self.load(table_id)
            events = t.decide(state, command_for())
            if not events:  # already so (a guest joining again): nothing to record
                return state
            try:
                await self._append(table_id, state.version, events)
            except ConcurrencyConflict:
                continue  # someone else changed the table: decide again on what they did
            return t.fold(events, state)
        state = await self.load(table_id)
        t.decide(state, command_for())  # the refusal the table now gives, if any
        raise ConcurrencyConflict("the table kept changing; retry")
