"""The lobby's own flows, from a page QA of people playing people.

In real Chromium against a real server (the fixtures of test_page.py): a host who leaves
the lobby finds its waiting tables listed on coming back, each with its invite link and
Cancel; a challenger sees and withdraws the challenge it sent; the opponent is offered a
rematch on the match-over panel itself; a host on another screen is taken to the match
when its table is joined; and a refusal is told in words for a person, not the API's.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    checked_tab,
    pass_page_time,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated, token_of  # noqa: F401


def _get(site: str, page: Page, path: str) -> Any:  # noqa: F811
    answer = httpx.get(f"{site}{path}", headers={"Authorization": f"Bearer {token_of(page)}"})
    answer.raise_for_status()
    return answer.json()


def test_a_host_who_leaves_the_lobby_finds_its_private_table_and_cancels_it(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada = pages[0]
    enter_lobby(ada, site, "Ada")
    ada.check("#table-private")
    ada.click("[data-testid=open-table]")
    invite = ada.wait_for_selector("[data-testid=invite-link]").input_value()  # type: ignore[union-attr]
    ada.click("#nav-history")
    ada.wait_for_selector("body[data-screen=history]")
    ada.click("#nav-lobby")
    row = ada.wait_for_selector("[data-testid=my-table]")
    assert row is not None and "Private table" in row.inner_text()
    assert ada.input_value("[data-testid=my-table] [data-testid=invite-link]") == invite
    table_id = row.get_attribute("data-table")
    assert table_id and table_id in invite
    # A browser that did not open it (here: the page's note of it forgotten) lists it too,
    # from GET /v1/tables?mine=true.
    ada.evaluate("localStorage.removeItem('ginrummy.private-tables')")
    ada.reload()
    ada.wait_for_selector("[data-testid=my-table]")
    assert ada.input_value("[data-testid=my-table] [data-testid=invite-link]") == invite

    ada.click("[data-testid=my-table] [data-testid=cancel-table]")
    wait_until(ada, "!document.querySelector('[data-testid=my-table]')")
    assert _get(site, ada, f"/v1/tables/{table_id}")["status"] == "cancelled"


def test_a_host_at_the_cap_is_told_in_words_and_cancels_from_the_list(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    cy = pages[0]
    enter_lobby(cy, site, "Cy")
    for count in (1, 2, 3):
        if count == 2:
            cy.check("#table-private")  # public and private tables alike
        cy.click("[data-testid=open-table]")
        wait_until(cy, f"document.querySelectorAll('[data-testid=my-table]').length === {count}")
    cy.click("[data-testid=open-table]")
    cy.wait_for_selector("#toast:not([hidden])")
    told = cy.inner_text("#toast")
    assert "cancel one of your tables below" in told
    ids = cy.eval_on_selector_all(
        "[data-testid=my-table]", "rows => rows.map(r => r.dataset.table)"
    )
    assert "/v1/" not in told and not [i for i in ids if i in told]
    cy.click("[data-testid=my-table] >> nth=0 >> [data-testid=cancel-table]")
    wait_until(cy, "document.querySelectorAll('[data-testid=my-table]').length === 2")
    mine = [t for t in _get(site, cy, "/v1/tables")["tables"] if t["host"]["name"] == "Cy"]
    assert len(mine) <= 1  # the private one is listed nowhere public


def test_a_sent_challenge_is_listed_and_withdrawn(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    dora, ezra, _ = pages
    enter_lobby(ezra, site, "Ezra Challenged")
    wait_until(ezra, "localStorage.getItem('ginrummy.player') !== null")
    enter_lobby(dora, site, "Dora")
    dora.fill("[data-testid=find-name]", "Ezra Challenged")
    dora.click("[data-testid=find]")
    dora.click("[data-testid=found] li:has-text('Ezra Challenged') [data-testid=challenge]")
    sent = dora.wait_for_selector("[data-testid=outgoing] [data-testid=sent-challenge]")
    assert sent is not None and "You challenged Ezra Challenged" in sent.inner_text()
    assert len(_get(site, ezra, "/v1/challenges")["challenges"]) == 1

    # Challenging again is refused in plain words, naming no API path.
    dora.click("[data-testid=found] li:has-text('Ezra Challenged') [data-testid=challenge]")
    # (the toast of the first, "Challenge sent", may still be up: the refusal's own words)
    dora.wait_for_selector("#toast:not([hidden]):has-text('already have a challenge waiting')")
    assert "/v1/" not in dora.inner_text("#toast")

    dora.click("[data-testid=sent-challenge] [data-testid=cancel-challenge]")
    wait_until(dora, "!document.querySelector('[data-testid=sent-challenge]')")
    assert _get(site, ezra, "/v1/challenges")["challenges"] == []


def test_a_challenger_is_told_when_the_challenge_is_declined(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """From a QA of two people on two server processes: Bob declined Ada's challenge, and
    on Ada's page it only left "Challenges you sent" (and the "Challenge sent" toast
    stayed), as if it had never been sent. Her player stream says ``declined``."""
    ida, jon, _ = pages
    enter_lobby(jon, site, "Jon Declines")
    wait_until(jon, "localStorage.getItem('ginrummy.player') !== null")
    enter_lobby(ida, site, "Ida Asks")
    ida.fill("[data-testid=find-name]", "Jon Declines")
    ida.click("[data-testid=find]")
    ida.click("[data-testid=found] li:has-text('Jon Declines') [data-testid=challenge]")
    ida.wait_for_selector("[data-testid=outgoing] [data-testid=sent-challenge]")
    jon.click("[data-testid=incoming] li:has-text('Ida Asks') [data-testid=decline]")
    ida.wait_for_selector("#toast:not([hidden]):has-text('declined your challenge')")
    assert "Jon Declines declined your challenge." in ida.inner_text("#toast")
    assert "Jon Declines declined your challenge." in ida.inner_text("#said")
    wait_until(ida, "!document.querySelector('[data-testid=sent-challenge]')")


def test_the_opponent_is_offered_the_rematch_on_the_match_over_panel(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    fay, gus, _ = pages
    enter_lobby(fay, site, "Fay")
    fay.click("[data-testid=open-table]")
    fay.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(gus, site, "Gus")
    gus.click("[data-testid=open-tables] li:has-text('Fay') [data-testid=join]")
    first = seated(fay, gus)
    gus.click("[data-testid=resign]")
    gus.click("[data-testid=resign-confirm]")
    for page in (fay, gus):
        page.wait_for_selector("body[data-phase=match_over]")
    fay.click("[data-testid=rematch]")
    offer = gus.wait_for_selector("[data-testid=rematch-offer]")
    assert offer is not None and "Fay offers a rematch" in offer.inner_text()
    assert gus.query_selector("[data-testid=rematch-decline]") is not None
    gus.click("[data-testid=rematch-accept]")
    for page in (fay, gus):
        wait_until(page, f"localStorage.getItem('ginrummy.match') !== {json.dumps(first)}")
    second = seated(fay, gus)
    assert second != first
    assert _get(site, gus, f"/v1/matches/{first}/rematch")["match_id"] == second
    # each seat's part of the new deal is the page's, as for any match it opens or joins
    started = _get(site, gus, f"/v1/matches/{second}/events?limit=1")["events"][0]["event"]
    players = {_get(site, page, "/v1/me")["id"] for page in (fay, gus)}
    assert {given["by"] for given in started["client_seeds"]} == players


def test_a_host_on_the_leaderboard_is_taken_to_the_match_when_its_table_is_joined(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    kim, lee, _ = pages
    enter_lobby(kim, site, "Kim")
    kim.click("[data-testid=open-table]")
    kim.wait_for_selector("[data-testid=waiting]:not([hidden])")
    kim.click("#nav-leaderboard")
    kim.wait_for_selector("body[data-screen=leaderboard]")
    enter_lobby(lee, site, "Lee")
    lee.click("[data-testid=open-tables] li:has-text('Kim') [data-testid=join]")
    seated(kim, lee)
    assert "Lee" in kim.inner_text("#scorebar")


def test_a_refusal_that_repeats_its_title_is_said_once(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    hal, ivy, jo = pages
    enter_lobby(hal, site, "Hal")
    hal.click("[data-testid=open-table]")
    hal.wait_for_selector("[data-testid=waiting]:not([hidden])")
    tables = _get(site, hal, "/v1/tables")["tables"]
    table_id = next(t["table_id"] for t in tables if t["host"]["name"] == "Hal")
    enter_lobby(ivy, site, "Ivy")
    ivy.click("[data-testid=open-tables] li:has-text('Hal') [data-testid=join]")
    seated(hal, ivy)
    enter_lobby(jo, site, "Jo")
    wait_until(jo, "localStorage.getItem('ginrummy.player') !== null")
    # The invite's notice reads the table first and, finding it taken, offers no Join
    # (invite.js): that read fails here, so the Join is pressed and refused.
    jo.route(f"**/v1/tables/{table_id}", lambda route: route.abort())
    jo.goto(f"{site}/#/join/{table_id}")
    jo.click("[data-testid=join-invite]")
    jo.wait_for_selector("#toast:not([hidden])")
    told = jo.inner_text("#toast")
    assert told.lower().count("both seats at this table are taken") == 1, told


def test_a_host_back_in_the_lobby_soon_after_its_private_table_was_taken_stays_there(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """A private table's taking has no frame on the live list, so the lobby still held it
    as waiting; its next read, no longer listing it, looked it up and opened its match
    (lobbylive.js ``afterRead``) again, over the lobby the host had just chosen. The
    host's tab runs its timers on Playwright's clock: its wait passes at once."""
    _, bob, _ = pages
    with checked_tab(browser, clock=True) as ann:
        enter_lobby(ann, site, "Ann")
        ann.check("#table-private")
        ann.click("[data-testid=open-table]")
        invite = ann.wait_for_selector("[data-testid=invite-link]").input_value()  # type: ignore[union-attr]
        enter_lobby(bob, site, "Bob")
        bob.goto(invite)
        bob.click("[data-testid=join-invite]")
        seated(ann, bob)
        ann.click("#nav-lobby")
        ann.wait_for_selector("body[data-screen=lobby]")
        pass_page_time(ann, 7000)  # more than one of the lobby's 5 s reads
        assert ann.get_attribute("body", "data-screen") == "lobby", ann.url


def test_a_search_for_ones_own_name_or_for_nothing_says_so(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """Searching one's own name said "Nobody called …" (the searcher is left out of the
    results), and an empty search did nothing, leaving the last search's players listed
    as if they matched it (page QA)."""
    finn = pages[0]
    enter_lobby(finn, site, "Finn Searches")
    finn.fill("[data-testid=find-name]", "Finn Searches")
    finn.click("[data-testid=find]")
    said = finn.wait_for_selector("[data-testid=found] li.hint")
    assert (
        said is not None
        and 'Only you have a name starting with "Finn Searches"' in said.inner_text()
    )
    httpx.post(f"{site}/v1/players", json={"name": "Gail Found"}).raise_for_status()
    finn.fill("[data-testid=find-name]", "Gail Found")
    finn.click("[data-testid=find]")
    finn.wait_for_selector("[data-testid=found] li:has-text('Gail Found') [data-testid=challenge]")
    finn.fill("[data-testid=find-name]", "  ")
    finn.click("[data-testid=find]")
    finn.wait_for_selector("[data-testid=found] li.hint:has-text('Type a name')")
    assert finn.locator("[data-testid=found] [data-testid=challenge]").count() == 0
