"""Names as long as the server takes (40 characters, none a place to break a line) in a
real Chromium page: an opponent chooses their name, so a long one must not push the
hand, the score or a list off a phone's screen. Every screen that shows the two names
(the table, a watched match, the lobby's tables, the live matches) fits 390 px without
scrolling sideways, and the live matches fit 1000 px."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    browser,
    checked_tab,
    site,
    tour_dismissed,
)
from tests.e2e.test_page_friends import auth, make_player, signed_in
from tests.e2e.test_page_layout import overflow

# The elements that reach past the window's right edge, to say which one does.
PAST_THE_EDGE = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 8).map((e) => `${e.tagName}#${e.id}.${e.className}`)"""

WIDE = "W" * 40
ALSO_WIDE = "M" * 40


def table(site: str, host: dict[str, str]) -> dict[str, Any]:  # noqa: F811
    opened = httpx.post(f"{site}/v1/tables", json={"rules": "arcadia"}, headers=auth(host))
    assert opened.status_code == 201, opened.text
    body: dict[str, Any] = opened.json()
    return body


def fits(page: Page, route: str, ready: str) -> None:
    page.evaluate(f"location.hash = {route!r}")
    page.wait_for_selector(ready)
    page.wait_for_timeout(300)  # what the screen reads from the server is drawn
    wide = page.evaluate(PAST_THE_EDGE)
    assert overflow(page) == 0, f"{route} scrolls sideways by {overflow(page)} px: {wide}"


def test_long_names_fit_a_phone(site: str, browser: Browser) -> None:  # noqa: F811
    host, guest = make_player(site, WIDE), make_player(site, ALSO_WIDE)
    first = table(site, host)
    joined = httpx.post(f"{site}/v1/tables/{first['table_id']}/join", json={}, headers=auth(guest))
    assert joined.status_code == 200, joined.text
    match_id = joined.json()["match"]["match_id"]
    table(site, host)  # another, open in the lobby
    for width in (390, 1000):
        context = browser.new_context(viewport={"width": width, "height": 844})
        page = context.new_page()
        try:
            signed_in(page, site, guest)
            if width == 390:
                fits(page, f"#/match/{match_id}", "#hand [data-card]")
                fits(page, f"#/watch/{match_id}", f"#watch h1 >> text={WIDE}")
                fits(page, "#/lobby", f"[data-testid=open-tables] li >> text={WIDE}")
            fits(page, "#/live", f"#live >> text={WIDE}")
        finally:
            context.close()


def test_a_name_box_takes_forty_characters_as_the_server_counts_them(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """A name's box stopped at 40 UTF-16 units (its maxlength): at 20 emoji, or 20 "é"
    typed with a combining accent, though the server takes 40 of either (it counts after
    NFC composition). It now takes 40, kept as typed, and cuts what comes after."""
    decomposed, emoji = "e\u0301" * 40, "\U0001f600" * 40
    with checked_tab(browser) as page:
        page.goto(f"{site}/")
        tour_dismissed(page)
        for typed, kept in ((decomposed + "e\u0301x", decomposed), (emoji + "\U0001f600", emoji)):
            page.fill("#name", "")
            page.click("#name")
            page.keyboard.type(typed)
            assert page.input_value("#name") == kept
        page.click("[data-testid=start]")
        page.wait_for_selector("body[data-screen=table]")
        saved = page.evaluate("JSON.parse(localStorage.getItem('ginrummy.player')).name")
        assert saved == emoji
