"""The lobby shows a public table opened in another browser at once, not at its next read.

The lobby reads its lists every 5 s; it also holds the live list of public tables (WS
/v1/tables/live), whose ``table`` frame says a table opened, by anyone, as it opens. Here
the lobby's timers are stopped (Playwright's clock, paused) once its live list is up: no
read can come, so what the lobby shows came over the socket. A table of the player's own
opened in another browser shows under "Your table" as soon, when it is public; a private
one is on no socket the lobby holds (the live list leaves private tables out, and the
player stream says nothing of a table until someone is invited to it or sits at it), so
it waits for the next read. Real server, real headless Chromium; the tables are opened
over HTTP.
"""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, WebSocket

from tests.e2e.test_page import DELAY_MS, browser, run_until, site  # noqa: F401 (fixtures)
from tests.e2e.test_page_friends import auth, make_player, signed_in
from tests.e2e.test_page_match_end import page  # noqa: F401 (a tab on Playwright's clock)
from tests.e2e.test_page_rematch_live import SHOWN_WITHIN_MS


def test_public_tables_opened_elsewhere_show_at_once(site: str, page: Page) -> None:  # noqa: F811
    me, other = make_player(site, "Lena Lobby"), make_player(site, "Otis Elsewhere")
    listed: list[str] = []

    def on_socket(socket: WebSocket) -> None:
        if socket.url.endswith("/v1/tables/live"):
            socket.on("framereceived", lambda payload: listed.append(str(payload)))

    page.on("websocket", on_socket)
    signed_in(page, site, me)
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    page.wait_for_selector("[data-testid=open-table]")
    run_until(page, lambda: bool(listed), SHOWN_WITHIN_MS)
    assert listed, "the lobby holds the live list"
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)  # no read from now on

    opened = httpx.post(f"{site}/v1/tables", json={"rules": "arcadia"}, headers=auth(other))
    assert opened.status_code == 201, opened.text
    tables = "[data-testid=open-tables]"
    run_until(page, lambda: other["name"] in page.inner_text(tables), SHOWN_WITHIN_MS)
    assert other["name"] in page.inner_text(tables), "another's table shows at once"

    assert page.locator("[data-testid=waiting]").is_hidden()
    mine = httpx.post(f"{site}/v1/tables", json={"rules": "arcadia"}, headers=auth(me))
    assert mine.status_code == 201, mine.text
    run_until(page, page.locator("[data-testid=waiting]").is_visible, SHOWN_WITHIN_MS)
    assert "Public table" in page.inner_text("[data-testid=waiting]"), (
        "our own table, opened in another browser, shows under Your table at once"
    )
