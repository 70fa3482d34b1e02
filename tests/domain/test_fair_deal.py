"""A deal nobody can choose: seeds, practice, hints and the verifier, in the domain.

A fair match's decks come from the server seed over both client seeds; a match with
one seed (older, or practice) keeps the old derivation, so old logs replay unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
import random

import msgspec
import pytest

from domain import errors
from domain.commands import StartMatch
from domain.deck import deal_salt, first_dealer, shuffled_deck
from domain.events import (
    Dealt,
    Event,
    HandScored,
    MatchSettled,
    MatchStarted,
    decode_event,
    encode_event,
)
from domain.match import apply, fold
from domain.rules import PRESETS, make_rules
from domain.seeds import ClientSeed
from domain.state import MatchState
from domain.verify import UNPROVABLE, problems
from domain.views import player_view
from tests.domain.builders import random_command

SERVER_SEED = "ab" * 32
COMMITTED_MS = 1_000


def fair_start(
    seeds: tuple[str, str] = ("alice-1", "bob-2"),
    rules: str = "arcadia",
    hints: bool = False,
    at_ms: int = 2_000,
) -> StartMatch:
    return StartMatch(
        match_id="m1",
        players=("alice", "bob"),
        rules=make_rules(rules) if rules in PRESETS else make_rules("arcadia", target=10),
        seed=SERVER_SEED,
        client_seeds=(
            ClientSeed(seed=seeds[0], by="alice", at_ms=at_ms),
            ClientSeed(seed=seeds[1], by="bob", at_ms=at_ms),
        ),
        seed_committed_ms=COMMITTED_MS,
        hints=hints,
    )


def played_out(start: StartMatch, seed: int = 5) -> tuple[MatchState, list[Event]]:
    """The whole match, played by random legal commands that prefer ending hands."""
    rng = random.Random(seed)
    state, log = apply(None, start)
    while state.settlement is None:
        state, events = apply(state, random_command(state, rng, prefer_knock=0.9))
        log += events
    return state, log


def test_a_fair_deck_is_an_hmac_of_the_server_seed_over_both_client_seeds() -> None:
    state, events = apply(None, fair_start())
    dealt = events[1]
    assert isinstance(dealt, Dealt)
    client = ("alice-1", "bob-2")
    assert dealt.deck == shuffled_deck(SERVER_SEED, 1, client)
    key = hashlib.sha256  # the documented construction, written out
    assert dealt.salt == hmac.new(SERVER_SEED.encode(), b"salt:1:alice-1:bob-2", key).digest().hex()
    assert (
        dealt.dealer == hmac.new(SERVER_SEED.encode(), b"dealer:alice-1:bob-2", key).digest()[0] & 1
    )
    # either client seed changes the deck: neither seat alone fixes it
    other = apply(None, fair_start(("alice-1", "bob-3")))[1][1]
    assert isinstance(other, Dealt) and other.deck != dealt.deck
    assert state.client_seeds == client and not state.practice


def test_a_single_seed_deals_as_before_and_is_practice() -> None:
    start = StartMatch(match_id="m", players=("a", "b"), rules=PRESETS["arcadia"], seed="old")
    state, events = apply(None, start)
    assert isinstance(events[1], Dealt)
    assert events[1].deck == shuffled_deck("old", 1)
    assert events[1].salt == hashlib.sha256(b"salt:1:old").digest().hex()
    assert events[1].dealer == hashlib.sha256(b"dealer:old").digest()[0] & 1
    assert state.practice and isinstance(events[0], MatchStarted) and events[0].practice
    # known answers, computed with domain/deck.py as it was before client seeds
    assert "".join(shuffled_deck("old", 1)).startswith("KD7C9S5H2D3S6S3CTD7H4DJS")
    assert "".join(shuffled_deck("old", 2)).startswith("9SKH4HQH7S2D5H6CADAH")
    assert deal_salt("old", 3) == "8474ed6f127d8130d06f50ee072ebc57ebccac665141c68f4a7c4b8ddbabdbd6"
    assert first_dealer("old") == 0


def test_custom_rules_make_a_fair_match_practice() -> None:
    assert not apply(None, fair_start())[0].practice
    assert apply(None, fair_start(rules="custom"))[0].practice


def test_an_event_recorded_before_fair_deals_replays_unchanged() -> None:
    old = b'{"type":"match_started","match_id":"m","players":["a","b"],"rules":{},"seed_commitment":"c","seed":"s"}'
    event = decode_event(old)
    assert isinstance(event, MatchStarted)
    assert (event.practice, event.hints, event.client_seeds) == (False, True, None)
    state = fold([event])
    assert state.hints and not state.practice and state.client_seeds is None
    assert first_dealer("s", state.client_seeds) == first_dealer("s")
    assert deal_salt("s", 2, None) == deal_salt("s", 2)


@pytest.mark.parametrize(
    ("seed", "by"),
    [("x" * 65, "alice"), ("", "alice"), ("a:b", "alice"), ("bad seed", "alice"), ("", "bob")],
)
def test_an_unusable_client_seed_is_refused(seed: str, by: str) -> None:
    start = msgspec.structs.replace(
        fair_start(),
        client_seeds=(ClientSeed(seed, by, 2_000), ClientSeed("fine", "bob", 2_000)),
    )
    with pytest.raises(errors.InvalidClientSeed):
        apply(None, start)


def test_a_client_seed_given_before_the_commitment_is_refused() -> None:
    with pytest.raises(errors.InvalidClientSeed, match="before the server committed"):
        apply(None, fair_start(at_ms=COMMITTED_MS - 1))


def test_a_house_seat_adds_an_empty_seed() -> None:
    start = msgspec.structs.replace(
        fair_start(),
        client_seeds=(ClientSeed("mine", "alice", 2_000), ClientSeed("", "house", 2_000)),
    )
    state, _ = apply(None, start)
    assert state.client_seeds == ("mine", "")


def test_advice_is_given_only_where_the_match_allows_hints() -> None:
    for hints in (False, True):
        state, _ = apply(None, fair_start(hints=hints))
        rng = random.Random(1)
        while not (state.hand and state.hand.phase == "discard"):
            state, _ = apply(state, random_command(state, rng))
        seat = state.hand.turn
        view = player_view(state, seat)
        assert (view.best_discard is not None) == hints
        assert view.hints == hints and not view.practice
        assert player_view(state, seat, advice=True).best_discard is not None  # the house's


def test_the_verifier_proves_a_finished_fair_match() -> None:
    _, log = played_out(fair_start())
    assert sum(isinstance(e, HandScored) for e in log) >= 1
    assert problems(log) == []
    assert problems(log, saved_commitment="0" * 64) == [
        "the match used another server seed than the one committed to you"
    ]


def test_the_verifier_fails_on_one_changed_card_or_seed_character() -> None:
    _, log = played_out(fair_start())
    scored = next(i for i, e in enumerate(log) if isinstance(e, HandScored))
    event = log[scored]
    assert isinstance(event, HandScored)
    deck = list(event.deck)
    deck[7] = deck[8]  # one card changed
    changed = [*log]
    changed[scored] = msgspec.structs.replace(event, deck=tuple(deck))
    assert any("revealed deck" in p for p in problems(changed))

    settled = len(log) - 1
    end = log[settled]
    assert isinstance(end, MatchSettled)
    changed = [*log]
    changed[settled] = msgspec.structs.replace(end, seed="c" + end.seed[1:])
    assert "the revealed server seed does not match its commitment" in problems(changed)

    started = log[0]
    assert isinstance(started, MatchStarted) and started.client_seeds is not None
    seeds = started.client_seeds
    changed = [
        msgspec.structs.replace(
            started, client_seeds=(seeds[0], ClientSeed("bob-3", "bob", 2_000))
        ),
        *log[1:],
    ]
    assert any("commitment is not the seeds' deck" in p for p in problems(changed))


def test_the_new_fields_round_trip_through_the_log() -> None:
    _, log = played_out(fair_start(hints=True))
    again = [decode_event(encode_event(e)) for e in log]
    assert again == log
    assert fold(again).hints
    assert isinstance(log[-1], MatchSettled) and log[-1].seed == SERVER_SEED


def test_a_match_no_player_seeded_is_not_provable_though_its_decks_match() -> None:
    start = StartMatch(match_id="m", players=("a", "b"), rules=PRESETS["arcadia"], seed="old")
    _, log = played_out(start)
    assert problems(log) == [UNPROVABLE]  # the decks match the seed; nothing else is wrong
