"""History past the newest 100 finished matches, in headless Chromium against a real
server: the server answers a page at a time, and the page showed the first one with no
word of the rest."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.test_page import browser, page, served_site  # noqa: F401 (fixtures)
from tests.e2e.test_page_friends import FOCUSED, auth, make_player, resign, signed_in

FINISHED = 103  # a page of 100, then 3 more


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that lets one player start a hundred matches in a minute."""
    folder = tmp_path_factory.mktemp("history-pages")
    limits = {"GINRUMMY_RATE_CREATES_PER_PLAYER": "0", "GINRUMMY_RATE_CREATES_PER_ADDRESS": "0"}
    with served_site(folder, **limits) as url:
        yield url


def test_older_matches_are_shown_a_page_at_a_time(
    site: str,
    page: Page,  # noqa: F811
) -> None:
    ivy = make_player(site, "Ivy Regular")
    with httpx.Client(base_url=site, headers=auth(ivy), timeout=30) as client:
        started = []
        for n in range(FINISHED + 1):
            made = client.post("/v1/matches", json={"level": "easy", "seed": f"old-{n}"})
            assert made.status_code == 201, made.text
            started.append(made.json()["match_id"])
        resigning = {"action": {"type": "resign"}}  # one client for a hundred: not resign()
        for match_id in started[:FINISHED]:  # the newest one stays in play
            answer = client.post(f"/v1/matches/{match_id}/actions", json=resigning)
            assert answer.status_code == 200, answer.text
    oldest, newest_finished, playing = started[0], started[FINISHED - 1], started[-1]

    signed_in(page, site, ivy)
    page.goto(f"{site}/#/history")
    page.wait_for_selector(f"tr[data-match-id='{newest_finished}']")
    assert page.locator("[data-testid=history] tbody tr").count() == 1 + 100
    assert page.locator(f"tr[data-match-id='{playing}']").count() == 1  # in play, listed first
    assert page.locator(f"tr[data-match-id='{oldest}']").count() == 0

    # one more finishes meanwhile: the finished matches' pages move by one, and the first
    # of the next page is one already shown
    resign(site, ivy, playing)
    page.click("[data-testid=history-older]")
    page.wait_for_selector(f"tr[data-match-id='{oldest}']")
    assert page.locator("[data-testid=history] tbody tr").count() == 1 + FINISHED
    assert page.locator("[data-testid=history-older]").count() == 0  # nothing older
    # the keyboard goes on at the first match added, where the list grew
    assert page.evaluate(FOCUSED) == "opponent-link"  # its first link
    focused_row = page.evaluate("document.activeElement.closest('tr').dataset.matchId")
    assert focused_row == started[FINISHED - 101]
    ids = page.eval_on_selector_all(
        "[data-testid=history] tbody tr", "rows => rows.map((r) => r.dataset.matchId)"
    )
    assert len(set(ids)) == len(ids), ids  # none listed twice
