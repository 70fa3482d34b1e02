"""The same player on two devices, in headless Chromium against a real server: the header's
"Other device" shows a one-time code and its link, and another browser (a
context of its own: another device) that opens the link, or types the code, becomes that
player. The page kept its token in this browser's storage alone, with no way across."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    checked_tab,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_friends import make_player, signed_in

SAVED = "JSON.parse(localStorage.getItem('ginrummy.player'))"


def code_shown(page: Page, site: str, player: dict[str, str]) -> tuple[str, str]:  # noqa: F811
    """The code and link the header shows to ``player``, signed in on ``page``."""
    signed_in(page, site, player)
    page.reload()  # the header drawn for the player saved
    page.click("[data-testid=other-device]")
    code = page.wait_for_selector("[data-testid=signin-code]").inner_text()
    link = page.get_attribute("[data-testid=signin-link]", "href") or ""
    assert link == f"{site}/#/sign-in/{code}", link
    assert page.inner_text("[data-testid=signin-link]") == link
    assert "works once" in page.inner_text("[data-testid=signin-expiry]")
    return code, link


def test_another_device_opens_the_link_and_becomes_the_same_player(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ada = make_player(site, "Ada Laptop")
    _, link = code_shown(page, site, ada)
    page.click("[data-testid=signin-close]")
    assert page.is_hidden("[data-testid=device-panel]")

    with checked_tab(browser) as phone:
        phone.goto(link)
        # nothing is spent on opening a link (anyone may send one): Sign in, pressed
        phone.wait_for_selector("[data-testid=signin-whose]")
        phone.wait_for_timeout(500)
        assert phone.evaluate(SAVED) is None and "Not signed in" in phone.inner_text("#who")
        assert phone.evaluate("document.activeElement.dataset.testid") == "signin-submit"
        phone.click("[data-testid=signin-submit]")
        wait_until(phone, "document.querySelector('#who').innerText.includes('Ada Laptop')")
        phone.wait_for_selector("body[data-screen=start]")
        assert "#/sign-in" not in phone.url, "the code left the address"
        saved = phone.evaluate(SAVED)
        assert saved["id"] == ada["id"] and saved["name"] == "Ada Laptop"
        assert saved["token"] != ada["token"]
        me = httpx.get(f"{site}/v1/me", headers={"Authorization": f"Bearer {saved['token']}"})
        assert me.json()["id"] == ada["id"], me.text
        assert "Signed in as Ada Laptop" in phone.inner_text("#toast")

    with checked_tab(browser) as third:  # the code worked once
        third.goto(link)
        third.click("[data-testid=signin-submit]")
        problem = third.wait_for_selector("[data-testid=signin-problem]:not([hidden])")
        assert "does not work" in problem.inner_text()
        assert third.evaluate(SAVED) is None
        assert "Not signed in" in third.inner_text("#who")


def test_a_browser_signed_in_as_another_asks_first_and_may_keep_its_player(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ada, bo = make_player(site, "Ada Code"), make_player(site, "Bo Kept")
    _, link = code_shown(page, site, ada)
    with checked_tab(browser) as other:
        signed_in(other, site, bo)
        other.goto(link)
        question = other.wait_for_selector("[data-testid=signin-replaces]")
        assert "plays as Bo Kept" in question.inner_text()
        assert "lost on this browser" in question.inner_text()
        other.click("[data-testid=signin-cancel]")
        other.wait_for_selector("body[data-screen=start]")
        assert other.evaluate(SAVED)["id"] == bo["id"], "cancelled: Bo stays"
        assert "Bo Kept" in other.inner_text("#who")

        other.goto(link)  # the code was not spent by asking
        other.click("[data-testid=signin-submit]")
        wait_until(other, "document.querySelector('#who').innerText.includes('Ada Code')")
        assert other.evaluate(SAVED)["id"] == ada["id"]


def test_a_page_not_signed_in_offers_the_form_and_takes_the_code_as_typed(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    cy = make_player(site, "Cy Typed")
    code, _ = code_shown(page, site, cy)
    with checked_tab(browser) as phone:
        phone.goto(f"{site}/#/lobby")
        phone.wait_for_selector("[data-testid=lobby-name]")
        assert phone.is_visible("#lobby [data-testid=have-code]")
        phone.goto(f"{site}/#/")
        phone.click("#have-code [data-testid=have-code]")
        phone.wait_for_selector("body[data-screen=signin]")
        phone.fill("[data-testid=signin-input]", "nope")
        phone.click("[data-testid=signin-submit]")
        phone.wait_for_selector("[data-testid=signin-problem]:not([hidden])")
        phone.fill("[data-testid=signin-input]", code.lower().replace("-", " "))
        phone.keyboard.press("Enter")
        wait_until(phone, "document.querySelector('#who').innerText.includes('Cy Typed')")
        assert phone.evaluate(SAVED)["id"] == cy["id"]
        assert phone.is_hidden("#have-code"), "signed in: no code to offer"


def test_signed_in_with_a_code_the_keyboard_goes_on_to_the_start_form(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """The Sign in pressed is disabled while the code is redeemed, and the screen it was
    on then goes: the keyboard fell to the top of the page, and a keyboard or screen-reader
    user started again from "Skip to main content". It goes to the start form's first
    field, as after "New match" at a match's end."""
    di = make_player(site, "Di Keyboard")
    _, link = code_shown(page, site, di)
    with checked_tab(browser) as phone:
        phone.goto(link)
        phone.wait_for_selector("[data-testid=signin-whose]")
        phone.keyboard.press("Enter")  # on Sign in, focused as the link opens
        wait_until(phone, "document.querySelector('#who').innerText.includes('Di Keyboard')")
        phone.wait_for_selector("body[data-screen=start]")
        wait_until(phone, "document.activeElement && document.activeElement.id === 'name'")
