"""The page on a match abandoned by both players: "Not rated", and no rating change.

The match is written to the site's database as the server's timer would have decided it
(tests/e2e/test_abandoned.py says why: a hundred one-second turns are too slow to play).
The seat's table and the replay show it in the settlement's panel, a spectator's screen in
its line on the match's end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page

from domain.events import Event
from infra.store import open_store
from tests.e2e.test_abandoned import both_away
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    page,
    served_site,
)
from tests.e2e.test_page_friends import make_player, signed_in

NOT_RATED = "Not rated: both players were away"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("abandoned")


@pytest.fixture(scope="module")
def site(folder: Path) -> Iterator[str]:
    with served_site(folder) as url:
        yield url


async def _write(database: Path, match_id: str, events: list[Event]) -> None:
    store = await open_store(f"sqlite+aiosqlite:///{database}", migrate=False)
    try:
        await store.append(match_id, 0, events)
    finally:
        await store.close()


def test_the_page_says_an_abandoned_match_is_not_rated(
    site: str,
    folder: Path,
    page: Page,  # noqa: F811
) -> None:
    ann, bob = make_player(site, "Ann"), make_player(site, "Bob")
    match_id = "abandoned-on-the-page"
    events = both_away(match_id, (ann["id"], bob["id"]), 0)
    with ThreadPoolExecutor(1) as apart:  # the page's own event loop runs in this thread
        apart.submit(asyncio.run, _write(folder / "page.db", match_id, events)).result()
    signed_in(page, site, ann)
    for screen in ("match", "watch", "replay"):
        page.goto(f"{site}/?delay={DELAY_MS}#/{screen}/{match_id}")
        page.reload()  # a fresh page: the previous screen's panel is gone
        if screen == "replay":
            page.wait_for_selector("[data-testid=replay-board]")
            page.click("button[data-step=last]")  # the replay opens at the first event
        panel = "watch-over" if screen == "watch" else "settlement-abandoned"
        note = page.wait_for_selector(f"[data-testid={panel}]")
        assert note is not None and NOT_RATED in note.inner_text(), screen
        page.wait_for_timeout(500)  # the seat's page would have asked for its rating by now
        assert page.query_selector("[data-testid=rating-change]") is None, screen
    page.goto(f"{site}/?delay={DELAY_MS}#/history")
    result = page.wait_for_selector("[data-testid=history-result]")
    assert result is not None  # neither won nor lost, as the totals above count it
    assert result.inner_text() == "not counted: both players were away"
