"""A rename shown live on the open pages, in headless Chromium against a real server: the
opponent's table (and its chat), a spectator's screen, the lobby's open tables and its
challenges name the player anew within seconds, without a reload. They showed the old name until one."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    run_until,
    site,
    wait_until,
)
from tests.e2e.test_page_chat import (  # noqa: F401
    LOG,
    answers_held,
    pages,
    said,
    seated_pair,
    sign_in,
)
from tests.e2e.test_page_friends import signed_in

NEWS_MS = 5000  # a second or two, with room for a loaded test machine
STAYED = "window.stayed === true"  # set before the rename: a reload would have cleared it


def renamed(site: str, who: dict[str, Any], name: str) -> None:  # noqa: F811
    answer = httpx.patch(
        f"{site}/v1/players/{who['id']}",
        json={"name": name},
        headers={"Authorization": f"Bearer {who['token']}"},
    )
    assert answer.status_code == 200, answer.text


def shows(selector: str, text: str) -> str:
    return f"(document.querySelector({selector!r}) || {{innerText: ''}}).innerText.includes({text!r})"  # fmt: skip


def test_the_opponent_spectators_and_the_lobby_see_a_new_name_without_a_reload(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    alice, carol, dave = pages
    a, b, match_id = seated_pair(site, "Alice Seated", "Bob Before")
    said(site, match_id, b, "good luck")
    sign_in(alice, site, a, match_id)
    carol.goto(f"{site}/#/watch/{match_id}")
    wait_until(carol, shows("[data-testid=watch-seats]", "Bob Before"))
    wait_until(alice, shows(LOG, "Bob Before: good luck"))
    assert "Bob Before" in alice.inner_text("#screen-table")

    erin = httpx.post(f"{site}/v1/players", json={"name": "Erin Before"}).json()
    opened = httpx.post(
        f"{site}/v1/tables",
        json={"rules": "arcadia"},
        headers={"Authorization": f"Bearer {erin['token']}"},
    )
    assert opened.status_code == 201, opened.text
    dee = httpx.post(f"{site}/v1/players", json={"name": "Dee Looking"}).json()
    challenged = httpx.post(
        f"{site}/v1/challenges",
        json={"to": dee["id"]},
        headers={"Authorization": f"Bearer {erin['token']}"},
    )
    assert challenged.status_code == 201, challenged.text
    heard: list[str] = []  # what dave's sockets were sent: the lobby also reads every 5 s
    dave.on("websocket", lambda ws: ws.on("framereceived", lambda data: heard.append(str(data))))
    signed_in(dave, site, {"id": dee["id"], "name": dee["name"], "token": dee["token"]})
    dave.goto(f"{site}/#/lobby")
    wait_until(dave, shows("#open-tables", "Erin Before"))
    wait_until(dave, shows("#incoming", "Erin Before"))

    for tab in (alice, carol, dave):
        tab.evaluate("() => { window.stayed = true; }")
    renamed(site, b, "Bob After")
    renamed(site, erin, "Erin After")

    wait_until(alice, shows("#screen-table", "Bob After"), NEWS_MS)
    wait_until(alice, shows(LOG, "Bob After: good luck"), NEWS_MS)
    assert "Bob Before" not in alice.inner_text("#screen-table")
    wait_until(carol, shows("[data-testid=watch-seats]", "Bob After"), NEWS_MS)
    assert "Bob Before" not in carol.inner_text("body")
    wait_until(dave, shows("#open-tables", "Erin After"), NEWS_MS)
    assert "Erin Before" not in dave.inner_text("#open-tables")
    wait_until(dave, shows("#incoming", "Erin After"), NEWS_MS)  # her challenge, too
    told = lambda: any('"challenge"' in f and "Erin After" in f for f in heard)  # noqa: E731
    run_until(dave, told, NEWS_MS)
    assert told(), "the player stream did not say the challenge again (only a poll read it)"
    for tab in (alice, carol, dave):
        wait_until(tab, STAYED)  # the news came to the open page: none was reloaded


def test_a_rename_made_while_the_sockets_are_down_is_shown_all_the_same(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """Its frame went to no socket: the pages' asks while the socket is down (the seat's
    every 3 s, the spectator's) read the new name."""
    alice, carol, _ = pages
    a, b, match_id = seated_pair(site, "Alice Offline", "Bob Offline")
    for tab in (alice, carol):
        tab.route_web_socket("**/v1/matches/**", lambda route: route.close())  # never opens
    sign_in(alice, site, a, match_id)
    carol.goto(f"{site}/#/watch/{match_id}")
    wait_until(carol, shows("[data-testid=watch-seats]", "Bob Offline"))
    assert "Bob Offline" in alice.inner_text("#screen-table")
    for tab in (alice, carol):
        tab.evaluate("() => { window.stayed = true; }")
    renamed(site, b, "Bob Back")
    wait_until(alice, shows("#screen-table", "Bob Back"), 3 * NEWS_MS)
    wait_until(carol, shows("[data-testid=watch-seats]", "Bob Back"), 3 * NEWS_MS)
    for tab in (alice, carol):
        wait_until(tab, STAYED)


# Whether the match's socket is open, asked for up to 5 s.
SOCKET_OPEN = """async () => {
  const { game } = await import('/js/matchstate.js');
  for (let i = 0; i < 100 && !(game.feed && game.feed.open); i += 1) await new Promise((done) => setTimeout(done, 50));
  return Boolean(game.feed && game.feed.open);
}"""


def test_a_rename_made_as_the_seats_socket_opens_is_shown_by_its_first_frames(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """The page names the seats from its read of the match, then opens its socket. A
    rename between the two (made here as the socket connects: the route holds it until
    the rename is answered) woke no socket, and a socket that resumes at the version read
    is sent nothing else: the table and the chat showed the old name until reloaded (the
    page asks for the match only while its socket is down). The socket's first ``seats``
    frame names the player anew, once (resumed with ``after`` at the version read, the
    socket sends no snapshot)."""
    alice = pages[0]
    a, b, match_id = seated_pair(site, "Alice Opening", "Bob Opening")
    said(site, match_id, b, "hello there")
    held: list[str] = []

    def rename_then_connect(route: Any) -> None:
        if not held:  # the first socket only: the page has read the match already
            held.append(route.url)
            renamed(site, b, "Bob Opened")
        route.connect_to_server()

    alice.route_web_socket("**/v1/matches/**", rename_then_connect)
    sign_in(alice, site, a, match_id)
    assert alice.evaluate(SOCKET_OPEN)
    alice.evaluate("() => { window.stayed = true; }")
    wait_until(alice, shows("#screen-table", "Bob Opened"), NEWS_MS)
    wait_until(alice, shows(LOG, "Bob Opened: hello there"), NEWS_MS)
    assert held, "the page opened no match socket"
    assert "Bob Opening" not in alice.inner_text("#screen-table")
    assert alice.locator(f"{LOG} li:has-text('hello there')").count() == 1  # said once
    assert alice.evaluate(SOCKET_OPEN)  # open throughout: no ask made while it was down
    wait_until(alice, STAYED)


def test_a_player_renamed_on_the_table_sees_the_new_name_there_at_once(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """Renamed from the header while at the table, the seat's own socket brings the
    ``seats`` frame before the rename's answer saves the new name in the browser (held
    here until the frame has come): the table named its own seat with the saved, old
    name, and showed "You (old name)" until the next move."""
    alice = pages[0]
    a, _, match_id = seated_pair(site, "Alice Renaming", "Bob Watching")
    sign_in(alice, site, a, match_id)
    assert alice.evaluate(SOCKET_OPEN)
    held = answers_held(alice, f"**/v1/players/{a['id']}", "PATCH")
    alice.click("[data-testid=rename]")
    alice.fill("[data-testid=rename-name]", "Alice Renamed")
    alice.click("[data-testid=rename-save]")
    run_until(alice, lambda: bool(held), NEWS_MS)
    assert held, "the rename was not sent"
    wait_until(alice, shows("[data-testid=pill-me]", "Alice Renamed"), NEWS_MS)
    for route, answer in held:
        route.fulfill(response=answer)
    alice.unroute(f"**/v1/players/{a['id']}")
    wait_until(alice, shows("#who", "Alice Renamed"), NEWS_MS)
    assert "Alice Renaming" not in alice.inner_text("#screen-table")
