"""Bad input: every illegal command is refused with the rule it breaks, and nothing changes.

Also the contract between ``legal_commands`` and ``decide``: everything listed is
accepted, and everything accepted is listed (a Knock that is really gin, and a LayOff
without a meld number, are the two spellings of listed commands).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec
import pytest

from domain import errors
from domain.cards import DECK
from domain.commands import (
    AnySeatCommand,
    BigGin,
    Discard,
    DrawDiscard,
    DrawStock,
    FinishLayoffs,
    Gin,
    Knock,
    LayOff,
    NextHand,
    PassUpCard,
    StartMatch,
    TakeUpCard,
)
from domain.events import LaidOff
from domain.match import decide, evolve, legal_commands
from domain.rules import Rules, make_rules
from domain.state import MatchState
from tests.domain.builders import new_hand, play, random_match

KNOCKER = "AC 2C 3C 5D 5H 5S 8H 9H TH KS"
DEFENDER = "6C 7C 8C QD QH QS 2D 4D 6S 7S"


def up_card_phase(preset: str = "arcadia") -> MatchState:
    """Seat 0 (non-dealer) to take or pass JS; 3D then JH are on top of the stock."""
    return new_hand(
        preset,
        dealer=1,
        non_dealer_hand=KNOCKER,
        dealer_hand=DEFENDER,
        up_card="JS",
        stock_top="3D JH",
    )


def draw_phase() -> MatchState:
    """Both passed: seat 0 must draw from the stock."""
    return play(up_card_phase(), PassUpCard(0), PassUpCard(1))[0]


def discard_phase() -> MatchState:
    """Seat 0 drew 3D and holds eleven."""
    return play(draw_phase(), DrawStock(0))[0]


def taken_phase() -> MatchState:
    """Seat 0 took the up-card JS and must discard another card."""
    return play(up_card_phase(), TakeUpCard(0))[0]


def layoff_phase() -> MatchState:
    """Seat 0 knocked with K = 3 (3D); seat 1 may lay off."""
    return play(discard_phase(), Knock(0, "KS"))[0]


def gin_over() -> MatchState:
    """Seat 0 drew 3D, discarded it; seat 1 threw 7S; seat 0 drew JH and went gin."""
    state = play(discard_phase(), Discard(0, "3D"), DrawStock(1), Discard(1, "7S"))[0]
    return play(state, DrawStock(0), Gin(0, "KS"))[0]


def match_over() -> MatchState:
    for _state, _ in random_match(3, make_rules("arcadia", target=1), prefer_knock=1.0):
        state = _state
    assert state.settlement is not None
    return state


Case = tuple[Callable[[], MatchState], AnySeatCommand, type[errors.DomainError], str]

CASES: dict[str, Case] = {
    "wrong seat in the up-card phase": (up_card_phase, TakeUpCard(1), errors.NotYourTurn, "turn"),
    "wrong seat to draw": (draw_phase, DrawStock(1), errors.NotYourTurn, "turn"),
    "wrong seat to discard": (discard_phase, Discard(1, "QD"), errors.NotYourTurn, "turn"),
    "no such seat": (up_card_phase, TakeUpCard(2), errors.IllegalCommand, "seat must be 0 or 1"),
    "draw in the up-card phase": (up_card_phase, DrawStock(0), errors.WrongPhase, "up_card"),
    "discard before drawing": (draw_phase, Discard(0, "KS"), errors.WrongPhase, "draw phase"),
    "knock before drawing": (draw_phase, Knock(0, "KS"), errors.WrongPhase, "draw phase"),
    "draw twice": (discard_phase, DrawStock(0), errors.WrongPhase, "discard phase"),
    "take the up-card after both passed": (
        draw_phase,
        TakeUpCard(0),
        errors.WrongPhase,
        "draw phase",
    ),
    "next hand mid-hand": (discard_phase, NextHand(0), errors.WrongPhase, "hand_over"),
    "lay off with no knock": (discard_phase, LayOff(0, "3D"), errors.WrongPhase, "layoff"),
    "finish layoffs with no knock": (draw_phase, FinishLayoffs(0), errors.WrongPhase, "layoff"),
    "discard a card not held": (discard_phase, Discard(0, "QD"), errors.CardNotInHand, "QD"),
    "knock with a card not held": (discard_phase, Knock(0, "QD"), errors.CardNotInHand, "QD"),
    "lay off a card not held": (layoff_phase, LayOff(1, "4C"), errors.CardNotInHand, "4C"),
    "discard the taken up-card": (
        taken_phase,
        Discard(0, "JS"),
        errors.CannotDiscardTakenCard,
        "just taken",
    ),
    "knock with the taken up-card": (
        taken_phase,
        Knock(0, "JS"),
        errors.CannotDiscardTakenCard,
        "just taken",
    ),
    "draw the pile after both passed": (
        draw_phase,
        DrawDiscard(0),
        errors.MustDrawFromStock,
        "draws from the stock",
    ),
    "knock over the limit": (
        discard_phase,
        Knock(0, "AC"),
        errors.OverKnockLimit,
        "knock limit is 10",
    ),
    "gin with deadwood": (discard_phase, Gin(0, "KS"), errors.NotGin, "gin needs 0"),
    "big gin in arcadia": (discard_phase, BigGin(0), errors.BigGinNotAllowed, "big gin is off"),
    "layoff that fits nothing": (
        layoff_phase,
        LayOff(1, "QD"),
        errors.LayoffDoesNotFit,
        "fits none",
    ),
    "layoff on the wrong meld": (
        layoff_phase,
        LayOff(1, "4D", 0),
        errors.LayoffDoesNotFit,
        "does not fit",
    ),
    "layoff on a meld that does not exist": (
        layoff_phase,
        LayOff(1, "4D", 7),
        errors.LayoffDoesNotFit,
        "does not fit",
    ),
    "the knocker lays off": (layoff_phase, LayOff(0, "3D"), errors.NotYourTurn, "turn"),
    "layoff against gin": (gin_over, LayOff(1, "4D"), errors.NoLayoffsAgainstGin, "gin"),
    "malformed card to discard": (discard_phase, Discard(0, "10H"), errors.InvalidCard, "10H"),
    "lower-case card to knock": (discard_phase, Knock(0, "ks"), errors.InvalidCard, "ks"),
    "malformed card to lay off": (layoff_phase, LayOff(1, "XX"), errors.InvalidCard, "XX"),
    "command after the match is over": (match_over, NextHand(0), errors.MatchOver, "over"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_illegal_command_is_refused_and_changes_nothing(name: str) -> None:
    build, command, error, words = CASES[name]
    state = build()
    before = msgspec.json.encode(state)
    with pytest.raises(error, match=words) as caught:
        decide(state, command)
    assert caught.value.rule == error.rule
    assert caught.value.rule != errors.DomainError.rule or error is errors.DomainError
    assert msgspec.json.encode(state) == before
    if command.seat in (0, 1):
        assert command not in legal_commands(state, command.seat)


def test_every_error_names_a_distinct_rule() -> None:
    family = [
        cls
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.DomainError)
    ]
    codes = [cls.rule for cls in family]
    assert len(codes) == len(set(codes))
    assert all(code and code == code.lower() for code in codes)


def test_states_are_frozen() -> None:
    state = discard_phase()
    with pytest.raises(AttributeError):
        state.scores = (1, 1)  # type: ignore[misc]
    assert state.hand is not None
    with pytest.raises(AttributeError):
        state.hand.phase = "draw"  # type: ignore[misc]


def test_start_is_refused_twice_and_play_before_start() -> None:
    start = StartMatch(match_id="m", players=("a", "b"), rules=make_rules(), seed="s")
    with pytest.raises(errors.MatchAlreadyStarted):
        decide(up_card_phase(), start)
    with pytest.raises(errors.MatchNotStarted):
        decide(None, DrawStock(0))


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"rules": Rules(knock_limit=50)}, errors.InvalidRules),
        ({"players": ("a", "")}, errors.IllegalCommand),
        ({"match_id": ""}, errors.IllegalCommand),
    ],
)
def test_a_bad_start_is_refused(change: dict[str, object], error: type[Exception]) -> None:
    fields: dict[str, object] = {
        "match_id": "m",
        "players": ("a", "b"),
        "rules": make_rules(),
        "seed": "s",
    }
    fields.update(change)
    with pytest.raises(error):
        decide(None, StartMatch(**fields))  # type: ignore[arg-type]


# --- legal_commands <-> decide ----------------------------------------------------------------


def candidate_commands(state: MatchState, seat: int) -> list[AnySeatCommand]:
    """Every command a seat could send, with every card and meld number."""
    melds = len(state.hand.knock_melds) if state.hand is not None else 0
    commands: list[AnySeatCommand] = [
        TakeUpCard(seat),
        PassUpCard(seat),
        DrawStock(seat),
        DrawDiscard(seat),
        BigGin(seat),
        FinishLayoffs(seat),
        NextHand(seat),
    ]
    for card in DECK:
        commands += [Discard(seat, card), Knock(seat, card), Gin(seat, card), LayOff(seat, card)]
        commands += [LayOff(seat, card, i) for i in range(melds)]
    return commands


def sampled_positions() -> list[MatchState]:
    """Positions from random matches, every phase represented, a bounded number.

    The states between the events of one command count too (e.g. just after a gin,
    before its score): views are computed there for the live feed.
    """
    rng = random.Random(2024)
    keep = {"draw": 0.03, "discard": 0.06}  # the common phases, sampled; the rest all kept
    positions: list[MatchState] = []
    for seed in range(8):
        rules = make_rules(("arcadia", "arkadium", "classic")[seed % 3], target=60)
        state: MatchState | None = None
        for _, events in random_match(seed, rules, prefer_knock=0.8):
            for event in events:
                state = evolve(state, event)
                if state.hand is not None and rng.random() < keep.get(state.phase, 1.0):
                    positions.append(state)
    return [*positions, just_after_gin()]


def just_after_gin() -> MatchState:
    """The state between Knocked(gin) and HandScored, which random play rarely reaches."""
    state = play(discard_phase(), Discard(0, "3D"), DrawStock(1), Discard(1, "7S"), DrawStock(0))[0]
    knocked = decide(state, Gin(0, "KS"))[0]
    after = evolve(state, knocked)
    assert after.phase == "layoff" and after.hand is not None and after.hand.knock is not None
    return after


def test_legal_commands_and_decide_agree() -> None:
    positions = sampled_positions()
    phases = {state.phase for state in positions}
    assert phases >= {"up_card", "draw", "discard", "layoff", "hand_over", "match_over"}
    assert any(s.hand and s.hand.knock and s.hand.knock.kind == "gin" for s in positions)
    for state in positions:
        for seat in (0, 1):
            legal = legal_commands(state, seat)
            for command in legal:
                decide(state, command)  # raises if a listed command is refused
            for command in candidate_commands(state, seat):
                if command in legal:
                    continue
                try:
                    events = decide(state, command)
                except errors.DomainError:
                    continue
                if isinstance(command, Knock):  # zero deadwood: the same as Gin
                    assert Gin(seat, command.card) in legal
                elif isinstance(command, LayOff) and command.meld is None:
                    laid = events[0]
                    assert isinstance(laid, LaidOff)
                    assert LayOff(seat, command.card, laid.meld) in legal
                else:
                    raise AssertionError(f"{command} accepted but not listed")
