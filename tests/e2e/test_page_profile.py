"""A player's profile (#/player/ID) in a real Chromium page against a real server: opened
from the leaderboard, from History and from the lobby's search; the rating and its rated
matches, the totals, a live match to watch, the Challenge that leads to the lobby, what a
visitor not signed in is shown, and an id nobody has."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.e2e.test_page import TIMEOUT_MS, browser, page, site  # noqa: F401  (fixtures)
from tests.e2e.test_page_friends import auth, make_player, resign, resigned_match, signed_in


def house_match(site: str, player: dict[str, str]) -> str:  # noqa: F811
    """A rated match of ``player`` against the house's easy level, in play."""
    made = httpx.post(
        f"{site}/v1/matches", json={"level": "easy", "rules": "arcadia"}, headers=auth(player)
    )
    assert made.status_code == 201 and made.json()["rated"], made.text
    match_id: str = made.json()["match_id"]
    return match_id


def resigned(site: str, player: dict[str, str]) -> str:  # noqa: F811
    """A rated match against the house, over: the player resigned it."""
    match_id = house_match(site, player)
    resign(site, player, match_id)
    return match_id


def no_toast(page: Page) -> None:  # noqa: F811
    page.wait_for_timeout(500)  # a refusal would have been shown by now
    assert page.is_hidden("#toast"), page.inner_text("#toast")


def test_the_house_level_from_the_leaderboard_and_an_opponent_from_history(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    ada = make_player(site, "Ada Profiled")
    bob = make_player(site, "Bob Profiled")
    resigned(site, ada)
    lost = resigned_match(site, bob, ada)  # Ada resigns at Bob's table: Bob won
    signed_in(page, site, ada)
    page.goto(f"{site}/#/leaderboard")
    page.click("[data-testid=board-bot]")
    page.click("[data-testid=leaderboard] tr[data-player-id='ai:easy'] a")
    page.wait_for_selector("body[data-screen=player]")
    expect(page.locator("#player h1")).to_have_text("Computer (easy)")
    expect(page.locator("[data-testid=profile-rating]")).to_have_text(re.compile(r"^\d+ ± \d+$"))
    expect(page.locator("[data-testid=profile-summary]")).to_contain_text("House AI")
    expect(page.locator("[data-testid=profile-no-history]")).to_contain_text("anchored")
    expect(page.locator("[data-testid=profile-no-stats]")).to_contain_text("keeps no totals")
    # The house level's "Play the computer" opens the start form with it chosen
    page.click("[data-testid=profile-play-level]")
    page.wait_for_selector("body[data-screen=start]")
    expect(page.locator("#level")).to_have_value("easy")
    # History names the opponent with a link to their profile: Bob's record
    page.click("#nav-history")
    page.click(f"tr[data-match-id='{lost}'] [data-testid=opponent-link]")
    page.wait_for_selector("body[data-screen=player]")
    expect(page.locator("#player h1")).to_have_text("Bob Profiled")
    expect(page.locator("[data-testid=profile-rating]")).to_contain_text("provisional")
    row = page.locator(f"[data-testid=profile-history-row][data-match-id='{lost}']")
    expect(row).to_contain_text("Ada Profiled")
    expect(row).to_contain_text("won")
    expect(row).to_contain_text(re.compile(r"1500 → \d+"))
    stats = page.locator("[data-testid=profile-stats]")
    expect(stats.locator("[data-testid=stat-won]")).to_have_text("1")
    expect(stats.locator("[data-testid=stat-lost]")).to_have_text("0")
    expect(stats).to_contain_text("Points per hand")
    expect(page.get_by_role("link", name="Challenge Bob Profiled")).to_be_visible()
    # From Bob's rated matches to Ada's own profile: her loss to the house listed too
    row.get_by_role("link", name="Ada Profiled").click()
    expect(page.locator("#player h1")).to_have_text("Ada Profiled")
    expect(page.locator("[data-testid=profile-you]")).to_be_visible()
    expect(page.locator("[data-testid=profile-history]")).to_contain_text("Computer (easy)")
    expect(page.locator("[data-testid=profile-stats] [data-testid=stat-lost]")).to_have_text("2")
    no_toast(page)


def test_a_person_found_in_the_lobby_is_playing_now_and_can_be_watched_or_challenged(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    bea = make_player(site, "Bea Playing")
    cal = make_player(site, "Cal Looking")
    live = house_match(site, bea)
    signed_in(page, site, cal)
    page.goto(f"{site}/#/lobby")
    page.fill("[data-testid=find-name]", "Bea Play")
    page.click("[data-testid=find]")
    page.click("[data-testid=found-player] [data-testid=profile-link]")
    page.wait_for_selector("body[data-screen=player]")
    expect(page.locator("#player h1")).to_have_text("Bea Playing")
    expect(page.locator("[data-testid=profile-summary]")).to_contain_text("Person")
    expect(page.locator("[data-testid=profile-live]")).to_contain_text("Computer (easy)")
    expect(page.locator("[data-testid=profile-no-history]")).to_be_visible()
    # The Challenge leads to the lobby with Bea listed to challenge, on the terms above it
    page.get_by_role("link", name="Challenge Bea Playing").click()
    page.wait_for_selector("body[data-screen=lobby]")
    found = page.locator(f"[data-testid=found-player][data-player='{bea['id']}']")
    expect(found.locator("[data-testid=challenge]")).to_be_focused()
    page.go_back()
    page.get_by_role("link", name=re.compile("^Watch Bea Playing against")).click()
    page.wait_for_selector("body[data-screen=watch]")
    assert page.evaluate("location.hash") == f"#/watch/{live}"
    no_toast(page)


def test_a_visitor_sees_the_whole_profile_but_the_challenge(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A profile's answers are public (anyone may make a guest player to read them): a
    visitor not signed in sees the rating, the rated matches, the totals and the live
    match, and is told that a name is needed to challenge; given one in the lobby, the
    player is listed to challenge."""
    dot = make_player(site, "Dot Visited")
    resigned(site, dot)
    house_match(site, dot)
    page.goto(f"{site}/#/leaderboard")
    page.click("[data-testid=board-bot]")
    page.click("[data-testid=leaderboard] tr[data-player-id='ai:easy'] a")
    expect(page.locator("#player h1")).to_have_text("Computer (easy)")
    expect(page.locator("[data-testid=profile-rating]")).to_have_text(re.compile(r"^\d+ ± \d+$"))
    expect(page.locator("[data-testid=profile-play-level]")).to_be_visible()
    page.evaluate(f"location.hash = '#/player/{dot['id']}'")
    expect(page.locator("#player h1")).to_have_text("Dot Visited")
    expect(page.locator("[data-testid=profile-rating]")).to_contain_text("provisional")
    expect(page.locator("[data-testid=profile-history-row]")).to_have_count(1)
    expect(page.locator("[data-testid=profile-history-row]")).to_contain_text("lost")
    expect(page.locator("[data-testid=profile-stats] [data-testid=stat-lost]")).to_have_text("1")
    expect(page.locator("[data-testid=profile-live] [data-testid=profile-watch]")).to_be_visible()
    expect(page.locator("[data-testid=profile-signed-out]")).to_contain_text("To challenge")
    assert page.locator("[data-testid=profile-challenge]").count() == 0
    # The lobby asks for a name, and then lists Dot to challenge (it forgot her)
    page.click("[data-testid=profile-enter-lobby]")
    page.fill("[data-testid=lobby-name]", "Eve Visitor")
    page.click("[data-testid=enter-lobby]")
    found = page.locator(f"[data-testid=found-player][data-player='{dot['id']}']")
    # A player made, then a lookup: longer than expect()'s 5 s on a loaded machine.
    expect(found.locator("[data-testid=challenge]")).to_be_focused(timeout=TIMEOUT_MS)
    expect(page.locator("[data-testid=find-name]")).to_have_value("Dot Visited")
    no_toast(page)


def test_an_id_nobody_has_is_said_in_words(site: str, page: Page) -> None:  # noqa: F811
    eve = make_player(site, "Eve Mistyped")
    signed_in(page, site, eve)
    page.goto(f"{site}/#/player/nobody-has-this-id")
    expect(page.locator("#player h1")).to_have_text("No such player")
    expect(page.locator("[data-testid=profile-unknown]")).to_contain_text("No player here")
    # an address that will not decode is looked up as typed, not left on the last screen
    page.goto(f"{site}/#/leaderboard")
    page.wait_for_selector("body[data-screen=leaderboard]")
    page.goto(f"{site}/#/player/%E0")
    page.wait_for_selector("body[data-screen=player]")
    expect(page.locator("#player h1")).to_have_text("No such player")
    no_toast(page)
