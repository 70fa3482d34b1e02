"""A challenge that comes while the page is off the lobby is noticed there.

The lobby lists the challenges for the player and its player stream says when one
comes, but off the lobby that stream stays shut (it counts as presence in every match of
the player): a person challenged at the start screen, or at a match against the
computer, never heard of it. Off the lobby the page reads GET /v1/challenges every 15 s
(js/challengenotice.js); Playwright's clock runs those 15 s at once. Real server, real
headless Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    checked_tab,
    site,
    start_from_the_form,
    tour_dismissed,
    wait_until,
)
from tests.e2e.test_page_a11y_screens import LOW_CONTRAST
from tests.e2e.test_page_lobby import enter_lobby
from tests.e2e.test_page_off_lobby import Streams, api_player, clocked  # noqa: F401 (fixtures)
from tests.e2e.test_page_phone import PHONE

EVERY_MS = 15_000  # js/challengenotice.js
NOTICE = "[data-testid=challenge-notice]"
ISOLATES = str.maketrans("", "", "\u2066\u2067\u2068\u2069")  # names.js's isolate()


def text(page: Page, selector: str) -> str:
    """What ``selector`` shows, without the marks that isolate a name's direction."""
    return page.inner_text(selector).translate(ISOLATES)


def challenged(page: Page, challenger: httpx.Client) -> str:
    """``challenger`` challenges the player ``page`` signed in; the challenge's id."""
    me = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))["id"]
    sent = challenger.post("/v1/challenges", json={"to": me, "rules": "arcadia"})
    assert sent.status_code == 201, sent.text
    table_id: str = sent.json()["table_id"]
    return table_id


def read_again(page: Page) -> None:
    """The next read (15 s on) has been answered, and the page given a moment to act on it
    (a fixed wait alone could pass before the answer came, testing nothing)."""
    with page.expect_response(lambda answer: "/v1/challenges" in answer.url):
        page.clock.run_for(EVERY_MS + 1000)
    page.wait_for_timeout(300)


def noticed(page: Page) -> None:
    """The next read (15 s on) has been made, and the notice is shown."""
    page.clock.run_for(EVERY_MS + 1000)
    page.wait_for_selector(f"{NOTICE}:visible")


def signed_in_on_the_start_screen(page: Page, site: str, name: str) -> None:  # noqa: F811
    enter_lobby(page, site, name)
    page.click("#nav-new")
    page.wait_for_selector("body[data-screen=start]")


def test_a_challenge_is_noticed_off_the_lobby_and_answered_in_it(
    site: str,  # noqa: F811
    clocked: Page,  # noqa: F811
) -> None:
    streams = Streams(clocked)
    signed_in_on_the_start_screen(clocked, site, "Bo Challenged")
    ada = api_player(site, "Ada Challenges")
    challenged(clocked, ada)
    noticed(clocked)
    assert "Ada Challenges challenges you (arcadia" in text(clocked, NOTICE)
    wait_until(clocked, "document.querySelector('#said').textContent.includes('challenges you')")
    assert streams.open() == 0, "the notice must not open the player stream (it is presence)"
    assert clocked.evaluate(LOW_CONTRAST) == []

    # Told once: read again (its line in #said gone after 10 s), it is not said again.
    read_again(clocked)
    assert "challenges you" not in text(clocked, "#said")
    assert clocked.is_visible(NOTICE)

    clocked.click("[data-testid=challenge-notice-open]")
    clocked.wait_for_selector("body[data-screen=lobby]")
    clocked.wait_for_selector(
        "[data-testid=incoming] li:has-text('Ada Challenges') [data-testid=accept]"
    )
    assert not clocked.is_visible(NOTICE), "the lobby lists it: the notice goes"
    ada.close()


def test_a_cancelled_challenge_leaves_the_notice(
    site: str,  # noqa: F811
    clocked: Page,  # noqa: F811
) -> None:
    signed_in_on_the_start_screen(clocked, site, "Cy Challenged")
    dee = api_player(site, "Dee Withdraws")
    table_id = challenged(clocked, dee)
    noticed(clocked)
    assert "Dee Withdraws" in text(clocked, NOTICE)

    assert dee.post(f"/v1/challenges/{table_id}/cancel").status_code == 200
    clocked.clock.run_for(EVERY_MS + 1000)
    clocked.wait_for_selector(NOTICE, state="hidden")
    dee.close()


def test_later_puts_the_notice_aside_until_another_comes_and_signing_out_clears_it(
    site: str,  # noqa: F811
    clocked: Page,  # noqa: F811
) -> None:
    signed_in_on_the_start_screen(clocked, site, "Gil Busy")
    hal, ida = api_player(site, "Hal Challenges"), api_player(site, "Ida Challenges")
    challenged(clocked, hal)
    noticed(clocked)
    clocked.click("[data-testid=challenge-notice-later]")
    clocked.wait_for_selector(NOTICE, state="hidden")
    assert clocked.evaluate("document.activeElement.id") == "start-title"
    read_again(clocked)
    assert not clocked.is_visible(NOTICE), "put aside, it stays aside"

    challenged(clocked, ida)
    noticed(clocked)
    shown = text(clocked, NOTICE)
    assert "Ida Challenges" in shown and "Hal Challenges" not in shown, shown

    clocked.click("#nav-signout")
    clocked.click("[data-testid=signout-yes]")
    clocked.wait_for_selector(NOTICE, state="hidden")
    hal.close()
    ida.close()


def test_a_player_signed_in_in_another_tab_is_noticed_in_place_of_the_old(
    site: str,  # noqa: F811
    clocked: Page,  # noqa: F811
) -> None:
    signed_in_on_the_start_screen(clocked, site, "Jo Before")
    lea, kim = api_player(site, "Lea Challenges"), api_player(site, "Kim After")
    challenged(clocked, lea)
    noticed(clocked)

    # Kim signs in in another tab of this browser: this tab plays as Kim now.
    me = kim.get("/v1/me").json()
    token = kim.headers["Authorization"].removeprefix("Bearer ")
    other = clocked.context.new_page()
    other.goto(site)
    other.evaluate(
        "p => localStorage.setItem('ginrummy.player', JSON.stringify(p))",
        {"id": me["id"], "name": me["name"], "token": token},
    )
    clocked.wait_for_selector(NOTICE, state="hidden")  # Jo's challenge is not Kim's
    mo = api_player(site, "Mo Challenges")
    sent = mo.post("/v1/challenges", json={"to": me["id"], "rules": "arcadia"})
    assert sent.status_code == 201, sent.text
    noticed(clocked)
    assert "Mo Challenges" in text(clocked, NOTICE)
    for client in (lea, kim, mo):
        client.close()


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:  # noqa: F811
    """A phone-sized page whose timers Playwright's clock runs."""
    with checked_tab(browser, viewport=PHONE, clock=True) as tab:
        yield tab


def test_at_a_match_on_a_phone_the_notice_covers_neither_hand_nor_actions(
    site: str,  # noqa: F811
    phone: Page,
) -> None:
    phone.goto(site)
    tour_dismissed(phone)
    start_from_the_form(phone, site, "Eve Playing")
    fay = api_player(site, "Fay Challenges")
    challenged(phone, fay)
    noticed(phone)
    assert "Fay Challenges challenges you" in text(phone, NOTICE)
    notice = phone.locator(NOTICE).bounding_box()
    assert notice is not None
    for part in ("#hand", "#actions"):
        box = phone.locator(part).bounding_box()
        assert box is not None, part
        apart = (
            box["y"] >= notice["y"] + notice["height"] or notice["y"] >= box["y"] + box["height"]
        )
        assert apart, f"the notice covers {part}: {notice} over {box}"
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    fay.close()
