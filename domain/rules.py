"""Rule sets: the three named presets of docs/rules.md and validated custom ones.

The rule set is stored whole in the match's first event, so a replay always uses
the rules the match was played under, even if a preset is retuned later.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.cards import CARD_VALUE
from domain.errors import InvalidClock, InvalidRules

WinnerBy = Literal["first_to_target", "highest_total"]


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Every parameter the presets differ in; ``None`` switches a bonus off."""

    name: str = "arcadia"
    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    big_gin_bonus: int | None = None
    box_bonus: int = 25
    target: int = 100
    match_bonus: int = 100
    shutout_bonus: int | None = None
    winner_by: WinnerBy = "first_to_target"
    oklahoma: bool = False
    # The no-progress rule: the hand is washed after this many face-up cards were taken
    # (the up-card included). ``None``, the default, is off: a match recorded before the
    # rule existed has no such field in its MatchStarted, and must replay as it was
    # played. Every preset switches it on explicitly (docs/rules.md).
    pile_draw_limit: int | None = None

    @property
    def big_gin(self) -> bool:
        return self.big_gin_bonus is not None


PILE_DRAW_LIMIT = 100  # the presets' limit; the measurements behind it are in docs/rules.md

PRESETS: dict[str, Rules] = {
    "arcadia": Rules(pile_draw_limit=PILE_DRAW_LIMIT),
    "arkadium": Rules(
        name="arkadium",
        pile_draw_limit=PILE_DRAW_LIMIT,
        gin_bonus=20,
        undercut_bonus=10,
        box_bonus=20,
        shutout_bonus=200,
    ),
    "classic": Rules(
        name="classic",
        big_gin_bonus=31,
        match_bonus=0,
        winner_by="highest_total",
        pile_draw_limit=PILE_DRAW_LIMIT,
    ),
}

_BOUNDS: dict[str, tuple[int, int]] = {
    "knock_limit": (0, 10),
    "gin_bonus": (0, 1000),
    "undercut_bonus": (0, 1000),
    "big_gin_bonus": (0, 1000),
    "box_bonus": (0, 1000),
    "target": (1, 10000),
    "match_bonus": (0, 10000),
    "shutout_bonus": (0, 10000),
    "pile_draw_limit": (1, 1000),
}
_OPTIONAL = ("big_gin_bonus", "shutout_bonus", "pile_draw_limit")


def validate(rules: Rules) -> Rules:
    """The rule set itself, or InvalidRules naming the first field out of range."""
    for field, (low, high) in _BOUNDS.items():
        value = getattr(rules, field)
        if value is None and field in _OPTIONAL:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRules(f"{field} must be an integer, got {value!r}")
        if not low <= value <= high:
            raise InvalidRules(f"{field} must be between {low} and {high}, got {value}")
    if rules.winner_by not in ("first_to_target", "highest_total"):
        raise InvalidRules(
            f"winner_by must be first_to_target or highest_total, got {rules.winner_by!r}"
        )
    if not isinstance(rules.oklahoma, bool):
        raise InvalidRules(f"oklahoma must be true or false, got {rules.oklahoma!r}")
    if not rules.name or len(rules.name) > 40:
        raise InvalidRules("name must be 1 to 40 characters")
    return rules


def make_rules(preset: str = "arcadia", **overrides: object) -> Rules:
    """A preset, optionally with single fields changed (a custom rule set), validated."""
    if preset not in PRESETS:
        raise InvalidRules(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    base = msgspec.structs.asdict(PRESETS[preset])
    unknown = set(overrides) - set(base)
    if unknown:
        raise InvalidRules(f"unknown rule field(s): {', '.join(sorted(unknown))}")
    if overrides and "name" not in overrides:
        overrides["name"] = f"{preset}+custom"
    base.update(overrides)
    try:
        rules = msgspec.convert(base, Rules, strict=True)
    except msgspec.ValidationError as exc:
        raise InvalidRules(str(exc)) from exc
    return validate(rules)


def knock_limit_for(rules: Rules, up_card: str) -> int:
    """The hand's knock limit: fixed, or under Oklahoma the up-card's value (ace: gin only)."""
    if not rules.oklahoma:
        return rules.knock_limit
    value = CARD_VALUE[up_card]
    return 0 if value == 1 else value


def is_standard(rules: Rules) -> bool:
    """Exactly one of the named presets: only such a match counts in statistics and
    ratings (a custom target of 10 is not a win to 100)."""
    return rules in PRESETS.values()


class Clock(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A move clock: ``per_move_ms`` for every turn, or a bank of ``bank_ms`` that each
    turn spends and each finished turn tops up by ``increment_ms`` (docs/rules.md)."""

    per_move_ms: int | None = None
    bank_ms: int | None = None
    increment_ms: int = 0


MAX_CLOCK_MS = 24 * 3600 * 1000
# The least time a player over a network can meet: a move is a round trip to the server
# plus a person's or a bot's decision. Under it every turn of both seats times out, the
# stand-in AI plays the whole match, and the timeouts decide who may claim it.
MIN_CLOCK_MS = 1000


def meets_the_floor(clock: Clock) -> bool:
    """Whether a recorded clock gives at least ``MIN_CLOCK_MS`` (one from before it may not)."""
    limit = clock.per_move_ms if clock.per_move_ms is not None else clock.bank_ms
    return limit is not None and limit >= MIN_CLOCK_MS


def raised_to_the_floor(clock: Clock) -> Clock:
    """A recorded clock with its time raised to ``MIN_CLOCK_MS`` where it was less: a
    rematch of a match played before the floor keeps its clock as near as it may."""
    if clock.per_move_ms is not None:
        return msgspec.structs.replace(clock, per_move_ms=max(clock.per_move_ms, MIN_CLOCK_MS))
    if clock.bank_ms is not None:
        return msgspec.structs.replace(clock, bank_ms=max(clock.bank_ms, MIN_CLOCK_MS))
    return clock


def validate_clock(clock: Clock) -> Clock:
    """Exactly one of a time per move or a bank, each from 1 s to a day.

    Only a new clock is validated (a command); a recorded one is folded as it is, so a
    match or table recorded under a smaller clock replays unchanged."""
    if clock.per_move_ms is None and clock.bank_ms is None:
        raise InvalidClock("a clock needs a time per move or a time bank; neither was given")
    if clock.per_move_ms is not None and clock.bank_ms is not None:
        raise InvalidClock("a clock has either a time per move or a time bank, not both")
    limit = clock.per_move_ms if clock.per_move_ms is not None else clock.bank_ms
    if not (isinstance(limit, int) and MIN_CLOCK_MS <= limit <= MAX_CLOCK_MS):
        raise InvalidClock(
            f"a clock's time must be at least {MIN_CLOCK_MS} ms (a move needs a round trip "
            f"and a decision) and at most a day, got {limit!r} ms"
        )
    if not (isinstance(clock.increment_ms, int) and 0 <= clock.increment_ms <= MAX_CLOCK_MS):
        raise InvalidClock("a clock's increment must be between 0 and a day")
    if clock.per_move_ms is not None and clock.increment_ms:
        raise InvalidClock("an increment belongs to a time bank, not to a time per move")
    return clock
