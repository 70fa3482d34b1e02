"""The counterfactual study plays both branches of a decision on the real deck, and only that."""

from __future__ import annotations

import pytest

from benchmarks import counterfactual


@pytest.fixture(scope="module")
def branches() -> list[counterfactual.Branches]:
    return counterfactual.record("medium", "study", 3, "arcadia")


def test_it_finds_both_kinds_of_decision(branches: list[counterfactual.Branches]) -> None:
    kinds = {b.kind for b in branches}
    assert kinds == {"knock", "take"}
    for b in branches:
        if b.kind == "knock":
            assert 0 <= b.deadwood <= 10  # a knock was legal
            assert not b.melds


def test_the_branch_hard_chose_is_what_the_hand_really_scored(
    branches: list[counterfactual.Branches],
) -> None:
    # replaying the chosen branch on the same deck must reproduce the hand exactly
    for b in branches:
        assert (b.yes if b.chose_yes else b.no) == b.actual


def test_the_other_branch_is_really_played_differently(
    branches: list[counterfactual.Branches],
) -> None:
    assert any(b.yes != b.no for b in branches)
    lines = counterfactual.report(branches)
    assert lines[0].startswith("knock:") and any(line.startswith("take:") for line in lines)
