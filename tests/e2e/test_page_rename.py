"""Changing one's name from the header, in headless Chromium against a real server. The
start form's Deal was the page's one way to rename, and it starts a match against the
computer: a person who came in by the lobby kept the first name they typed."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_friends import FOCUSED, auth, make_player, signed_in


def in_the_lobby(page: Page, site: str, player: dict[str, str]) -> None:  # noqa: F811
    signed_in(page, site, player)
    page.goto(f"{site}/#/lobby")
    page.reload()  # the header drawn for the player saved
    page.wait_for_selector("body[data-screen=lobby]")
    assert player["name"] in page.inner_text("#who")


def server_name(site: str, player: dict[str, str]) -> str:  # noqa: F811
    answer = httpx.get(f"{site}/v1/players/{player['id']}", headers=auth(player))
    assert answer.status_code == 200, answer.text
    name: str = answer.json()["name"]
    return name


def test_a_player_renames_from_the_header_and_every_tab_follows(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    ada = make_player(site, "Ada First")
    in_the_lobby(page, site, ada)
    other_tab = page.context.new_page()
    other_tab.goto(f"{site}/#/history")
    other_tab.wait_for_selector("body[data-screen=history]")
    assert "Ada First" in other_tab.inner_text("#who")

    page.click("[data-testid=rename]")
    assert page.evaluate(FOCUSED) == "rename-name"
    assert page.input_value("[data-testid=rename-name]") == "Ada First"
    page.fill("[data-testid=rename-name]", "Ada Lovelace")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=rename-form]", state="hidden")
    assert "Ada Lovelace" in page.inner_text("#who")
    assert "Ada Lovelace now" in page.inner_text("#toast")
    assert page.evaluate(FOCUSED) == "rename"  # back where the form was opened from
    assert server_name(site, ada) == "Ada Lovelace"
    saved = page.evaluate("JSON.parse(localStorage.getItem('ginrummy.player'))")
    assert saved["name"] == "Ada Lovelace" and saved["token"] == ada["token"]
    assert page.input_value("#name") == "Ada Lovelace"  # a Deal would not rename it back
    wait_until(other_tab, "document.querySelector('#who').innerText.includes('Ada Lovelace')")
    other_tab.close()


def test_a_name_refused_is_said_in_the_form_and_the_old_name_kept(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A name passing for a challenger's (409 ``name_taken``) or a house AI's (422) is
    refused by the server; the form says why and keeps what was typed, nothing changes."""
    bo, cy = make_player(site, "Bo Rename"), make_player(site, "Cy Challenger")
    sent = httpx.post(
        f"{site}/v1/challenges", json={"to": bo["id"], "rules": "arcadia"}, headers=auth(cy)
    )
    assert sent.status_code == 201, sent.text
    in_the_lobby(page, site, bo)

    page.click("[data-testid=rename]")
    page.fill("[data-testid=rename-name]", "cy challenger")
    page.click("[data-testid=rename-save]")
    problem = page.wait_for_selector("[data-testid=rename-problem]:not([hidden])")
    assert "too like the name of a player you play or challenge" in problem.inner_text()
    assert page.evaluate(FOCUSED) == "rename-name"
    assert page.input_value("[data-testid=rename-name]") == "cy challenger"

    page.fill("[data-testid=rename-name]", "Computer (hard)")
    page.click("[data-testid=rename-save]")
    wait_until(
        page,
        "document.querySelector('[data-testid=rename-problem]').innerText.includes('house AI')",
    )
    assert "Bo Rename" in page.inner_text("#who")
    assert server_name(site, bo) == "Bo Rename"

    page.keyboard.press("Escape")  # changed their mind
    page.wait_for_selector("[data-testid=rename-form]", state="hidden")
    assert page.evaluate(FOCUSED) == "rename"
    assert "Bo Rename" in page.inner_text("#who")


def test_no_one_signed_in_has_no_name_to_change(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    page.goto(f"{site}/")
    page.wait_for_selector("body[data-screen=start]")
    assert page.is_hidden("[data-testid=rename]")
    dee = make_player(site, "Dee Signs Out")
    in_the_lobby(page, site, dee)
    page.click("#nav-signout")
    page.click("[data-testid=rename]")  # one question in the header at a time
    assert page.is_hidden("#signout-confirm")
    page.click("#nav-signout")
    assert page.is_hidden("[data-testid=rename-form]")
    page.click("[data-testid=signout-yes]")
    page.wait_for_selector("body[data-screen=start]")
    assert page.is_hidden("[data-testid=rename]")
