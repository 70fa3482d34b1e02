"""A page whose WebSockets are all refused still lists the tables, opens the match a
join starts, follows the opponent's moves and chat, and watches a match (js/socketless.js,
the lobby's read in lobbylive.js, the watch page).

A proxy that refuses the sockets' upgrade left such a page with what it read first: the
host never learnt that its table was taken, and at the table the opponent's moves never
came. In real Chromium against a real server (the fixtures of test_page.py): Fay's and
Carol's pages ask for every socket at an address the server answers with an ordinary
404, as such a proxy would, until the test lets Fay's through.
"""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    click_next_legal_action,
    run_until,
    settle,
    site,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated, token_of  # noqa: F401

# Every socket of the page goes to a path with no socket behind it while
# ``__refuseSockets`` holds.
REFUSED_SOCKETS = r"""
(() => {
  const Real = window.WebSocket;
  window.__refuseSockets = true;
  window.WebSocket = class extends Real {
    constructor(url, protocols) {
      const refused = window.__refuseSockets;
      super(refused ? String(url).replace(/^(wss?:\/\/[^/]+)\/.*$/, '$1/no-socket-here') : url, protocols);
    }
  };
})();
"""


def server_version(url: str, match_id: str, token: str) -> int:
    """The match's version as the server has it, a second after asking."""
    time.sleep(1)
    answer = httpx.get(f"{url}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"})
    version: int = answer.json()["view"]["version"]
    return version


def moves_made(page: Page) -> int:
    return int(page.evaluate("document.body.dataset.version") or 0)


def test_pages_whose_sockets_are_refused_still_meet_play_and_watch(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    fay, gus, carol = pages
    sockets: dict[str, list[str]] = {"fay": [], "carol": []}
    for name, page in (("fay", fay), ("carol", carol)):
        page.add_init_script(REFUSED_SOCKETS)
        page.on("websocket", lambda ws, name=name: sockets[name].append(ws.url))
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
    enter_lobby(fay, site, "Fay Offline")
    fay.click("[data-testid=open-table]")
    fay.wait_for_selector("[data-testid=waiting]:not([hidden])")
    # A lobby without its live list lists the open tables from its reads.
    enter_lobby(carol, site, "Carol Offline")
    carol.wait_for_selector("[data-testid=open-tables] li:has-text('Fay Offline')")
    # Without her player stream, Fay's lobby learns from its reads that Gus sat down.
    enter_lobby(gus, site, "Gus Online")
    gus.click("[data-testid=open-tables] li:has-text('Fay Offline') [data-testid=join]")
    match_id = seated(fay, gus)
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
    assert asked, "Fay's page never asked for the match"
    assert any("Gus Online" in text for text in told), told  # his moves told by name on Fay's
    assert any("Fay Offline" in text for text in told), told  # hers on his
    # Every page shows the match as the server has it (the spectator's, its socket refused
    # too, by asking) within a few of the pages' 3 s periods.
    version = server_version(site, match_id, token_of(fay))
    while (now := server_version(site, match_id, token_of(fay))) != version:  # a move on its way
        version = now
    for page in (fay, gus, carol):
        run_until(page, lambda page=page: moves_made(page) == version, 10000)
    assert [moves_made(page) for page in (fay, gus, carol)] == [version] * 3
    # Gus says something: Fay and the spectator read it without a socket.
    gus.fill("[data-testid=chat-input]", "Can you hear me, Fay?")
    gus.click("[data-testid=chat-send]")
    for page in (fay, carol):
        page.wait_for_selector("[data-testid=chat-log]:has-text('Can you hear me, Fay?')")
    for name in ("fay", "carol"):  # every socket of theirs refused so far
        assert sockets[name], name
        assert all(url.endswith("/no-socket-here") for url in sockets[name]), sockets[name]

    # Let the socket through: it reconnects (its back-off is at most 10 s), asking for the
    # chat after the message Fay has read, and the page stops asking.
    fay.evaluate("window.__refuseSockets = false")
    live = f"/v1/matches/{match_id}/live?chat_after="

    def came_back() -> bool:
        return any(live in url and not url.endswith("=0") for url in sockets["fay"])

    run_until(fay, came_back, 15000)
    assert came_back(), "the socket never came back"
    fay.wait_for_timeout(1000)  # an ask already out may still be answered
    since = len(asked)
    fay.wait_for_timeout(7000)  # more than two of the socketless page's periods
    assert len(asked) == since, "the page still asks with its socket open"
