"""A match between two house AIs is its host's: once over, the history offers its replay
(both hands, every event), in headless Chromium against a real server that plays house
matches unpaced, so the match is over when the page has started it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.test_page import browser, page, served_site  # noqa: F401


@pytest.fixture(scope="module")
def unpaced_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with served_site(tmp_path_factory.mktemp("unpaced"), GINRUMMY_AI_PACE_MS="0") as url:
        yield url


def test_a_finished_house_match_is_replayed_from_its_hosts_history(
    unpaced_site: str,
    page: Page,  # noqa: F811
) -> None:
    site = unpaced_site
    page.goto(f"{site}/")
    page.fill("#name", "Watcher")
    page.select_option("#preset", "classic")
    page.select_option("#house-level-0", "easy")
    page.select_option("#house-level-1", "baseline")
    page.click("[data-testid=watch-house]")
    page.wait_for_selector("body[data-screen=watch]")
    found = re.fullmatch(r"#/watch/([0-9a-f]{32})", page.evaluate("location.hash"))
    assert found, page.evaluate("location.hash")
    match_id = found.group(1)
    token = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))["token"]
    log = httpx.get(
        f"{site}/v1/matches/{match_id}/events?limit=1000",
        headers={"Authorization": f"Bearer {token}"},
    ).json()
    assert log["complete"] is True  # unpaced: played within the request that started it
    last = log["events"][-1]["version"]

    page.click("#nav-history")
    row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
    assert row is not None
    assert "two house AIs (watched)" in row.inner_text()
    assert row.query_selector("[data-testid=verify]") is None  # nobody seeded it
    row.query_selector("[data-testid=replay-link]").click()
    page.wait_for_selector("#replay[data-shown='2']")
    assert page.inner_text("[data-testid=replay-position]") == f"Event 2 of {last}"
    title = page.inner_text("[data-testid=replay-title]")
    assert title == "Replay: Computer (easy) against Computer (baseline)", title
    seats = page.query_selector_all("#replay .replay-seat")
    assert [len(s.query_selector_all(".card")) for s in seats] == [10, 10]
