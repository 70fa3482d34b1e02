"""The HTTP bodies: what clients send and receive, as msgspec structs.

Client actions carry no ``seat``: the server fills it from the caller's token, so a
client can never act for the other seat. Every struct forbids unknown fields, so a
misspelt field is a 422 rather than silently ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar, get_args

import msgspec
from litestar import Request
from litestar.params import QueryParameter
from msgspec import UNSET, Meta, UnsetType

from domain.commands import AnySeatCommand
from domain.events import AnyEvent
from domain.melds import Arrangement
from domain.rules import (
    MAX_CLOCK_MS,
    MIN_CLOCK_MS,
    PRESETS,
    Clock,
    Rules,
    make_rules,
    validate_clock,
)
from domain.seeds import CLIENT_SEED_PATTERN
from domain.state import MatchState
from domain.views import PlayerView, SpectatorView
from server.problems import InvalidRequest

# ``ge=0`` would be right, but Litestar's schema generator drops a zero bound, so the
# document would allow negatives; ``gt=-1`` says the same for integers and survives.
NON_NEGATIVE = -1

T = TypeVar("T")

CardText = Annotated[str, Meta(pattern=r"^[A2-9TJQK][CDHS]$", examples=["7H"])]
PresetName = Literal["arcadia", "arkadium", "classic"]
Level = Literal["random", "easy", "medium", "hard", "baseline"]  # domain.ai.choose.LEVELS
PlayerKind = Literal["person", "bot", "ai"]


class _Action(
    msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True, kw_only=True
):
    # A ``legal`` entry names its seat; sent back as it is, it must name the caller's own
    # (a client echoing it was refused for the unknown field). Unset: left out of the
    # request's encoding, so an idempotency key's hash of a request without it is as before.
    seat: (
        Annotated[
            int,
            Meta(
                gt=NON_NEGATIVE,
                le=1,
                description="Optional: your own seat, as `legal` lists it (another is a 422)",
            ),
        ]
        | UnsetType
    ) = UNSET


class TakeUpCardAction(_Action, tag="take_up_card", frozen=True):
    pass


class PassUpCardAction(_Action, tag="pass_up_card", frozen=True):
    pass


class DrawStockAction(_Action, tag="draw_stock", frozen=True):
    pass


class DrawDiscardAction(_Action, tag="draw_discard", frozen=True):
    pass


class DiscardAction(_Action, tag="discard", frozen=True):
    card: CardText


LayoutMelds = Annotated[
    list[Annotated[list[CardText], Meta(max_length=10)]],
    Meta(
        max_length=10,
        description="The melds to lay down (the cards kept in none are the deadwood): one "
        "of the view's `knock_layouts` for this discard, or any split of the ten cards kept "
        "into sets and runs that leaves the least deadwood. Omitted or null: the engine's "
        "default, the first of `knock_layouts`.",
        examples=[[["2C", "2D", "2S"], ["3H", "4H", "5H"]]],
    ),
]


class KnockAction(_Action, tag="knock", frozen=True):
    card: CardText
    layout: LayoutMelds | None = None


class GinAction(_Action, tag="gin", frozen=True):
    card: CardText
    layout: LayoutMelds | None = None


class BigGinAction(_Action, tag="big_gin", frozen=True):
    pass


class LayOffAction(_Action, tag="lay_off", frozen=True):
    card: CardText
    meld: Annotated[int, Meta(gt=NON_NEGATIVE, le=10)] | None = None


class FinishLayoffsAction(_Action, tag="finish_layoffs", frozen=True):
    pass


class NextHandAction(_Action, tag="next_hand", frozen=True):
    pass


class ResignAction(_Action, tag="resign", frozen=True):
    """Give up the match now, on any turn (never listed in ``legal``: always allowed)."""


Action = (
    TakeUpCardAction
    | PassUpCardAction
    | DrawStockAction
    | DrawDiscardAction
    | DiscardAction
    | KnockAction
    | GinAction
    | BigGinAction
    | LayOffAction
    | FinishLayoffsAction
    | NextHandAction
    | ResignAction
)


# Each action's command type by tag: converting to the one type costs 0.4 µs, to the
# union of all twelve 25 µs (measured: 2026-12-03, RESULTS-server), which
# was 3% of the server's busy samples on the action path (issue 22).
_COMMAND_BY_TAG: dict[str | int | None, type[AnySeatCommand]] = {
    kind.__struct_config__.tag: kind for kind in get_args(AnySeatCommand)
}


def to_command(action: Action, seat: int) -> AnySeatCommand:
    """The domain command for a client action, for the caller's own seat."""
    fields = msgspec.structs.asdict(action)
    if fields["seat"] not in (UNSET, seat):
        raise InvalidRequest(f"action.seat: you sit in seat {seat}; send your own, or none")
    fields["seat"] = seat
    command: AnySeatCommand = msgspec.convert(fields, _COMMAND_BY_TAG[action.__struct_config__.tag])
    return command


Score = Annotated[int, Meta(gt=NON_NEGATIVE, le=1000)]
BigScore = Annotated[int, Meta(gt=NON_NEGATIVE, le=10000)]


class CustomRules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A preset with some fields changed; ``null`` switches an optional bonus off."""

    preset: PresetName = "arcadia"
    knock_limit: Annotated[int, Meta(gt=NON_NEGATIVE, le=10)] | UnsetType = UNSET
    gin_bonus: Score | UnsetType = UNSET
    undercut_bonus: Score | UnsetType = UNSET
    big_gin_bonus: Score | UnsetType | None = UNSET
    box_bonus: Score | UnsetType = UNSET
    target: Annotated[int, Meta(ge=1, le=10000)] | UnsetType = UNSET
    match_bonus: BigScore | UnsetType = UNSET
    shutout_bonus: BigScore | UnsetType | None = UNSET
    winner_by: Literal["first_to_target", "highest_total"] | UnsetType = UNSET
    oklahoma: bool | UnsetType = UNSET
    pile_draw_limit: Annotated[int, Meta(ge=1, le=1000)] | UnsetType | None = UNSET

    def overrides(self) -> dict[str, object]:
        return {
            name: value
            for name, value in msgspec.structs.asdict(self).items()
            if name != "preset" and value is not UNSET
        }


def rules_of(requested: PresetName | CustomRules) -> Rules:
    """The rule set a request names: a preset as it is, or a preset with fields changed."""
    if isinstance(requested, str):
        return PRESETS[requested]
    return make_rules(requested.preset, **requested.overrides())


ClockMs = Annotated[int, Meta(ge=MIN_CLOCK_MS, le=MAX_CLOCK_MS)]  # 1 s to a day


class ClockSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A move clock (docs/rules.md, "Clocks"): ``per_move_ms`` for every turn, or a time
    bank ``bank_ms`` that each turn spends and each finished turn tops up by
    ``increment_ms``. Give exactly one of ``per_move_ms`` and ``bank_ms``, from 1000 (a
    move is a round trip and a decision) to a day."""

    per_move_ms: ClockMs | None = None
    bank_ms: ClockMs | None = None
    increment_ms: Annotated[int, Meta(ge=0, le=86_400_000)] = 0


def clock_of(requested: ClockSettings | None) -> Clock | None:
    """The clock a request asks for (an ``invalid_clock`` problem if it is not one)."""
    if requested is None:
        return None
    return validate_clock(Clock(requested.per_move_ms, requested.bank_ms, requested.increment_ms))


# A display name: 1-40 characters counted after NFC composition (domain.text.length), no
# NUL (PostgreSQL cannot hold it; SQLite would). A schema's maxLength counts code points
# as sent, so 40 "é" typed decomposed (80) were refused and the same name precomposed
# taken: the schema only caps what is sent, cheaply, at NAME_SENT_LIMIT (an NFC
# character decomposes to at most 4), and server/http/players.py counts the 40
# (check_name, with what else the schema cannot say).
NAME_LENGTH = 40
NAME_SENT_LIMIT = 200
NAME_LENGTH_RULE = (
    f"At most {NAME_LENGTH} characters, counted after NFC composition (a letter typed with"
    " a combining accent counts once, as its precomposed letter does; each code point of"
    f" an emoji sequence counts), and at most {NAME_SENT_LIMIT} code points as sent."
)
PlayerName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=NAME_SENT_LIMIT,
        pattern=r"^[^\x00]*$",
        description=(
            f"A display name, kept as typed. {NAME_LENGTH_RULE} Refused (422 invalid_request)"
            " when longer, when it holds"
            " what a chat message would lose (control characters, line breaks and tabs,"
            " bidirectional controls such as U+202E, zero-width spaces, a joiner with"
            " nothing to join, more than 4 combining marks in a row), when nothing in it"
            " shows (only spaces or blank characters such as U+2800 and U+3164), or when,"
            " compared after NFKC, without spaces or invisible characters, with Cyrillic,"
            " Greek and other letters that look Latin read as Latin and in any case, it is"
            " how a house AI is shown: a level (`hard`), `ai:` and a level, or anything"
            " starting `ai:` or `Computer (`."
        ),
    ),
]


class CreatePlayerRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``kind: "bot"`` makes an account for a program: shown as a bot wherever it appears."""

    name: PlayerName
    kind: Literal["person", "bot"] = "person"


class RenamePlayerRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: PlayerName


class RatingSummary(msgspec.Struct, frozen=True):
    """A Glicko-2 rating: the strength is within ``rating`` plus or minus twice
    ``deviation`` with 95% confidence. ``provisional`` until the deviation falls below
    the threshold in docs/ratings.md: such a rating is kept off the leaderboard."""

    rating: int
    deviation: int
    provisional: bool


class PlayerProfile(msgspec.Struct, frozen=True):
    """``rating`` is null only for a player that has no rating record (``ai:random``)."""

    id: str
    name: str
    kind: PlayerKind
    rating: RatingSummary | None = None


class PlayerCreated(msgspec.Struct, frozen=True):
    """The token is shown once; the server keeps only its hash. ``seed_commitment`` is
    sha256("seed:" + server seed) of your next match, committed at ``seed_committed_at``
    (docs/fair-deal.md)."""

    id: str
    name: str
    kind: PlayerKind
    token: str
    seed_commitment: str
    seed_committed_at: str
    token_expires_at: str | None = None  # ISO 8601; null: until rotated or revoked
    rating: RatingSummary | None = None  # as GET /v1/me says it: a client shows it at once


class OwnProfile(msgspec.Struct, frozen=True):
    """You, as your token shows you: with the commitment of your next match's server
    seed, which you may save before giving a client seed (docs/fair-deal.md)."""

    id: str
    name: str
    kind: PlayerKind
    seed_commitment: str
    seed_committed_at: str
    rating: RatingSummary | None = None


# A chosen seed (practice): no NUL, as for names (PostgreSQL cannot hold one; SQLite would).
PracticeSeed = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[^\x00]*$")]

# A seat's part of a fair deal (docs/fair-deal.md): never ``:``, which separates seeds.
ClientSeedText = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=64,
        pattern=CLIENT_SEED_PATTERN,
        description="Your part of the deal: 1-64 letters, digits or ._~- (random if omitted)",
    ),
]
# The same, where the route has no body (accepting a challenge, a rematch).
ClientSeedQuery = Annotated[
    str | None,
    QueryParameter(
        min_length=1,
        max_length=64,
        pattern=CLIENT_SEED_PATTERN,
        description="Your part of the deal (docs/fair-deal.md); random if omitted",
    ),
]
Hints = Annotated[
    bool,
    Meta(description="Give the engine's advice (best_discard); unrated"),
]


class TokenIssued(msgspec.Struct, frozen=True):
    """A new token, shown once; the server keeps only its hash."""

    token: str
    token_expires_at: str | None = None  # ISO 8601; null: until rotated or revoked


class SignInCodeIssued(msgspec.Struct, frozen=True):
    """A one-time code that signs your player in on another device, shown once; it works
    once, until ``expires_at``, and a newer code replaces it."""

    code: Annotated[str, Meta(examples=["7KQ2M-XW9TD"])]
    expires_at: str  # ISO 8601


class RedeemSignInCodeRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The code as the other device shows it; any case, spaces and dashes are taken, and
    ``I``, ``L`` and ``O`` are read as ``1``, ``1`` and ``0``."""

    code: Annotated[str, Meta(min_length=1, max_length=40, examples=["7KQ2M-XW9TD"])]


class CreateMatchRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``seed`` fixes every deck: such a match is practice. Otherwise the deal is fair:
    your ``client_seed`` with the server seed you were shown the commitment of.
    ``rated`` left out: rated if it can be (no ``seed``, no ``hints``, a preset's rules);
    ``true`` insists (a 422 ``not_ratable`` if it cannot be), ``false`` declines."""

    level: Level = "easy"
    rules: PresetName | CustomRules = "arcadia"
    seed: PracticeSeed | None = None
    client_seed: ClientSeedText | None = None
    hints: Hints = False
    rated: bool | None = None
    clock: ClockSettings | None = None  # none against the house AI unless asked


class HouseMatchRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Two house AIs, seat 0 and seat 1 (``ai:<level>`` each, the same level allowed),
    play each other while you watch; you hold no seat. ``seed`` fixes every deck."""

    seats: tuple[
        Annotated[str, Meta(min_length=1, max_length=64)],
        Annotated[str, Meta(min_length=1, max_length=64)],
    ]
    rules: PresetName | CustomRules = "arcadia"
    seed: PracticeSeed | None = None


class PlayerRef(msgspec.Struct, frozen=True):
    """A player as others see it: the id (stable), the display name (may change), and
    whether it is a person, a bot (a program) or the house AI (``ai:<level>``)."""

    id: str
    name: str
    kind: PlayerKind
    rating: RatingSummary | None = None


class MatchResponse(msgspec.Struct, frozen=True):
    """``seats``: who sits where (a person, a bot or the house AI), ``spectators``: sockets
    watching the match now, on every server process; ``rated``: the result moves ratings
    (unless the settlement is ``abandoned``: both players away, docs/ratings.md).
    ``watch_code``: a private table's match is watched with it (``?watch_code=``); its
    players were given it with the table, and read it here too (null for a public match,
    and in answers to moves). ``now_ms``: the server's time when it answered, in ms since
    1970; the clock's deadlines are on that clock, so ``deadline_ms - now_ms`` is the time
    left then, whatever the client's own clock says (docs/api.md, "Clocks").
    ``finished_at_ms``: when the match was settled, on the same clock (null while it runs):
    a rematch is offered in the minutes after it, or seldom at all."""

    match_id: str
    seat: int
    version: int
    view: PlayerView
    now_ms: int
    seats: tuple[PlayerRef, PlayerRef] | None = None
    spectators: int = 0
    rated: bool = False
    watch_code: str | None = None
    finished_at_ms: int | None = None


class ClaimStatus(msgspec.Struct, frozen=True):
    """Whether your claim of the match (``POST …/claim``) is accepted now, and if not,
    from when it would be: the grace period is this server's setting and the opponent's
    presence is known only here, so a client offering a claim reads them rather than
    guess. Times are ms since 1970 on the server's clock; ``now_ms`` is this answer's own,
    to count down against whatever the client's clock says. Only for a seat's player; it
    names no card."""

    claimable: bool  # a claim now is accepted
    reason: Literal["timeouts", "absence"] | None  # why it is (null when it is not)
    grace_ms: int  # how long the opponent may be away on its turn (GINRUMMY_ABSENCE_GRACE_S)
    # a live socket on this match, or its player stream, is open, or closed less than the
    # leave's settle ago (3 s, or a quarter of the grace if less)
    opponent_connected: bool
    opponent_seen_ms: int | None  # its last connection or move of its own; null: connected
    # from when a claim by absence is accepted if the opponent stays away and nothing
    # moves; null while it is connected or is not to act (a settled match: 422 match_over)
    absence_claim_at_ms: int | None
    now_ms: int


class SpectatorResponse(msgspec.Struct, frozen=True):
    """A match as a spectator sees it: only what is public to both seats, and who sits
    where (a person, a bot or the house AI). ``now_ms``: the server's time when it
    answered, to count the clock's deadlines down against (as in ``MatchResponse``).
    ``watch_code``: only in the answer that starts a house match from a chosen seed, the
    code its host shares for others to watch it (``?watch_code=``); null elsewhere.
    ``rematch``: once the match is settled and its players started a rematch that anyone
    may watch, that match's id, so a spectator can follow them to it; null before, and
    for a private match's rematch (it has codes of its own, which a spectator lacks)."""

    match_id: str
    version: int
    spectators: int
    seats: tuple[PlayerRef, PlayerRef]
    view: SpectatorView
    now_ms: int
    watch_code: str | None = None
    rematch: str | None = None


class WatchableMatch(msgspec.Struct, frozen=True):
    """A match in play that anyone may watch (``GET …/spectator``, ``WS …/watch``):
    who sits where, its rules' name (as in ``GET /v1/matches``: ``arcadia+custom`` for a
    changed preset), the points so far (seat 0's, seat 1's), the hands played, how many
    watch now."""

    match_id: str
    seats: tuple[PlayerRef, PlayerRef]
    rules: str
    scores: tuple[int, int]
    hands_played: int
    started_at: str
    spectators: int
    rated: bool
    practice: bool


class WatchableMatchList(msgspec.Struct, frozen=True):
    """``more``: a further page may follow (ask with a larger ``offset``)."""

    matches: list[WatchableMatch]
    more: bool


class ActionRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    action: Action
    version: Annotated[int, Meta(gt=NON_NEGATIVE)] | None = None


class VersionedEvent(msgspec.Struct, frozen=True):
    version: int
    event: AnyEvent


class ActionResponse(msgspec.Struct, frozen=True):
    """``now_ms``: the server's time when it answered, to count the clock's deadlines down
    against (as in ``MatchResponse``); a retried request gets the first answer's view and
    events, with the time of its own answer."""

    match_id: str
    seat: int
    version: int
    view: PlayerView
    events: list[VersionedEvent]
    now_ms: int


class EventsPage(msgspec.Struct, frozen=True):
    """One page of a match's log.

    ``complete`` is true once the match is over and events are shown unredacted; it
    says nothing about paging. ``more`` says whether events follow this page: a client
    reads the whole log by asking again with ``after`` set to the last version it got
    until ``more`` is false (a long match has more events than one page may hold).
    """

    events: list[VersionedEvent]
    complete: bool
    more: bool


class ReplayResponse(msgspec.Struct, frozen=True):
    """The complete state after event ``at``, and each seat's hand arranged in melds."""

    at: int
    state: MatchState
    arrangements: tuple[Arrangement, Arrangement] | None = None  # None before the deal


class MatchSummary(msgspec.Struct, frozen=True):
    """``level`` is the house AI's level, or null when the opponent is a person or a bot.
    ``practice``: a chosen seed or custom rules; such a match is in no statistics.
    ``seat``: yours (0 or 1); ``winner`` is the winning seat, so you won when they are
    equal. ``scores`` are yours, then your opponent's.
    ``watching``: you started it between two house AIs and hold no seat (``seat`` null);
    then ``opponent`` is seat 1's player and ``scores`` are seat 0's and seat 1's.
    ``abandoned``: both players were away and the house AI played the match out for them;
    ``winner`` is the seat it settled on, but no rating moved and no won/lost total counts it."""

    match_id: str
    status: Literal["active", "finished"]
    opponent: str
    opponent_kind: PlayerKind
    opponent_name: str
    level: str | None
    rules: str
    scores: tuple[int, int]
    started_at: str | None
    finished_at: str | None
    winner: int | None
    practice: bool
    seat: int | None = None
    watching: bool = False
    abandoned: bool = False


class PlayerList(msgspec.Struct, frozen=True):
    players: list[PlayerProfile]


class MatchList(msgspec.Struct, frozen=True):
    """``more``: a further page follows (ask with a larger ``offset``)."""

    matches: list[MatchSummary]
    more: bool


class PlayerStats(msgspec.Struct, frozen=True):
    """Totals over the player's finished matches and scored hands."""

    player_id: str
    matches_played: int
    matches_won: int
    matches_lost: int
    hands_won: int
    hands_lost: int
    hands_washed: int
    gins: int
    knocks: int
    undercuts_given: int
    undercuts_received: int
    points: int
    points_against: int
    average_points_per_hand: float


class OpenTableRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A table waits ``expires_in_s`` seconds (the server's default if omitted); ``rated``
    as for a match: left out, rated under a preset's rules."""

    rules: PresetName | CustomRules = "arcadia"
    private: bool = False
    expires_in_s: Annotated[int, Meta(ge=10, le=86400)] | None = None
    client_seed: ClientSeedText | None = None
    hints: Hints = False
    rated: bool | None = None
    clock: ClockSettings | None = None  # the match's move clock; none if omitted


InviteCode = Annotated[str, Meta(min_length=1, max_length=100, pattern=r"^[^\x00]*$")]


class JoinTableRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``invite_code`` is needed for a private table and ignored at a public one."""

    invite_code: InviteCode | None = None
    client_seed: ClientSeedText | None = None


class TableView(msgspec.Struct, frozen=True):
    """A table in the lobby, or a challenge. The codes are shown only to its players (the
    host, the guest, the invitee)."""

    table_id: str
    host: PlayerRef
    rules: Rules
    private: bool
    rated: bool
    status: Literal["open", "started", "cancelled", "declined", "expired"]
    opened_at: str
    expires_at: str
    guest: PlayerRef | None
    match_id: str | None
    invite_code: str | None
    watch_code: str | None
    invitee: PlayerRef | None  # a challenge: the one player who may take the seat
    rematch_of: str | None  # the settled match this table plays again
    practice: bool  # custom rules: the match is in no statistics
    hints: bool  # the match gives the engine's advice
    seed_commitment: str | None  # sha256("seed:" + server seed), before anyone's seed
    clock: Clock | None  # the match's move clock (null: none)


class TableList(msgspec.Struct, frozen=True):
    tables: list[TableView]


class ChallengeRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``to`` is a player id (names are neither unique nor fixed); null is an open seek:
    a public table anyone may join."""

    to: Annotated[str, Meta(min_length=1, max_length=100, pattern=r"^[^\x00]*$")] | None
    rules: PresetName | CustomRules = "arcadia"
    expires_in_s: Annotated[int, Meta(ge=10, le=86400)] | None = None
    client_seed: ClientSeedText | None = None
    hints: Hints = False
    rated: bool | None = None
    clock: ClockSettings | None = None  # the match's move clock; none if omitted


class ChallengeList(msgspec.Struct, frozen=True):
    """Open challenges addressed to you or sent by you, oldest first."""

    challenges: list[TableView]


class JoinedTable(msgspec.Struct, frozen=True):
    """The table, now started, and the guest's view of the match it started."""

    table: TableView
    match: MatchResponse


class RatingChange(msgspec.Struct, frozen=True):
    """One rated match of a player: the opponent's record, the result and the rating after.
    ``opponent_player``: the opponent as seats name them (a house level by its level, not
    its record's version), with their name and rating now, so a list of them needs no
    read per opponent."""

    match_id: str
    opponent: str
    opponent_player: PlayerRef
    won: bool
    rating_before: float
    rating: float
    deviation: float
    recorded_at: str


class PlayerRating(msgspec.Struct, frozen=True):
    """A player's Glicko-2 record. ``record`` is the player's id, or for a house level its
    anchored version (``ai:hard:v1``), whose numbers never move. ``history``: the newest
    rated matches first (at most ``limit``)."""

    player_id: str
    record: str
    rating: float
    deviation: float
    volatility: float
    games: int
    provisional: bool
    anchored: bool
    history: list[RatingChange]


class LeaderboardEntry(msgspec.Struct, frozen=True):
    rank: int
    player: PlayerRef
    games: int


class Leaderboard(msgspec.Struct, frozen=True):
    """Established ratings of one kind, highest first; ``more``: another page follows
    (ask with ``offset`` + ``limit``). Provisional ratings are not listed."""

    kind: Literal["person", "bot"]
    offset: int
    entries: list[LeaderboardEntry]
    more: bool


class Health(msgspec.Struct, frozen=True):
    status: str


class Readiness(msgspec.Struct, frozen=True):
    """``behind``: the worst projection's events behind the log, as this process last
    caught up; ``projections``: each one's; ``max_behind``: past it, a 503 (0: never)."""

    status: str
    behind: int
    max_behind: int
    projections: dict[str, int]


async def strict_body(request: Request[Any, Any, Any], kind: type[T]) -> T:
    """The body decoded strictly (``0`` is not ``false``, ``"1"`` is not ``1``).

    Litestar converts bodies leniently, which would accept JSON the OpenAPI document
    calls invalid; handlers re-read the (already size-limited) body with this.
    """
    return msgspec.json.decode(await request.body(), type=kind, strict=True)
