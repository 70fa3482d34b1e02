"""The watch link, from the page (the review of the page, item 1).

In real Chromium against a real server (the fixtures of test_page.py): both players of a
table's match see its watch link at the table and copy it with a button that says so; a
third page opens the link and watches. A private table's link carries its watch code,
which only its two players are given (the API's answers to them); a page that opens the
match without it is told so in one plain sentence and never sees the code.
"""

from __future__ import annotations

from urllib.parse import unquote

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
from tests.e2e.test_page_friends import make_player, signed_in
from tests.e2e.test_page_lobby import enter_lobby, pages, seated, token_of  # noqa: F401
from tests.e2e.test_page_watch_score import seated as watch_score_seated


def _copied(page: Page, site: str) -> str:  # noqa: F811
    """Click the watch link's Copy button; the page confirms, and the clipboard has it."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page.click("[data-testid=watch-link-copy]")
    page.wait_for_selector("[data-testid=watch-link-copy]:has-text('Copied')")
    assert "Watch link copied" in page.inner_text("#toast")
    text: str = page.evaluate("navigator.clipboard.readText()")
    return text


def _open_table(host: Page, site: str, name: str, *, private: bool = False) -> None:  # noqa: F811
    enter_lobby(host, site, name)
    if private:
        host.check("#table-private")
    host.click("[data-testid=open-table]")


def _both_show(alice: Page, bob: Page, link: str) -> None:
    for tab in (alice, bob):
        field = tab.wait_for_selector("[data-testid=watch-link]")
        assert field.input_value() == link  # type: ignore[union-attr]


def _watches(carol: Page, link: str, title: str) -> None:
    carol.goto(link)
    carol.wait_for_selector("[data-testid=watch-score]")
    assert title in carol.inner_text("#watch h1")


def test_a_public_tables_players_see_and_copy_its_watch_link(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    alice, bob, carol = pages
    _open_table(alice, site, "Alice")
    alice.wait_for_selector("[data-testid=waiting]:not([hidden])")
    assert "Watch link" in alice.inner_text("[data-testid=waiting-watch]")
    enter_lobby(bob, site, "Bob")
    bob.click("[data-testid=open-tables] li:has-text('Alice') [data-testid=join]")
    match_id = seated(alice, bob)
    link = f"{site}/#/watch/{match_id}"
    _both_show(alice, bob, link)
    assert _copied(bob, site) == link
    _watches(carol, link, "Watching: Alice against Bob")


def test_a_private_tables_watch_link_carries_its_code_to_its_players_only(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    alice, bob, carol = pages
    _open_table(alice, site, "Ann", private=True)
    invite = alice.wait_for_selector("[data-testid=invite-link]").input_value()  # type: ignore[union-attr]
    assert "watch code" in alice.inner_text("[data-testid=waiting-watch]")
    table_id = unquote(invite.split("#/join/")[1].split("/")[0])

    bob.goto(f"{site}/?delay={DELAY_MS}#/lobby")  # Bob has no player yet: he names himself
    bob.fill("[data-testid=lobby-name]", "Ben")
    bob.click("[data-testid=enter-lobby]")
    wait_until(bob, "localStorage.getItem('ginrummy.player') !== null")
    bob.goto(invite)
    bob.click("[data-testid=join-invite]")
    match_id = seated(alice, bob)
    # The code the API gives the host (and the guest): the page shows no other.
    table = httpx.get(
        f"{site}/v1/tables/{table_id}", headers={"Authorization": f"Bearer {token_of(alice)}"}
    ).json()
    code = table["watch_code"]
    assert code and table["match_id"] == match_id
    link = f"{site}/#/watch/{match_id}/{code}"
    _both_show(alice, bob, link)
    assert _copied(alice, site) == link
    # A reload keeps it (the guest was given the code once, when he joined).
    bob.reload()
    assert bob.wait_for_selector("[data-testid=watch-link]").input_value() == link  # type: ignore[union-attr]
    # ...and a browser that never saw the table (here: its codes forgotten) reads it with
    # the match, which tells its players the code (a page QA found the link missing there).
    bob.evaluate(
        "['ginrummy.watch-codes', 'ginrummy.private-tables'].forEach(k => localStorage.removeItem(k))"
    )
    bob.reload()
    assert bob.wait_for_selector("[data-testid=watch-link]").input_value() == link  # type: ignore[union-attr]

    # Without the code, the match is refused in one sentence, and the code is nowhere.
    carol.goto(f"{site}/#/watch/{match_id}")
    error = carol.wait_for_selector("[data-testid=watch-error]").inner_text()  # type: ignore[union-attr]
    assert error.startswith("This match is private:")
    assert error.count("watch code") == 1
    assert code not in carol.content()
    # With the link, Carol watches.
    _watches(carol, link, "Watching: Ann against Ben")


def test_someone_elses_match_opened_at_the_table_is_watched(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A player's own link to their match (#/match/ID), opened by another player: the page
    said "You hold no seat in this match: your token holds no seat in this match" and
    left them on the start form; it watches the match instead, as anyone may."""
    *_, match_id = watch_score_seated(site, "Ada Seated", "Bob Seated")
    signed_in(page, site, make_player(site, "Cal Curious"))
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("body[data-screen=watch]")
    assert page.evaluate("location.hash") == f"#/watch/{match_id}"
    assert page.inner_text("#toast") == "You hold no seat in this match: you are watching it."
    page.wait_for_selector("[data-testid=watch-score-0]:has-text('Ada Seated')")
