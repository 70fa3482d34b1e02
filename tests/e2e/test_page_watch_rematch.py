"""A spectator watching a match its players play again is led to the rematch. Found by
QA: the watch screen stayed on the finished match. Two people play through the API; a
spectator's page (real headless Chromium) follows them."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    site,
)
from tests.e2e.test_page_watch_score import seated


def test_the_watch_screen_links_to_the_rematch(site: str, page: Page) -> None:  # noqa: F811
    ada, bob, match_id = seated(site, "Ada Again", "Bob Again")

    page.goto(f"{site}/#/watch/{match_id}")
    page.wait_for_selector("[data-testid=watch-score]")
    resigned = bob.post(f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}})
    assert resigned.status_code == 200, resigned.text
    page.wait_for_selector("[data-testid=watch-over]")
    assert page.locator("[data-testid=watch-rematch]").count() == 0  # nothing offered yet
    assert ada.post(f"/v1/matches/{match_id}/rematch").status_code == 200
    accepted = bob.post(f"/v1/matches/{match_id}/rematch")
    assert accepted.status_code == 200, accepted.text
    rematch = accepted.json()["match_id"]

    link = page.wait_for_selector("[data-testid=watch-rematch] a", timeout=20_000)
    assert link is not None and link.get_attribute("href") == f"#/watch/{rematch}"
    link.click()
    page.wait_for_function(f"location.hash === '#/watch/{rematch}'")
    page.wait_for_selector("body[data-phase]:not([data-phase=match_over])")
    assert "Ada Again" in page.inner_text("[data-testid=watch-score]")
    assert page.locator("[data-testid=watch-over]").count() == 0
    for client in (ada, bob):
        client.close()
