"""Glicko-2 against Glickman's worked example, and the rule of which matches are rated."""

from __future__ import annotations

import pytest

from domain import rating_policy as policy
from domain.rating import SCALE, Rating, expected_score, update
from domain.rules import PRESETS, make_rules

# "Example of the Glicko-2 system": a 1500/200 player beats a 1400/30 player and loses
# to a 1550/100 and a 1700/300 player in one rating period, with tau = 0.5.
PAPER_PLAYER = Rating(1500.0, 200.0, 0.06)
PAPER_RESULTS = [
    (Rating(1400.0, 30.0), 1.0),
    (Rating(1550.0, 100.0), 0.0),
    (Rating(1700.0, 300.0), 0.0),
]


def test_the_papers_worked_example_to_its_printed_precision() -> None:
    after = update(PAPER_PLAYER, PAPER_RESULTS, tau=0.5)
    mu, phi = (after.rating - 1500.0) / SCALE, after.deviation / SCALE
    assert round(mu, 4) == -0.2069  # the paper's step 7, on the Glicko-2 scale
    assert round(phi, 4) == 0.8722
    # The paper's r' = 1464.06 is step 8 applied to its rounded mu' (-0.2069); unrounded
    # arithmetic gives 1464.05, within the paper's last printed digit.
    assert round(1500.0 + SCALE * round(mu, 4), 2) == 1464.06
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.deviation, 2) == 151.52
    # sigma' = 0.059996; the paper prints its first five decimals, 0.05999
    assert f"{after.volatility:.6f}"[:7] == "0.05999"
    assert after.volatility == pytest.approx(0.059996, abs=1e-6)


def test_an_idle_period_only_widens_the_deviation() -> None:
    after = update(PAPER_PLAYER, [])
    assert after.rating == PAPER_PLAYER.rating
    assert after.volatility == PAPER_PLAYER.volatility
    assert 200.0 < after.deviation < 201.0  # sqrt(phi^2 + sigma^2), on the Glicko scale


def test_a_win_raises_a_loss_lowers_and_both_narrow_the_deviation() -> None:
    newcomer, house = Rating(), Rating(1500.0, 25.0, 0.0)
    won, lost = update(newcomer, [(house, 1.0)]), update(newcomer, [(house, 0.0)])
    assert won.rating > 1500.0 > lost.rating
    assert round(won.rating - 1500.0, 6) == round(1500.0 - lost.rating, 6)  # symmetric
    assert won.deviation < 350.0 and lost.deviation < 350.0


def test_expected_score_is_a_probability_that_favours_the_stronger() -> None:
    strong, weak = Rating(1700.0, 50.0), Rating(1500.0, 50.0)
    assert 0.5 < expected_score(strong, weak) < 1.0
    assert expected_score(strong, weak) + expected_score(weak, strong) == pytest.approx(1.0)
    assert expected_score(weak, weak) == pytest.approx(0.5)
    # more uncertainty, a bolder rating difference is believed less
    assert expected_score(Rating(1700.0, 300.0), weak) < expected_score(strong, weak)


def test_only_unseeded_standard_matches_between_rated_seats_are_rated() -> None:
    people = ("alice", "bob")
    assert policy.is_rated(people, PRESETS["arcadia"], seed_chosen=False)
    assert policy.is_rated(("alice", "ai:hard"), PRESETS["classic"], seed_chosen=False)
    assert not policy.is_rated(people, PRESETS["arcadia"], seed_chosen=True)
    assert not policy.is_rated(people, PRESETS["arcadia"], seed_chosen=False, requested=False)
    assert not policy.is_rated(people, make_rules("arcadia", target=10), seed_chosen=False)
    assert not policy.is_rated(("alice", "ai:random"), PRESETS["arcadia"], seed_chosen=False)
    assert not policy.is_rated(("alice", "alice"), PRESETS["arcadia"], seed_chosen=False)


def test_every_current_house_version_has_an_anchor_and_records_are_versioned() -> None:
    for level, version in policy.HOUSE_VERSIONS.items():
        record = policy.rating_id(f"ai:{level}")
        assert record == f"ai:{level}:v{version}"
        assert policy.is_anchored(record)
        assert policy.player_of_record(record) == f"ai:{level}"  # read backwards
    assert policy.player_of_record("ai:hard:v1") == "ai:hard"  # an older record too
    assert policy.rating_id("some-player") == "some-player"
    assert policy.player_of_record("some-player") == "some-player"
    assert not policy.is_anchored("some-player")
    assert policy.rating_id("ai:random") is None


def test_a_newcomer_is_provisional_until_the_deviation_falls_below_the_threshold() -> None:
    assert policy.is_provisional(Rating())
    assert not policy.is_provisional(Rating(deviation=policy.PROVISIONAL_DEVIATION - 1))
