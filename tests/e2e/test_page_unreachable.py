"""A table whose server is gone says so (js/socketless.js), and stops saying it once the
server is back.

From a QA of two people on two server processes: the server of one of them was killed
mid-match, and that player's page went on showing the table as last heard, the
opponent's clock at "0 s" and "Bob Q to play…", with no word that nothing could reach
the server, while the other process played the late turns for them. In real Chromium
against a real server process, stopped and started again on the same port.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.sync_api import Browser

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    restartable_site,
    start_from_the_form,
)

NOTE = "[data-testid=connection-note]"
WATCH_NOTE = "[data-testid=watch-connection-note]"


def test_a_table_whose_server_is_gone_says_so_until_it_is_back(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    with restartable_site(browser, tmp_path) as served:
        base, page = served.base, served.page
        start_from_the_form(page, base, "Grace Away")
        assert page.is_hidden(NOTE)  # a table heard live says nothing of the sort
        served.stop()
        # The socket's back-off and the socketless asks (every 3 s) find nobody.
        page.wait_for_selector(f"{NOTE}:not([hidden])")
        assert page.inner_text(NOTE).startswith("Cannot reach the server")
        assert "Cannot reach the server" in page.inner_text("#alert")  # said, once
        served.start()
        page.wait_for_selector(NOTE, state="hidden")  # an answer or the socket back
        assert page.inner_text(NOTE) == ""


def test_a_watched_match_whose_server_is_gone_says_so_until_it_is_back(
    browser: Browser,  # noqa: F811
    tmp_path: Path,
) -> None:
    """The same for a spectator, whose server process was killed as well."""
    with restartable_site(browser, tmp_path) as served:
        base, page = served.base, served.page
        created = httpx.post(f"{base}/v1/players", json={"name": "Watched Wes"}).json()
        match = httpx.post(
            f"{base}/v1/matches",
            json={"level": "easy"},
            headers={"Authorization": f"Bearer {created['token']}"},
        )
        assert match.status_code == 201, match.text
        page.goto(f"{base}/#/watch/{match.json()['match_id']}")
        page.wait_for_selector("[data-testid=watch-score]")
        assert page.is_hidden(WATCH_NOTE)
        served.stop()
        page.wait_for_selector(f"{WATCH_NOTE}:not([hidden])")
        assert page.inner_text(WATCH_NOTE).startswith("Cannot reach the server")
        served.start()
        page.wait_for_selector(WATCH_NOTE, state="hidden")
