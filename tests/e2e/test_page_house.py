"""The start screen starts a match between two house AIs and opens its watch screen, in
headless Chromium against a real server: two levels chosen on the page's own form, the
rules chosen above it, and the match then plays on while the page shows only what a
spectator may see."""

from __future__ import annotations

import json
import re

import httpx
from playwright.sync_api import Page

from domain.cards import DECK
from tests.e2e.test_page import browser, page, site, wait_until  # noqa: F401 (fixtures)

CARDS = frozenset(DECK)


def test_two_computers_are_started_and_watched_from_the_start_screen(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    page.goto(f"{site}/")
    page.click("[data-testid=watch-house]")  # no name yet: said, and nothing started
    page.wait_for_selector("#toast:has-text('the match is started in it, though you hold no seat')")
    assert page.evaluate("document.activeElement.id") == "name"  # the keyboard is where it goes
    assert page.evaluate("localStorage.getItem('ginrummy.player')") is None
    page.fill("#name", "Watcher")
    page.select_option("#preset", "classic")
    page.select_option("#house-level-0", "random")
    page.select_option("#house-level-1", "baseline")
    page.click("[data-testid=watch-house]")
    page.wait_for_selector("body[data-screen=watch] [data-testid=watch-score]")
    found = re.fullmatch(r"#/watch/([0-9a-f]{32})", page.evaluate("location.hash"))
    assert found, page.evaluate("location.hash")
    match_id = found.group(1)
    heading = page.inner_text("#watch h1")
    assert heading == "Watching: Computer (random) against Computer (baseline)", heading
    # The match goes on by itself, one paced decision at a time, and the page follows it.
    first = int(page.evaluate("document.body.dataset.version"))
    wait_until(page, f"Number(document.body.dataset.version) > {first + 2}")
    # A spectator's page: no hand is drawn, and the one card face is the pile's top.
    token = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))["token"]
    spectator = httpx.get(f"{site}/v1/matches/{match_id}/spectator").json()
    assert page.query_selector("#hand [data-card]") is None
    shown_faces = set(page.eval_on_selector_all("#watch [data-card]", "els => els.map(e => e.dataset.card)"))  # fmt: skip
    assert shown_faces <= CARDS and len(shown_faces) <= 1  # at most the pile's top card
    assert (
        spectator["seats"][0]["id"] == "ai:random" and spectator["seats"][1]["id"] == "ai:baseline"
    )
    assert spectator["view"]["rules"]["name"] == "classic", spectator["view"]["rules"]
    # The browser's player is its host: the match is in its list, watched, not played.
    listed = httpx.get(f"{site}/v1/matches", headers={"Authorization": f"Bearer {token}"}).json()
    row = next(m for m in listed["matches"] if m["match_id"] == match_id)
    assert row["watching"] is True
    # Back on the start screen the two levels chosen are remembered.
    page.click("#nav-new")
    page.wait_for_selector("body[data-screen=start]")
    assert page.input_value("#house-level-0") == "random"
    assert page.input_value("#house-level-1") == "baseline"
    link = page.wait_for_selector("#resume:not([hidden]) [data-testid=resume-match]")
    assert link is not None and link.get_attribute("href") == f"#/watch/{match_id}"
