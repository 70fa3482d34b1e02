"""``server.renames``: who follows a player's name is woken by its renames, here or heard
from another process, and by nothing else; a lost NOTIFY wakes everyone, not too often."""

from __future__ import annotations

import asyncio

import pytest

from server import renames as renames_module
from server.renames import Renames


def test_a_rename_wakes_its_players_followers_and_those_of_anyone_only() -> None:
    renames = Renames()
    woken: list[tuple[str, str | None]] = []
    stop_ada = renames.follow(lambda who: woken.append(("ada's", who)), ["ada", "bob"])
    renames.follow(lambda who: woken.append(("carl's", who)), ["carl"])
    renames.follow(lambda who: woken.append(("lobby", who)))
    renames.told("bob")
    renames.heard("carl")  # another process's
    renames.heard("")  # a payload that names nobody wakes nobody
    assert sorted(woken) == [("ada's", "bob"), ("carl's", "carl"), ("lobby", "bob"), ("lobby", "carl")]  # fmt: skip
    woken.clear()
    stop_ada()
    renames.told("ada")
    assert woken == [("lobby", "ada")]
    assert renames.followers() == 2


def test_a_broken_follower_keeps_the_news_from_no_other() -> None:
    renames = Renames()
    woken: list[str | None] = []

    def broken(who: str | None) -> None:
        raise RuntimeError("a socket gone wrong")

    renames.follow(broken, ["ada"])
    renames.follow(woken.append, ["ada"])
    renames.told("ada")
    assert woken == ["ada"]


async def test_a_lost_notify_wakes_everyone_at_most_once_a_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(renames_module, "LOOK_AGAIN_GAP_S", 0.3)
    renames = Renames()
    woken: list[str | None] = []
    renames.follow(lambda who: woken.append(who), ["ada"])
    renames.follow(lambda who: woken.append(who))
    renames.heard(None)
    assert woken == [None, None]  # each follower, told to read all its names again
    for _ in range(5):  # a LISTEN session dropped again and again within the gap
        renames.heard(None)
    assert woken == [None, None]
    await asyncio.sleep(0.45)
    assert woken == [None] * 4  # once more as the gap ended, for all asked meanwhile


def test_a_process_skips_its_own_notify_which_it_told_already() -> None:
    """Each wake is a read per follower: the renaming process's followers, told as the
    rename committed, must not read again when its own NOTIFY comes back."""
    here, there = Renames(), Renames()
    woken: list[str | None] = []
    here.follow(woken.append, ["ada"])
    here.told("ada")  # as Players.rename's on_renamed does
    here.heard(f"{here.origin} ada")  # its own NOTIFY, heard back
    assert woken == ["ada"]
    here.heard(f"{there.origin} ada")  # another process's rename
    here.heard("ada")  # a process of the release before, whose payload is the id alone
    assert woken == ["ada"] * 3
