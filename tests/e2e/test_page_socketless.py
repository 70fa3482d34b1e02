"""Two people play while one page's WebSocket is refused (js/socketless.js).

A proxy that refuses the socket's upgrade left that page with the view it opened on: the
opponent's moves never came. In real Chromium against a real server (the fixtures of
test_page.py): Fay's page asks for its socket at an address the server answers with an
ordinary 404, as such a proxy would, until the test lets it through.
"""

from __future__ import annotations

import time

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    click_next_legal_action,
    run_until,
    settle,
    site,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated  # noqa: F401

# A match's sockets (a seat's and a spectator's) go to a path with no socket behind it
# while ``__refuseSockets`` holds (the lobby's are let through: the lobby is not this test's).
REFUSED_SOCKETS = r"""
(() => {
  const Real = window.WebSocket;
  window.__refuseSockets = true;
  window.WebSocket = class extends Real {
    constructor(url, protocols) {
      const match = /(\/v1\/matches\/[^/]+)\/(live|watch)(\?.*)?$/;
      const refused = window.__refuseSockets && match.test(String(url));
      super(refused ? String(url).replace(match, '$1/no-socket-here') : url, protocols);
    }
  };
})();
"""


def moves_made(page: Page) -> int:
    return int(page.evaluate("document.body.dataset.version") or 0)


def test_a_page_whose_socket_is_refused_still_sees_the_opponent_play(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    fay, gus, carol = pages
    for page in (fay, carol):
        page.add_init_script(REFUSED_SOCKETS)
    asked: list[float] = []  # when Fay's page asked for the match
    fay.on(
        "request",
        lambda r: (
            asked.append(time.monotonic())
            if r.method == "GET"
            and "/v1/matches/" in r.url
            and r.url.rsplit("/", 2)[-2] == "matches"
            else None
        ),
    )
    opened: list[str] = []
    fay.on(
        "websocket",
        lambda ws: (
            opened.append(ws.url) if "/v1/matches/" in ws.url and ws.url.endswith("/live") else None
        ),
    )
    enter_lobby(fay, site, "Fay Offline")
    fay.click("[data-testid=open-table]")
    fay.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(gus, site, "Gus Online")
    gus.click("[data-testid=open-tables] li:has-text('Fay Offline') [data-testid=join]")
    match_id = seated(fay, gus)
    assert not opened  # no socket of Fay's ever reached the match
    watched: list[str] = []
    carol.on("websocket", lambda ws: watched.append(ws.url))
    carol.goto(f"{site}/#/watch/{match_id}")
    carol.wait_for_selector("[data-testid=watch-score]")

    # Each plays three moves of its own; Fay's page learns of Gus's only by asking.
    turns = {"fay": 0, "gus": 0}
    told: set[str] = set()  # the narration of either page as its turn came
    deadline = time.monotonic() + 90
    while min(turns.values()) < 3:
        assert time.monotonic() < deadline, f"the play stalled after {turns}"
        acted = False
        for name, page in (("fay", fay), ("gus", gus)):
            settle(page)
            if page.get_attribute("body", "data-my-turn") == "true" and page.get_attribute(
                "body", "data-phase"
            ) not in ("hand_over", "match_over"):
                told.add(page.inner_text("#narration"))  # what brought the turn
                click_next_legal_action(page)
                turns[name] += 1
                acted = True
        if not acted:
            fay.wait_for_timeout(100)
    assert not opened
    assert asked, "Fay's page never asked for the match"
    assert any("Gus Online" in text for text in told), told  # his moves told by name on Fay's
    assert any("Fay Offline" in text for text in told), told  # hers on his
    # Both pages show the same match at the same version once Fay's page has asked again.
    run_until(fay, lambda: moves_made(fay) == moves_made(gus), 8000)
    assert moves_made(fay) == moves_made(gus) > 0
    assert fay.evaluate("localStorage.getItem('ginrummy.match')") == match_id
    # The spectator's page, its socket refused too, follows by asking.
    run_until(carol, lambda: moves_made(carol) == moves_made(gus), 8000)
    assert moves_made(carol) == moves_made(gus)
    assert watched and all("no-socket-here" in url for url in watched), watched

    # Let the socket through: it reconnects (its back-off is at most 10 s), and the page
    # stops asking.
    fay.evaluate("window.__refuseSockets = false")
    run_until(fay, lambda: bool(opened), 15000)
    assert opened, "the socket never came back"
    fay.wait_for_timeout(1000)  # an ask already out may still be answered
    since = len(asked)
    fay.wait_for_timeout(7000)  # more than two of the socketless page's periods
    assert len(asked) == since, "the page still asks with its socket open"
