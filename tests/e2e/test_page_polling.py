"""The page's timers ask nothing while the tab is hidden (js/poll.js).

The live matches list, the opponent's rematch offer and a claim by absence each stopped
asking in a hidden tab; the wait for the answer to one's own rematch offer asked every
second all the same. In real Chromium against a real server (the fixtures of
test_page.py); the tab is hidden as test_page_live_matches.py hides it.
"""

from __future__ import annotations

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    run_until,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_live_matches import HIDDEN_TAB
from tests.e2e.test_page_lobby import enter_lobby, pages, seated  # noqa: F401
from tests.e2e.test_page_rematch_live import player_streams_refused_once_set

HIDE = "window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))"
SHOW = "window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))"


def test_the_wait_for_a_rematch_answer_asks_nothing_while_the_tab_is_hidden(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """With the player stream refused: the page then asks for the answer every second
    (the stream says it at once: test_page_rematch_live.py)."""
    fay, gus, _ = pages
    fay.add_init_script(HIDDEN_TAB)
    refuse_stream = player_streams_refused_once_set(fay)
    asked: list[str] = []
    fay.on(
        "request",
        lambda r: asked.append(r.url) if r.method == "GET" and r.url.endswith("/rematch") else None,
    )
    enter_lobby(fay, site, "Fay Hides")
    fay.click("[data-testid=open-table]")
    fay.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(gus, site, "Gus Waits")
    gus.click("[data-testid=open-tables] li:has-text('Fay Hides') [data-testid=join]")
    first = seated(fay, gus)
    refuse_stream.set()
    gus.click("[data-testid=resign]")
    gus.click("[data-testid=resign-confirm]")
    for tab in (fay, gus):
        tab.wait_for_selector("body[data-phase=match_over]")
    fay.click("[data-testid=rematch]")
    fay.wait_for_selector("[data-testid=rematch-mine]")
    run_until(fay, lambda: bool(asked), 2500)
    assert asked, "the wait for the answer asks while the tab is visible"
    fay.evaluate(HIDE)
    fay.wait_for_timeout(700)  # a request already out may still be answered
    before = len(asked)
    fay.wait_for_timeout(4000)
    assert len(asked) == before, asked[before:]  # nothing asked while hidden
    # Accepted while Fay looks away: shown again, her page asks at once and sits down.
    gus.wait_for_selector("[data-testid=rematch-accept]")
    gus.click("[data-testid=rematch-accept]")
    fay.wait_for_timeout(1500)
    assert len(asked) == before, asked[before:]
    fay.evaluate(SHOW)
    wait_until(fay, f"localStorage.getItem('ginrummy.match') !== '{first}'")
    assert len(asked) > before


def test_the_lobby_reads_nothing_while_the_tab_is_hidden(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """The lobby reads four lists every 5 s (challenges, tables, its own, private ones);
    in a tab nobody looked at it read them all the same, for as long as the tab was open."""
    fay, _, _ = pages
    fay.add_init_script(HIDDEN_TAB)
    asked: list[str] = []
    fay.on(
        "request",
        lambda r: asked.append(r.url) if r.method == "GET" and "/v1/challenges" in r.url else None,
    )
    enter_lobby(fay, site, "Fay Looks Away")
    run_until(fay, lambda: len(asked) >= 2, 8000)
    assert len(asked) >= 2, asked  # read at once, then 5 s later
    fay.evaluate(HIDE)
    fay.wait_for_timeout(700)  # a read already out may still be answered
    before = len(asked)
    fay.wait_for_timeout(6000)
    assert len(asked) == before, asked[before:]  # nothing read while hidden
    fay.evaluate(SHOW)
    run_until(fay, lambda: len(asked) > before, 1500)
    assert len(asked) == before + 1, asked[before:]  # shown again: read at once, once
