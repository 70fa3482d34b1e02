"""A move that cannot be made says what to do instead (the review of the page, item 6).

In real Chromium against a real server (the fixtures of test_page.py). On the up-card
turn and the draw turn, a click on a card of the hand or the D and K keys did nothing
at all; the page now says what comes first.
"""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    api_view,
    browser,
    page,
    settle,
    site,
    tour_dismissed,
)
from tests.e2e.test_page_layout import act, new_match, open_match, sign_in


def _told(tab: Page, text: str) -> None:
    tab.wait_for_selector(f"#toast:not([hidden]):has-text('{text}')")
    tab.evaluate("document.querySelector('#toast').hidden = true")


def test_cards_and_keys_before_the_draw_say_what_comes_first(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    player, match_id = new_match(site, "Ida", "prompts")
    token = player["token"]
    view = api_view(site, token, match_id)
    for _ in range(4):  # to seat 0's up-card turn
        if view["phase"] == "up_card" and 0 in view["to_act"]:
            break
        view = act(site, token, match_id, {"type": "pass_up_card"})
    assert view["phase"] == "up_card" and 0 in view["to_act"], view["phase"]
    sign_in(page, site, player)
    tour_dismissed(page)
    open_match(page, site, match_id)
    page.click(f"#hand [data-card='{view['hand'][0]}']")
    _told(page, "Take the up-card (T) or pass (X) first.")
    page.keyboard.press("d")
    _told(page, "Take the up-card (T) or pass (X) first.")

    # Passed by both: seat 0 draws (from the stock; the pile is the passed up-card).
    page.click("[data-testid=pass]")
    page.wait_for_selector("body[data-phase=draw][data-my-turn=true]")
    settle(page)
    view = api_view(site, token, match_id)
    first = (
        "Draw first: stock (S) or pile (P)."
        if any(c["type"] == "draw_discard" for c in view["legal"])
        else "Draw first: stock (S)."
    )
    page.click(f"#hand [data-card='{view['hand'][3]}']")
    _told(page, first)
    for key in ("d", "k"):
        page.keyboard.press(key)
        _told(page, first)
    assert api_view(site, token, match_id)["version"] == view["version"]  # nothing was sent
