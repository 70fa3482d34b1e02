"""A table in the lobby as a decider: a host opens it, one guest joins, the match starts.

A table is the seat-finding half of a match between two players. A challenge is the
same thing addressed to one player (``invitee``): only they may take the seat, and
they may decline it; an open seek is a public table. Its life is short and has four
ends: it starts (the guest took the free seat), the host cancels it, the invitee
declines it, or nobody came before ``expires_ms``. Time is never read here: every command carries the
server's clock (``now_ms``), so two processes that race to expire or join one table
decide from the same facts, and the store's expected version lets one of them win.

Everything random (the table id, the codes, the match id, the seeds) arrives in the
commands too, so a table folded from its log is the table that was decided.

The deal of the table's match is fair (docs/fair-deal.md): the table holds the host's
committed server seed (``seed``, secret; its commitment is public), and each seat adds
a client seed, the host's on opening, the guest's on joining; both were given after
the commitment was published.

A host who blocks a player (domain/blocks.py) does not seat them, at any of its tables,
and a challenge between the two is refused either way. The blocks are facts the service
reads and puts in the command (``host_blocks_guest``; a challenge's both ways), as it
puts the time: they are decided here and never recorded in the table's log.

Nor are two players who go by the same name (``domain.text.same_name``) seated
together, nor is a challenge between them opened: at the table, in the lobby and to
anyone watching their match, one could pass for the other. The service reads both
names and says whether they match (``same_name``), as it does for the blocks.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from functools import reduce
from typing import ClassVar, Literal

import msgspec

from domain import errors
from domain.deck import seed_commitment
from domain.rules import MIN_CLOCK_MS, Clock, Rules, meets_the_floor, validate, validate_clock
from domain.seeds import ClientSeed, check_client_seed

TableStatus = Literal["open", "started", "cancelled", "declined", "expired"]


# --- events ------------------------------------------------------------------------------


class TableEvent(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    schema_version: ClassVar[int] = 1


class TableOpened(TableEvent, tag="table_opened", frozen=True):
    """A host waits for an opponent; a private table is joined only with ``invite_code``
    and its match watched only with ``watch_code`` (both secret: never listed)."""

    table_id: str
    host: str
    rules: Rules
    private: bool
    opened_ms: int
    expires_ms: int
    invite_code: str | None = None
    watch_code: str | None = None
    invitee: str | None = None  # a challenge: only this player may take the seat
    rematch_of: str | None = None  # the settled match this one plays again
    hints: bool = True  # the match gives the engine's advice (tables before hints did)
    seed: str | None = None  # the server seed of the match: secret, never listed
    seed_commitment: str | None = None
    seed_committed_ms: int | None = None
    host_seed: ClientSeed | None = None
    rated: bool = False  # its match is rated (a table recorded before ratings is not)
    clock: Clock | None = None  # the match's move clock (None: no clock)


class TableJoined(TableEvent, tag="table_joined", frozen=True):
    """The guest took the free seat; ``match_id`` is the match the two now play."""

    guest: str
    match_id: str
    joined_ms: int
    guest_seed: ClientSeed | None = None


class TableCancelled(TableEvent, tag="table_cancelled", frozen=True):
    cancelled_ms: int


class TableDeclined(TableEvent, tag="table_declined", frozen=True):
    declined_ms: int


class TableExpired(TableEvent, tag="table_expired", frozen=True):
    expired_ms: int


AnyTableEvent = TableOpened | TableJoined | TableCancelled | TableDeclined | TableExpired
TABLE_EVENT_TYPES: tuple[type[TableEvent], ...] = (
    TableOpened,
    TableJoined,
    TableCancelled,
    TableDeclined,
    TableExpired,
)


# --- commands ----------------------------------------------------------------------------


class OpenTable(msgspec.Struct, frozen=True):
    table_id: str
    host: str
    rules: Rules
    private: bool
    now_ms: int
    expires_ms: int
    invite_code: str | None = None
    watch_code: str | None = None
    invitee: str | None = None
    rematch_of: str | None = None
    hints: bool = False
    seed: str | None = None  # the host's committed server seed, taken for this table
    seed_committed_ms: int | None = None
    host_seed: ClientSeed | None = None
    rated: bool = False
    clock: Clock | None = None
    # A challenge's blocks, read by the service (domain/blocks.py); never recorded.
    host_blocks_invitee: bool = False
    invitee_blocks_host: bool = False
    same_name: bool = False  # the host's and the invitee's names look alike; read, never recorded


class JoinTable(msgspec.Struct, frozen=True):
    guest: str
    now_ms: int
    match_id: str
    invite_code: str | None = None
    guest_seed: ClientSeed | None = None
    host_blocks_guest: bool = False  # read by the service; never recorded
    same_name: bool = False  # the host's and the guest's names look alike; likewise


class CancelTable(msgspec.Struct, frozen=True):
    player: str
    now_ms: int


class DeclineTable(msgspec.Struct, frozen=True):
    player: str
    now_ms: int


class ExpireTable(msgspec.Struct, frozen=True):
    now_ms: int


AnyTableCommand = OpenTable | JoinTable | CancelTable | DeclineTable | ExpireTable


# --- state -------------------------------------------------------------------------------


class TableState(msgspec.Struct, frozen=True):
    table_id: str
    host: str
    rules: Rules
    private: bool
    opened_ms: int
    expires_ms: int
    invite_code: str | None
    watch_code: str | None
    invitee: str | None = None
    rematch_of: str | None = None
    rated: bool = False
    clock: Clock | None = None
    status: TableStatus = "open"
    guest: str | None = None
    match_id: str | None = None
    closed_ms: int | None = None
    version: int = 1
    hints: bool = True
    seed: str | None = None
    seed_commitment: str | None = None
    seed_committed_ms: int | None = None
    host_seed: ClientSeed | None = None
    guest_seed: ClientSeed | None = None

    @property
    def players(self) -> tuple[str, str] | None:
        """The match's two seats once it has started: the host sits in seat 0."""
        return None if self.guest is None else (self.host, self.guest)

    def open_at(self, now_ms: int) -> bool:
        """Open and not yet due: what the lobby lists and a guest may join."""
        return self.status == "open" and now_ms < self.expires_ms


# --- how much one host may have open at once ----------------------------------------------
#
# A rule over all of a host's tables, not one: the service gathers the host's open tables
# and asks ``check_room`` before it opens another (server/tables.py). Only what a host
# opened counts, never the challenges it was sent, so a player or bot challenged by many
# may accept (or decline) every one of them.

MAX_OPEN_TABLES = 3  # tables with no invitee (public, private, open seeks): a few, as lichess
MAX_CHALLENGES_TO_ONE = 1  # challenges (rematch offers included) from one sender to one player
MAX_OPEN_CHALLENGES = 10  # challenges one sender has open to everyone together


class Hosted(msgspec.Struct, frozen=True):
    """One of a host's tables that is open now: its id, and whom it challenges (None:
    a table anyone may join, or a private one anyone with the code may)."""

    table_id: str
    invitee: str | None = None


def check_room(host: str, invitee: str | None, hosted: Sequence[Hosted]) -> None:
    """Whether ``host``, whose open tables are ``hosted``, may open one more table
    (``invitee`` None) or challenge ``invitee``; a TableError naming the cap if not.
    The refusal says what frees a place: answering, cancelling or the tables' expiry."""
    if invitee is None:
        tables = [h.table_id for h in hosted if h.invitee is None]
        if len(tables) >= MAX_OPEN_TABLES:
            raise errors.TooManyOpenTables(
                f"you already have {len(tables)} open tables, the most a host may have "
                f"waiting at once ({MAX_OPEN_TABLES}): cancel one (POST /v1/tables/{{id}}/"
                f"cancel) or wait until one is joined or expires "
                f"({', '.join(tables[:MAX_OPEN_TABLES])})"
            )
        return
    to_them = [h.table_id for h in hosted if h.invitee == invitee]
    if len(to_them) >= MAX_CHALLENGES_TO_ONE:
        raise errors.AlreadyChallenged(
            f"you already have an open challenge to this player ({to_them[0]}), and a "
            f"sender may have {MAX_CHALLENGES_TO_ONE} open to the same player: wait for "
            f"their answer or withdraw it (POST /v1/challenges/{to_them[0]}/cancel)"
        )
    challenges = [h.table_id for h in hosted if h.invitee is not None]
    if len(challenges) >= MAX_OPEN_CHALLENGES:
        raise errors.TooManyOpenChallenges(
            f"you already have {len(challenges)} open challenges, the most a player may "
            f"have waiting at once ({MAX_OPEN_CHALLENGES}): withdraw one (POST "
            "/v1/challenges/{id}/cancel) or wait until one is answered or expires"
        )


def decide(state: TableState | None, command: AnyTableCommand) -> list[TableEvent]:
    """The events a command causes, or a TableError naming the rule it breaks."""
    if isinstance(command, OpenTable):
        return _open(state, command)
    if state is None:
        raise errors.TableNotOpened("no such table")
    if isinstance(command, JoinTable):
        return _join(state, command)
    if isinstance(command, CancelTable):
        if command.player != state.host:
            if command.player == state.invitee:
                raise errors.NotTheHost(
                    "only the challenger may cancel a challenge: decline it instead "
                    "(POST /v1/challenges/{id}/decline)"
                )
            raise errors.NotTheHost("only the table's host may cancel it")
        _require_open(
            state,
            command.now_ms,
            errors.TableStarted("resign the match to leave it"),
        )
        return [TableCancelled(cancelled_ms=command.now_ms)]
    if isinstance(command, DeclineTable):
        if state.invitee is None:
            raise errors.NotInvited(
                "this table challenges nobody, so nobody may decline it: its host may cancel it"
            )
        if command.player != state.invitee:
            raise errors.NotInvited("only the challenged player may decline")
        _require_open(
            state,
            command.now_ms,
            errors.TableStarted("this challenge was accepted: resign the match to leave it"),
        )
        return [TableDeclined(declined_ms=command.now_ms)]
    if isinstance(command, ExpireTable):
        if state.status == "open" and command.now_ms < state.expires_ms:
            raise errors.TableNotDue("the table is still open")
        _require_open(state, state.expires_ms - 1)  # already closed some other way
        return [TableExpired(expired_ms=command.now_ms)]
    raise errors.TableError(f"unknown command {type(command).__name__}")


def _open(state: TableState | None, cmd: OpenTable) -> list[TableEvent]:
    if state is not None:
        raise errors.TableAlreadyOpened("the table is already open")
    validate(cmd.rules)
    if cmd.clock is not None:
        validate_clock(cmd.clock)
    if not cmd.table_id or not cmd.host:
        raise errors.TableError("a table needs an id and a host")
    if cmd.expires_ms <= cmd.now_ms:
        raise errors.TableError("a table must stay open for some time")
    if cmd.private and not (cmd.invite_code and cmd.watch_code):
        raise errors.TableError("a private table needs an invite code and a watch code")
    if cmd.invitee == cmd.host:
        raise errors.OwnTable("a player cannot challenge itself")
    if cmd.host_blocks_invitee:  # first: it is the sender's own doing, and tells nothing else
        raise errors.YouBlockThisPlayer(
            "you block this player, so they could not accept: unblock them "
            "(DELETE /v1/me/blocks/{player_id}) to challenge them"
        )
    if cmd.invitee_blocks_host:
        raise errors.OpponentRefused("this player does not take challenges from you")
    if cmd.same_name:
        raise errors.NameTaken(
            "this player goes by the same name as you, so nobody could tell you apart "
            "in the match: rename yourself (PATCH /v1/players/{id}) to challenge them"
        )
    if (cmd.seed is None) != (cmd.host_seed is None):
        raise errors.InvalidClientSeed("a fair table needs the server seed and the host's seed")
    if cmd.host_seed is not None:
        check_client_seed(cmd.host_seed, cmd.seed_committed_ms, "the host")
    return [
        TableOpened(
            table_id=cmd.table_id,
            host=cmd.host,
            rules=cmd.rules,
            private=cmd.private,
            opened_ms=cmd.now_ms,
            expires_ms=cmd.expires_ms,
            invite_code=cmd.invite_code,
            watch_code=cmd.watch_code,
            invitee=cmd.invitee,
            rematch_of=cmd.rematch_of,
            hints=cmd.hints,
            seed=cmd.seed,
            seed_commitment=None if cmd.seed is None else seed_commitment(cmd.seed),
            seed_committed_ms=cmd.seed_committed_ms,
            host_seed=cmd.host_seed,
            rated=cmd.rated,
            clock=cmd.clock,
        )
    ]


def _join(state: TableState, cmd: JoinTable) -> list[TableEvent]:
    if cmd.guest == state.host:  # first: the host is told this, whatever became of the table
        raise errors.OwnTable("you are this table's host; you cannot take the other seat")
    if state.status == "started" and cmd.guest == state.guest:
        # A retry (its answer lost, say): the seat is already this guest's, and nothing
        # changes. Refused as table_full, it told a bot that someone else took the match
        # it was playing; a rematch accepted twice already answered the match that started.
        return []
    _require_open(state, cmd.now_ms)
    if state.invitee is not None and cmd.guest != state.invitee:
        raise errors.NotInvited("this challenge is addressed to another player")
    if (
        state.invitee is None
        and state.invite_code is not None
        and not same_code(cmd.invite_code, state.invite_code)
    ):
        raise errors.InviteCodeRequired(
            "this table is private: join with its invite code"
            if cmd.invite_code is None
            else "this table is private, and that is not its invite code"
        )
    if cmd.host_blocks_guest:  # after the table's own refusals: those say nothing of it
        raise errors.OpponentRefused("this table's host does not take you as an opponent")
    if cmd.same_name:
        raise errors.NameTaken(
            "this table's host goes by the same name as you, so nobody could tell you apart "
            "in the match: rename yourself (PATCH /v1/players/{id}) to take the seat"
        )
    if not cmd.match_id:
        raise errors.TableError("a join needs the id of the match it starts")
    if state.clock is not None and not meets_the_floor(state.clock):
        raise errors.InvalidClock(  # opened before the floor: its match could not start
            f"this table was opened with a clock under today's floor of {MIN_CLOCK_MS} ms, "
            "so its match cannot start; its host may open another"
        )
    guest_seed = cmd.guest_seed
    if state.seed is None:
        guest_seed = None  # a table opened before fair deals: its match has one seed
    elif guest_seed is None:
        raise errors.InvalidClientSeed("the guest of a fair table gives a client seed")
    else:
        check_client_seed(guest_seed, state.seed_committed_ms, "the guest")
    return [
        TableJoined(
            guest=cmd.guest, match_id=cmd.match_id, joined_ms=cmd.now_ms, guest_seed=guest_seed
        )
    ]


def _require_open(state: TableState, now_ms: int, started: errors.TableError | None = None) -> None:
    """Refuse a table that has closed; ``started`` is the refusal once its match has
    begun (a joiner is told both seats are taken, its host or invitee that it started)."""
    if state.status == "started":
        raise started or errors.TableFull("both seats at this table are taken")
    challenge = state.invitee is not None  # told in a challenge's words
    if state.status == "cancelled":
        raise errors.TableCancelled(
            "the challenger withdrew this challenge"
            if challenge
            else "the host cancelled this table"
        )
    if state.status == "declined":
        raise errors.TableDeclined("the challenged player declined")
    if state.status == "expired" or now_ms >= state.expires_ms:
        raise errors.TableExpired(
            "nobody accepted this challenge in time; it has expired"
            if challenge
            else "nobody joined this table in time; it has closed"
        )


def same_code(given: str | None, secret: str | None) -> bool:
    """A constant-time comparison: a code's prefix must not be found by timing."""
    if given is None or secret is None:
        return False
    return hmac.compare_digest(given.encode(), secret.encode())


def evolve(state: TableState | None, event: TableEvent) -> TableState:
    """The table after one event; the only place a table changes."""
    if isinstance(event, TableOpened):
        return TableState(
            table_id=event.table_id,
            host=event.host,
            rules=event.rules,
            private=event.private,
            opened_ms=event.opened_ms,
            expires_ms=event.expires_ms,
            invite_code=event.invite_code,
            watch_code=event.watch_code,
            invitee=event.invitee,
            rematch_of=event.rematch_of,
            hints=event.hints,
            seed=event.seed,
            seed_commitment=event.seed_commitment,
            seed_committed_ms=event.seed_committed_ms,
            host_seed=event.host_seed,
            rated=event.rated,
            clock=event.clock,
        )
    if state is None:
        raise errors.TableNotOpened(f"{type(event).__name__} before TableOpened")
    version = state.version + 1
    if isinstance(event, TableJoined):
        return msgspec.structs.replace(
            state,
            status="started",
            guest=event.guest,
            match_id=event.match_id,
            closed_ms=event.joined_ms,
            version=version,
            guest_seed=event.guest_seed,
        )
    if isinstance(event, TableCancelled):
        return msgspec.structs.replace(
            state, status="cancelled", closed_ms=event.cancelled_ms, version=version
        )
    if isinstance(event, TableDeclined):
        return msgspec.structs.replace(
            state, status="declined", closed_ms=event.declined_ms, version=version
        )
    if isinstance(event, TableExpired):
        return msgspec.structs.replace(
            state, status="expired", closed_ms=event.expired_ms, version=version
        )
    raise errors.TableError(f"cannot fold {type(event).__name__}")


def fold(events: list[TableEvent], state: TableState | None = None) -> TableState:
    result = reduce(evolve, events, state)
    if result is None:
        raise errors.TableNotOpened("no events")
    return result
