"""A spectator's page keeps its "N spectators watching" current.

From a QA of two people on two server processes: a spectator on one process read "1
spectator watching" for as long as it stayed, while a second spectator on the other
process had come (the server counted two), since the count was read once as the page
opened and no frame says who comes or goes. Here on one server process, where it was the
same: the second spectator is a bare watch socket, the first a real headless Chromium.
"""

from __future__ import annotations

from playwright.sync_api import Page
from websockets.sync.client import connect

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    site,
)
from tests.e2e.test_page_watch_score import seated

COUNT = "[data-testid=spectators]"


def test_the_spectator_count_follows_who_comes_and_goes(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    _, _, match_id = seated(site, "Kay Played", "Lou Played")
    page.goto(f"{site}/#/watch/{match_id}")
    page.wait_for_selector(f"{COUNT}:has-text('1 spectator watching')")

    url = f"{site.replace('http', 'ws', 1)}/v1/matches/{match_id}/watch"
    with connect(url) as second:
        second.recv(timeout=10)  # its snapshot: it counts now
        page.wait_for_selector(f"{COUNT}:has-text('2 spectators watching')")
    page.wait_for_selector(f"{COUNT}:has-text('1 spectator watching')")  # it left
