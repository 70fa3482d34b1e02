"""The table on a phone (390x844): the actions in reach (the review of the page, item 9).

In real Chromium against a real server (the fixtures of test_page.py). Below the hand,
Discard, Knock and Gin were under the fold on every turn (their row at about 890 px);
on a narrow screen they now stay at the foot of the screen. The desktop table is as it
was: its actions sit in the page's flow, under the hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    TIMEOUT_MS,
    browser,
    screenshot,
    settle,
    shots,
    site,
    tour_dismissed,
)
from tests.e2e.test_page_layout import (
    advance_until,
    my_turn_to,
    new_match,
    open_match,
    overflow,
    sign_in,
)

PHONE = {"width": 390, "height": 844}
IN_REACH = """
(el) => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return [r.top, r.bottom, !!hit && el.contains(hit)];
}
"""


@contextmanager
def at_my_draw(
    browser: Browser,  # noqa: F811
    site: str,  # noqa: F811
    name: str,
    seed: str,
    viewport: dict[str, int],
    **device: bool,
) -> Iterator[Page]:
    """A new match's table, open in a browser of that size, seat 0 to draw: the up-card
    passed (or the first discard the engine lists made) until then."""
    context = browser.new_context(viewport=viewport, **device)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        player, match_id = new_match(site, name, seed)
        advance_until(
            site, player["token"], match_id, my_turn_to("draw"), ("pass_up_card", "discard")
        )
        sign_in(page, site, player)
        tour_dismissed(page)
        open_match(page, site, match_id)
        yield page
    finally:
        context.close()


def _reach(page: Page, testid: str) -> list[Any]:
    reach: list[Any] = page.eval_on_selector(f"#actions [data-testid={testid}]", IN_REACH)
    return reach


def test_the_actions_are_on_screen_after_drawing_on_a_phone(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    with at_my_draw(
        browser, site, "Pia", "phone-actions", PHONE, has_touch=True, is_mobile=True
    ) as page:
        top, bottom, hit = _reach(page, "draw-stock")
        assert top >= 0 and bottom <= PHONE["height"] and hit, (top, bottom)
        page.click("#actions [data-testid=draw-stock]")
        page.wait_for_selector("body[data-phase=discard][data-my-turn=true]")
        settle(page)
        for testid in ("discard", "knock", "gin", "resign"):
            top, bottom, hit = _reach(page, testid)
            assert top >= 0 and bottom <= PHONE["height"], (testid, top, bottom)
            assert hit, f"{testid} is covered"
        # Nothing widens the page past the phone (a mobile browser would then lay it out
        # wider than the screen and cut it off on the right).
        assert overflow(page) == 0 and page.evaluate("innerWidth") == PHONE["width"]
        screenshot(page, shots / "table-phone-actions.png")
        # Choosing a card from the bottom of the hand: the card is not left under the bar.
        page.locator("#hand .card.playable").last.scroll_into_view_if_needed()
        page.locator("#hand .card.playable").last.click()
        assert _reach(page, "discard")[2]


def test_the_desktop_actions_stay_in_the_flow_under_the_hand(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    with at_my_draw(
        browser, site, "Dora", "desktop-actions", {"width": 1280, "height": 800}
    ) as page:
        assert page.eval_on_selector("#actions", "el => getComputedStyle(el).position") == "static"
        hand = page.locator("#mine").bounding_box()
        actions = page.locator("#actions").bounding_box()
        assert hand and actions and actions["y"] >= hand["y"] + hand["height"]
