"""What the table tells a screen reader once, when it happens, and the way past the
header: the no-progress note, the player's own time running low, and the skip link.

In Debian's headless Chromium against a real server (the fixtures of test_page.py); what
a screen reader is told is recorded from the live regions (test_page_a11y's recorder).
The claim notice, said once as it appears, is tested in test_page_claim.py (it needs a
server with a short absence grace).
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_a11y import LIVE_RECORDER, focused, said
from tests.e2e.test_page_layout import new_match, open_match, sign_in


def told(tab: Page, words: str) -> list[str]:
    """The lines a screen reader was told that contain ``words``."""
    return [text for _, text in said(tab) if words in text]


def test_the_no_progress_note_is_said_once_when_it_appears(site: str, page: Page) -> None:  # noqa: F811
    """The note came on the table silently (a line shown, in no live region): it is said
    once, when the hand comes near the limit, and not again at each redraw after."""
    # Three face-up takes wash the hand: the first take brings the note. The seed's
    # dealer is the computer, so the player has the up-card first.
    player, match_id = new_match(
        site, "Pia", "a11y-no-progress-1", {"preset": "arcadia", "pile_draw_limit": 3}
    )
    page.add_init_script(LIVE_RECORDER)
    sign_in(page, site, player, {"tourSeen": True})
    open_match(page, site, match_id)
    assert page.get_attribute("body", "data-phase") == "up_card"
    assert page.get_attribute("body", "data-my-turn") == "true"
    assert page.locator("[data-testid=no-progress-note]").is_hidden()
    assert told(page, "No progress") == []
    page.keyboard.press("t")
    page.wait_for_selector("[data-testid=no-progress-note]:not([hidden])")
    settle(page)
    note = page.inner_text("[data-testid=no-progress-note]")
    assert told(page, "No progress") == [note]
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "d"):  # redraws; the AI plays on
        page.keyboard.press(key)
    page.wait_for_timeout(300)
    settle(page)
    assert len(told(page, "No progress")) == 1, said(page)


def clocked_match(base: str, name: str, clock: dict[str, int]) -> tuple[dict[str, Any], str]:
    """A new player's match against the easy AI, under ``clock``."""
    player: dict[str, Any] = httpx.post(f"{base}/v1/players", json={"name": name}).json()
    started = httpx.post(
        f"{base}/v1/matches",
        json={"level": "easy", "clock": clock},
        headers={"Authorization": f"Bearer {player['token']}"},
    )
    assert started.status_code == 201, started.text
    return player, started.json()["match_id"]


def test_the_players_own_time_running_low_is_said_once(site: str, page: Page) -> None:  # noqa: F811
    """The countdown is no live region (read every second it would drown the rest), so a
    screen reader user was never told their time was short: 10 s before a move's time is
    up, or as the bank drops under 30 s, it is said once, on the player's own turn."""
    page.add_init_script(LIVE_RECORDER)
    # 16 s a move: the notice comes 6 s into the turn, so a page slow to open on a loaded
    # machine (over 2 s, seen in CI with 12 s) has not passed it yet.
    player, match_id = clocked_match(site, "Tam", {"per_move_ms": 16_000})
    sign_in(page, site, player, {"tourSeen": True})
    open_match(page, site, match_id)
    assert page.get_attribute("body", "data-my-turn") == "true"
    assert told(page, "seconds left") == []
    wait_until(page, "window.__said.some(([, t]) => t.includes('seconds left'))", timeout=10000)
    page.wait_for_timeout(1000)  # the countdown goes on: said once
    assert told(page, "seconds left") == ["Under 10 seconds left for your move."], said(page)

    player, match_id = clocked_match(site, "Bea", {"bank_ms": 36_000, "increment_ms": 1000})
    sign_in(page, site, player, {"tourSeen": True})
    open_match(page, site, match_id)
    assert told(page, "bank") == []
    wait_until(page, "window.__said.some(([, t]) => t.includes('bank'))", timeout=10000)
    page.wait_for_timeout(1000)
    assert told(page, "bank") == ["Your time bank is under 30 seconds."], said(page)


def test_a_skip_link_is_the_first_tab_stop(site: str, page: Page) -> None:  # noqa: F811
    """Past the header's six links to the screen shown, with one key: the first Tab stop,
    seen when it has the focus (not before), and it leaves the route as it was."""
    page.goto(f"{site}/")
    page.wait_for_selector("body[data-screen=start]")
    link = page.locator("[data-testid=skip-link]")
    hidden_box = link.bounding_box()
    assert hidden_box is None or hidden_box["width"] < 2, hidden_box
    page.keyboard.press("Tab")
    assert focused(page)["testid"] == "skip-link"
    box = link.bounding_box()
    assert box is not None and box["width"] > 40 and box["height"] > 15 and box["y"] >= 0, box
    assert link.inner_text() == "Skip to main content"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == ""
    assert page.evaluate("!!document.activeElement.closest('#screen-start')")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "name"

    # On the table, it goes to the table.
    player, match_id = new_match(site, "Ivo", "a11y-skip")
    sign_in(page, site, player, {"tourSeen": True})
    open_match(page, site, match_id)
    page.focus(".brand")
    page.keyboard.press("Shift+Tab")
    assert focused(page)["testid"] == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == f"#/match/{match_id}"
    assert focused(page)["onTable"]
    page.keyboard.press("Tab")
    assert focused(page)["onTable"]
