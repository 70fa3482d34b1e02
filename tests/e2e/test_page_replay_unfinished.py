"""A replay asked for while the match is played (#/replay/ID, a link kept or typed), in
headless Chromium against a real server: the seat reads its own events, but the server
has no replay until the match is over. The screen drew the replay's controls and the
deal ("Event 2 of 2") under a red error; it says the match is still played, with the
way back to it."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.test_page import browser, site  # noqa: F401 (fixtures)
from tests.e2e.test_page_chat import pages, seated_pair, sign_in  # noqa: F401


def test_a_match_still_played_has_no_replay_screen_but_the_way_back(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    alice = pages[0]
    a, _, match_id = seated_pair(site, "Alice Early", "Bob Early")
    sign_in(alice, site, a, match_id)
    alice.goto(f"{site}/#/replay/{match_id}")
    alice.wait_for_selector("body[data-screen=replay] [data-testid=replay-not-finished]")
    assert alice.query_selector("[data-testid=replay-position]") is None
    assert alice.is_hidden("#toast")
    alice.click("[data-testid=replay-not-finished] a")
    alice.wait_for_selector("body[data-screen=table] [data-testid=hand] [data-card]")
