# ruff: noqa: F811 (the fixtures imported from test_page are parameters here)
"""Leaving the table leaves the match behind, in headless Chromium against a real server.

The page shows the AI's moves one by one, a pause before each; a player who goes to the
history in the middle of that must find a screen that stays put. The page's timers run on
Playwright's clock, paused while the moves queue up, so "in the middle" is certain and
the pauses the page would still take are run through at once, with no waiting.
"""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    settle,
    site,
    stored,
)
from tests.e2e.test_page_verify import play_out

# Every change under the table's screen from now on, as "what: where".
RECORD_TABLE_CHANGES = """
() => {
  window.tableChanges = [];
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      window.tableChanges.push(`${r.type}: ${el.id || el.tagName}`);
    }
  }).observe(document.getElementById('screen-table'),
    { subtree: true, childList: true, attributes: true, characterData: true });
}
"""


def test_a_match_left_while_its_moves_play_out_no_longer_redraws_its_table(
    site: str,
    page: Page,
) -> None:
    """Its play-out and clock stop: the hidden table is not redrawn, the page is not busy,
    and the history row keeps its Verify button (the table's result panel shows the same
    button, so a redraw there took it from the row)."""
    page.clock.install()
    page.goto(f"{site}/")
    page.fill("#name", "Lea")
    page.select_option("#preset", "arcadia")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    token, match_id = stored(page)
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    play_out(site, token, match_id)  # the socket brings every move; the page is showing them
    page.wait_for_selector("body[data-busy=true]", state="attached")

    page.goto(f"{site}/#/history")
    page.wait_for_selector("body[data-screen=history]", state="attached")
    page.evaluate(RECORD_TABLE_CHANGES)
    assert page.get_attribute("body", "data-busy") == "false"
    row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
    assert row is not None
    page.clock.run_for(60_000)  # every pause the play-out would still take, and the clock's
    assert page.evaluate("window.tableChanges") == []
    page.clock.resume()
    row.wait_for_selector("[data-testid=verify]").click()
    result = row.wait_for_selector("[data-testid=verify-result][data-verified]")
    assert result is not None and result.get_attribute("data-verified") == "true"
