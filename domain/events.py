"""Events: what happened in a match, in the past tense, frozen and tagged.

Each event has an explicit string tag (``type`` in JSON) so renaming a class never
breaks a stored event, and a schema version the store records beside it. Fields
that a seat may not see are optional: ``redact`` (in ``views``) blanks them.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from domain.cards import Card
from domain.melds import Meld
from domain.rules import Clock, Rules
from domain.seeds import ClientSeed

Seat = int
DrawSource = Literal["stock", "discard"]
KnockKind = Literal["knock", "gin", "big_gin"]
HandOutcome = Literal["knock", "undercut", "gin", "big_gin"]
WashReason = Literal["stock", "no_progress"]


class Event(msgspec.Struct, frozen=True, gc=False, tag_field="type", forbid_unknown_fields=True):
    """Base of every event.

    ``gc=False`` (inherited): an event is immutable data (ints, strings, tuples), so it
    can sit in no reference cycle, and a server keeps thousands of them for hours; the
    collector need not count or walk them (issue 22, the collector's pauses).
    """

    schema_version: ClassVar[int] = 1


class MatchStarted(Event, tag="match_started", frozen=True):
    """A match between two seats under a rule set; ``seed`` stays secret until settled.

    A match with a ``watch_code`` (from a private table) is watched only by those who
    give the code; it is blanked in every redacted form, as the seed is.

    With ``client_seeds`` the deal is fair (docs/fair-deal.md): ``seed`` is the server
    seed whose commitment the server published at ``seed_committed_ms``, before any
    client seed was given. Without them (older matches, and practice matches whose seed
    a player chose) ``seed`` alone fixed every deck. ``practice``: the seed was chosen
    or the rules are custom, so the match is kept out of statistics and ratings.
    ``hints``: the engine's advice is in the seats' views; older matches had it.
    ``rated`` says whether the result moves ratings (``domain.rating_policy.is_rated``
    decided it; a match recorded before ratings is unrated) and ``rated_as`` names the
    rating record each seat plays for (``ai:hard:v1`` for the house, so a later hard has
    its own). ``host``: the player who started the match without a seat, to watch it
    (two house AIs); it finds the match in its list.
    """

    match_id: str
    players: tuple[str, str]
    rules: Rules
    seed_commitment: str
    seed: str | None = None
    watch_code: str | None = None
    client_seeds: tuple[ClientSeed, ClientSeed] | None = None
    seed_committed_ms: int | None = None
    practice: bool = False
    hints: bool = True
    rated: bool = False
    rated_as: tuple[str, str] | None = None
    clock: Clock | None = None  # None: no move clock (every match before clocks)
    host: str | None = None  # None: the match's creator plays in it (every match before)


class Dealt(Event, tag="dealt", frozen=True):
    """A hand dealt from a recorded deck order, so a replay never reruns a shuffle.

    ``commitment`` is sha256 of the salt and the deck; deck and salt are revealed when
    the hand ends. ``hand`` is filled only in a seat's redacted form: its own cards.
    """

    hand_number: int
    dealer: Seat
    up_card: Card
    knock_limit: int
    commitment: str
    deck: tuple[Card, ...] | None = None
    salt: str | None = None
    hand: tuple[Card, ...] | None = None


class UpCardTaken(Event, tag="up_card_taken", frozen=True):
    seat: Seat
    card: Card


class UpCardPassed(Event, tag="up_card_passed", frozen=True):
    seat: Seat


class Drew(Event, tag="drew", frozen=True):
    """A draw; the card is blank in the opponent's view of a stock draw."""

    seat: Seat
    source: DrawSource
    card: Card | None = None


class Discarded(Event, tag="discarded", frozen=True):
    seat: Seat
    card: Card


class Knocked(Event, tag="knocked", frozen=True):
    """A knock, gin or big gin, with the knocker's melds and deadwood shown to all."""

    seat: Seat
    kind: KnockKind
    discard: Card | None
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    deadwood_points: int


class LaidOff(Event, tag="laid_off", frozen=True):
    """The defender laid a card on the knocker's meld number ``meld``."""

    seat: Seat
    card: Card
    meld: int


class HandScored(Event, tag="hand_scored", frozen=True):
    """The end of a knocked hand: both hands shown, the points, and the deck revealed."""

    hand_number: int
    outcome: HandOutcome
    knocker: Seat
    winner: Seat
    points: int
    knocker_deadwood: int
    defender_deadwood: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    knocker_melds: tuple[Meld, ...]
    defender_melds: tuple[Meld, ...]
    defender_deadwood_cards: tuple[Card, ...]
    layoffs: tuple[tuple[Card, int], ...]
    scores: tuple[int, int]
    boxes: tuple[int, int]
    deck: tuple[Card, ...]
    salt: str


class HandWashed(Event, tag="hand_washed", frozen=True):
    """A hand nobody won: no score, no box, same dealer redeals.

    ``reason`` is ``stock`` (two stock cards left and nobody knocked), the only wash
    there was before the no-progress rule and so the meaning of an event without the
    field; or ``no_progress`` (the rules' ``pile_draw_limit`` was reached).
    """

    hand_number: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    deck: tuple[Card, ...]
    salt: str
    reason: WashReason = "stock"


class HandAcknowledged(Event, tag="hand_acknowledged", frozen=True):
    """One seat has seen the hand's result; the next hand is dealt once both have.

    Two people at a table each read the result in their own time, so the faster one
    cannot deal the next hand under the other's eyes.
    """

    seat: Seat


class Resigned(Event, tag="resigned", frozen=True):
    """A seat gave the match up; ``MatchSettled`` follows at once with the other as winner."""

    seat: Seat


class TurnTimedOut(Event, tag="turn_timed_out", frozen=True):
    """The seat's time ran out: the events that follow, until its turn ends, are the
    house easy AI's moves made for it. ``between_hands``: the seat did not say it was
    ready in time, and the server says so for it (``HandAcknowledged`` follows, or
    ``Dealt`` at once when the other seat was ready already: the second "ready" is the
    deal itself)."""

    seat: Seat
    between_hands: bool = False


class MatchClaimed(Event, tag="match_claimed", frozen=True):
    """``seat`` claimed the match from an opponent who timed out three turns in a row
    (``timeouts``) or was away past the grace period (``absence``); the opponent's
    ``Resigned`` and ``MatchSettled`` follow."""

    seat: Seat
    reason: Literal["timeouts", "absence"]


class MatchSettled(Event, tag="match_settled", frozen=True):
    """Final totals: hand points, boxes, and the match (or shutout) bonus; seed revealed.

    ``resigned`` names the seat that resigned, when the match ended that way.

    ``abandoned``: the house AI settled the match standing in for both seats, each of
    which had timed out at least ``TIMEOUTS_TO_CLAIM`` turns in a row since its last move
    of its own (``domain.clock.decide_timeout`` decides it, the only place that can see
    the clock). Neither player was there to decide the result, so it moves no rating.
    Absent from a log recorded before the field: false, and such a settlement counts as
    it did.
    """

    winner: Seat
    hand_points: tuple[int, int]
    boxes: tuple[int, int]
    box_points: tuple[int, int]
    bonus: int
    bonus_kind: Literal["match", "shutout", "none"]
    totals: tuple[int, int]
    seed: str
    resigned: Seat | None = None
    abandoned: bool = False


AnyEvent = (
    MatchStarted
    | Dealt
    | UpCardTaken
    | UpCardPassed
    | Drew
    | Discarded
    | Knocked
    | LaidOff
    | HandScored
    | HandWashed
    | HandAcknowledged
    | Resigned
    | TurnTimedOut
    | MatchClaimed
    | MatchSettled
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]
    for cls in (
        MatchStarted,
        Dealt,
        UpCardTaken,
        UpCardPassed,
        Drew,
        Discarded,
        Knocked,
        LaidOff,
        HandScored,
        HandWashed,
        HandAcknowledged,
        Resigned,
        TurnTimedOut,
        MatchClaimed,
        MatchSettled,
    )
}

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyEvent)


def event_type(event: msgspec.Struct) -> str:
    """The stable tag of an event (``dealt``, ``drew``...)."""
    tag = event.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def encode_event(event: msgspec.Struct) -> bytes:
    return _encoder.encode(event)


def decode_event(data: bytes | str) -> AnyEvent:
    """An event from its JSON; raises msgspec.DecodeError/ValidationError if unknown."""
    return _decoder.decode(data)
