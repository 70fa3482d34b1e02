"""A list's buttons are named for their row, not only "Join", "Accept" or "Replay".

A screen reader's list of buttons (or links) gave "Join, Join, Join" in the lobby and
"Replay, Replay, Resume" in the history: which table, whose challenge, which match was
not said. Each now carries its row's context in its accessible name (in visually hidden
text, so the visible text stays short). In Debian's headless Chromium against a real
server (the fixtures of test_page.py); the names are read from the browser's
accessibility tree, as test_page_a11y.py reads them.
"""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    page,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_layout import new_match, sign_in
from tests.e2e.test_page_lobby import enter_lobby, pages, token_of  # noqa: F401


def test_the_lobbys_buttons_name_the_table_or_challenge_they_act_on(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada, bob, _ = pages
    enter_lobby(ada, site, "Ada Named")
    ada.select_option("[data-testid=table-clock]", "move-30")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector("[data-testid=my-table]")
    terms = "arcadia to 100 · rated · 30 s a move"
    # The host's own table: Cancel says which (a host may keep three waiting).
    cancel = ada.get_by_role("button", name=f"Cancel the table (public, {terms})")
    assert cancel.count() == 1, ada.locator("#waiting").aria_snapshot()

    enter_lobby(bob, site, "Bob Named")
    bob.wait_for_selector("[data-testid=open-tables] li:has-text('Ada Named')")
    join = bob.get_by_role("button", name=f"Join Ada Named's table ({terms})", exact=True)
    assert join.count() == 1, bob.locator("#open-tables").aria_snapshot()
    # what the eye reads stays short
    assert (
        join.evaluate(
            "b => [...b.childNodes].filter((n) => !(n.classList && n.classList.contains('visually-hidden')))"
            ".map((n) => n.textContent).join('').trim()"
        )
        == "Join"
    )

    # A challenge from Bob to Ada: Ada's Accept and Decline, Bob's Cancel, named for it.
    with httpx.Client(base_url=site, headers={"Authorization": f"Bearer {token_of(ada)}"}) as a:
        ada_id = a.get("/v1/me").json()["id"]
    with httpx.Client(base_url=site, headers={"Authorization": f"Bearer {token_of(bob)}"}) as b:
        sent = b.post("/v1/challenges", json={"to": ada_id, "rules": "classic", "rated": False})
    assert sent.status_code == 201, sent.text
    ada.reload()
    ada.wait_for_selector("[data-testid=incoming] [data-testid=accept]")
    challenge = "classic to 100 · unrated · no clock"
    for verb in ("Accept", "Decline"):
        named = ada.get_by_role("button", name=f"{verb} Bob Named's challenge ({challenge})")
        assert named.count() == 1, ada.locator("#incoming").aria_snapshot()
    bob.reload()
    bob.wait_for_selector("[data-testid=outgoing] [data-testid=cancel-challenge]")
    withdraw = bob.get_by_role("button", name="Cancel your challenge to Ada Named")
    assert withdraw.count() == 1, bob.locator("#outgoing").aria_snapshot()


def test_the_historys_links_name_the_match_they_open(site: str, page: Page) -> None:  # noqa: F811
    player, finished = new_match(site, "Hedy Named", "lists-finished")
    token = player["token"]
    resigned = httpx.post(
        f"{site}/v1/matches/{finished}/actions",
        json={"action": {"type": "resign"}},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert resigned.status_code == 200, resigned.text
    created = httpx.post(
        f"{site}/v1/matches",
        json={"level": "hard", "rules": "arkadium"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert created.status_code == 201, created.text
    sign_in(page, site, player)
    page.goto(f"{site}/?delay={DELAY_MS}#/history")
    page.wait_for_selector("[data-testid=history] [data-testid=replay-link]")
    tree = page.locator("[data-testid=history]").aria_snapshot()
    replay = page.get_by_role(
        "link",
        name=re.compile(r"^Replay the match against Computer \(easy\), arcadia to 100, started "),
    )
    assert replay.count() == 1, tree
    verify = page.get_by_role(
        "button",
        name=re.compile(r"^Verify the match against Computer \(easy\), arcadia to 100, started "),
    )
    assert verify.count() == 1, tree
    resume = page.get_by_role(
        "link",
        name=re.compile(r"^Resume the match against Computer \(hard\), arkadium to 100, started "),
    )
    assert resume.count() == 1, tree
    assert replay.evaluate("a => a.firstChild.textContent") == "Replay"
