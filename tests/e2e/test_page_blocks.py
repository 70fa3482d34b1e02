"""Blocking a player from the page (blocks.js; docs/api.md "Blocking a player").

In real Chromium against a real server (the fixtures of test_page.py): a person blocks a
challenger from the lobby, after a confirmation that takes the keyboard, and the
challenger's next challenge is refused in neutral words; blocking the other seat in a
match's chat hides what they said on this page too; an Unblock in the "Blocked players"
list lets their challenges come again. No Block is offered for oneself or the house AI.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser, Page, Route

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    checked_tab,
    run_until,
    site,
    wait_until,
)
from tests.e2e.test_page_a11y import LIVE_RECORDER, said
from tests.e2e.test_page_chat import seated_pair
from tests.e2e.test_page_layout import sign_in
from tests.e2e.test_page_lobby import pages  # noqa: F401

NEUTRAL = "This player is not taking challenges from you"


def _player(site: str, name: str) -> dict[str, Any]:  # noqa: F811
    player: dict[str, Any] = httpx.post(f"{site}/v1/players", json={"name": name}).json()
    return player


def _auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def _in_lobby(page: Page, site: str, player: dict[str, Any]) -> None:  # noqa: F811
    page.add_init_script(LIVE_RECORDER)
    sign_in(page, site, player, {"tourSeen": True})
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    page.wait_for_selector("[data-testid=blocked-players]")


def _challenge_from_page(page: Page, name: str) -> None:
    """Find ``name`` by the lobby's form and press its Challenge."""
    page.fill("[data-testid=find-name]", name)
    page.click("[data-testid=find]")
    page.get_by_role("button", name=f"Challenge {name}", exact=True).click()


def _table_listed(site: str, page: Page, host: dict[str, Any]) -> None:  # noqa: F811
    """``host`` opens a table, and it is seen in the page's open tables."""
    opened = httpx.post(f"{site}/v1/tables", json={"rules": "arcadia"}, headers=_auth(host))
    assert opened.status_code == 201, opened.text
    page.wait_for_selector(f"#open-tables li:has-text({host['name']!r})")


def _focused_testid(page: Page) -> str | None:
    testid: str | None = page.evaluate("document.activeElement.dataset.testid || null")
    return testid


def test_a_person_blocks_a_challenger_who_is_then_refused_in_neutral_words(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada_page, bob_page, _ = pages
    ada, bob = _player(site, "Ada"), _player(site, "Bob")
    _in_lobby(ada_page, site, ada)
    _in_lobby(bob_page, site, bob)
    _challenge_from_page(bob_page, "Ada")
    bob_page.wait_for_selector("[data-testid=sent-challenge]:has-text('Ada')")

    # The challenge comes to Ada with a Block that says whom it blocks; none for herself.
    block = ada_page.get_by_role("button", name="Block Bob", exact=True)
    block.wait_for()
    assert ada_page.get_by_role("button", name="Block Ada").count() == 0
    block.click()
    # Blocking is consequential: a question first, the keyboard on its safe answer.
    question = ada_page.wait_for_selector("#incoming [data-testid=block-confirm]")
    assert "They are not told" in question.inner_text()
    assert _focused_testid(ada_page) == "block-no"
    ada_page.keyboard.press("Escape")  # called off: the Block is back, with the keyboard
    wait_until(ada_page, "document.activeElement.dataset.testid === 'block'")
    assert ada_page.query_selector("[data-testid=block-confirm]") is None
    block.click()
    # The lobby's read of the bots online, which follows the challenges', is held: the
    # keyboard must not wait for the lists' reads (it waited on the page's top for them).
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    ada_page.route("**/v1/bots/online", hold)
    ada_page.get_by_role("button", name="Block Bob", exact=True).last.click()  # the "yes"

    # The challenges are read again at once (the stream sends no frame for it): Bob's is
    # gone from Ada's list, he is under Blocked players, and the keyboard went there.
    ada_page.wait_for_selector("#incoming li.hint:has-text('None yet')", timeout=3000)
    ada_page.wait_for_selector("[data-testid=blocked-player]:has-text('Bob')")
    assert ada_page.get_by_role("button", name="Unblock Bob", exact=True).count() == 1
    assert ada_page.evaluate("document.activeElement.id") == "blocked-title"
    assert held, "the bots' read was not held"
    for route in held:
        route.continue_()
    ada_page.unroute("**/v1/bots/online")
    wait_until(ada_page, "window.__said.some((s) => s[1].includes('You blocked Bob'))")
    blocks = httpx.get(f"{site}/v1/me/blocks", headers=_auth(ada)).json()["blocks"]
    assert [b["player"]["id"] for b in blocks] == [bob["id"]]

    # Bob's open challenge stays in his own list (nobody is told); he withdraws it and
    # challenges again: the refusal says no more than "not with you".
    bob_page.click("[data-testid=cancel-challenge]")
    bob_page.wait_for_selector("#outgoing li.hint:has-text('None')")
    _challenge_from_page(bob_page, "Ada")
    bob_page.wait_for_selector(f"#toast:has-text('{NEUTRAL}')")
    toast = bob_page.inner_text("#toast")
    assert "block" not in toast.lower(), toast
    assert not bob_page.query_selector("[data-testid=sent-challenge]")
    wait_until(bob_page, f"window.__said.some((s) => s[1].includes({NEUTRAL!r}))")


def test_unblocking_from_the_list_lets_the_challenges_come_again(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    cleo_page, dan_page, _ = pages
    cleo, dan = _player(site, "Cleo"), _player(site, "Dan")
    httpx.post(
        f"{site}/v1/me/blocks", json={"player_id": dan["id"]}, headers=_auth(cleo)
    ).raise_for_status()
    _in_lobby(cleo_page, site, cleo)
    _in_lobby(dan_page, site, dan)
    _challenge_from_page(dan_page, "Cleo")
    dan_page.wait_for_selector(f"#toast:has-text('{NEUTRAL}')")

    # Cleo, having blocked Dan, is offered Unblock where she would challenge him (409).
    _challenge_from_page(cleo_page, "Dan")
    cleo_page.wait_for_selector("[data-testid=you-block]:has-text('Dan')")
    assert _focused_testid(cleo_page) == "unblock-to-challenge"

    # She unblocks him from the Blocked players list instead; the list empties, the
    # keyboard stays in it, and Dan's challenge now reaches her.
    listed = cleo_page.locator("[data-testid=blocked-players]")
    listed.get_by_role("button", name="Unblock Dan", exact=True).click()
    cleo_page.wait_for_selector("[data-testid=blocked-players] li.hint:has-text('Nobody')")
    assert cleo_page.evaluate("document.activeElement.id") == "blocked-title"
    assert httpx.get(f"{site}/v1/me/blocks", headers=_auth(cleo)).json()["blocks"] == []
    _challenge_from_page(dan_page, "Cleo")
    dan_page.wait_for_selector("[data-testid=sent-challenge]:has-text('Cleo')")
    cleo_page.wait_for_selector("#incoming li:has-text('Dan challenges you')")


def test_blocking_in_the_chat_hides_the_authors_messages(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    eve_page, finn_page, _ = pages
    eve, finn, match_id = seated_pair(site, "Eve", "Finn")
    eve_page.add_init_script(LIVE_RECORDER)
    for tab, who in ((eve_page, eve), (finn_page, finn)):
        sign_in(tab, site, who, {"tourSeen": True})
        tab.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
        tab.wait_for_selector("[data-testid=chat-input]")
    for text in ("hello there", "you play badly"):
        httpx.post(
            f"{site}/v1/matches/{match_id}/chat", json={"text": text}, headers=_auth(finn)
        ).raise_for_status()
    eve_page.wait_for_selector("[data-testid=chat-log] li:has-text('you play badly')")
    eve_page.fill("[data-testid=chat-input]", "good luck")
    eve_page.press("[data-testid=chat-input]", "Enter")
    eve_page.wait_for_selector("[data-testid=chat-log] li:has-text('good luck')")

    # The Block is beside the opponent's name, and names him; none for Eve herself.
    assert "Finn" in eve_page.inner_text("[data-testid=chat-with]")
    assert eve_page.get_by_role("button", name="Block Eve").count() == 0
    eve_page.get_by_role("button", name="Block Finn", exact=True).click()
    assert _focused_testid(eve_page) == "block-no"
    eve_page.click("[data-testid=block-yes]")

    # What Finn said is gone from Eve's page; hers stays; the keyboard is on Unblock.
    eve_page.wait_for_selector("[data-testid=chat-blocked]:has-text('Finn')")
    log = eve_page.inner_text("[data-testid=chat-log]")
    assert "hello there" not in log and "you play badly" not in log, log
    assert "good luck" in log
    assert _focused_testid(eve_page) == "unblock"
    # Later messages are not shown to her either (the server keeps them from her), while
    # Finn's own page still shows all he wrote: he is not told.
    httpx.post(
        f"{site}/v1/matches/{match_id}/chat", json={"text": "are you there"}, headers=_auth(finn)
    ).raise_for_status()
    finn_page.wait_for_selector("[data-testid=chat-log] li:has-text('are you there')")
    assert "hello there" in finn_page.inner_text("[data-testid=chat-log]")
    eve_page.wait_for_timeout(500)
    assert "are you there" not in eve_page.inner_text("[data-testid=chat-log]")
    assert not [s for s in said(eve_page) if "are you there" in s[1]], said(eve_page)
    # Unblocked from the chat: Block is back beside his name, with the keyboard.
    eve_page.click("[data-testid=chat-with] [data-testid=unblock]")
    eve_page.wait_for_selector("[data-testid=chat-with] [data-testid=block]")
    assert _focused_testid(eve_page) == "block"


def test_blocking_a_tables_host_in_the_lobby_takes_the_table_off_the_list(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """The server offers no table across a block (GET /v1/tables and the live lobby), but
    a socket keeps a table it listed before the block: the page left it there, with its
    Join and without its Block, until the list was read again."""
    ada_page, _, _ = pages
    ada, bob = _player(site, "Ada"), _player(site, "Bob Hosting")
    _in_lobby(ada_page, site, ada)
    _table_listed(site, ada_page, bob)

    ada_page.get_by_role("button", name="Block Bob Hosting", exact=True).click()
    ada_page.wait_for_selector("#open-tables [data-testid=block-confirm]")
    ada_page.get_by_role("button", name="Block Bob Hosting", exact=True).last.click()  # "yes"
    ada_page.wait_for_selector("[data-testid=blocked-player]:has-text('Bob Hosting')")
    # At once, not at the list socket's next frame (up to 15 s later): the question
    # answered "yes" kept the list from being drawn again when the block was made.
    wait_until(
        ada_page,
        "!document.querySelector('#open-tables').textContent.includes('Bob Hosting')",
        timeout=3000,
    )


def test_a_block_called_off_in_the_open_tables_lets_the_list_catch_up_at_once(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """While a Block's question is open in the open tables, the list is not drawn anew (it
    would take the question away); called off, the question left the list as it was until
    the list socket's next frame (its ping, up to 15 s on): a table opened meanwhile was
    missing, one closed meanwhile still offered its Join."""
    ada_page, _, _ = pages
    ada, bob = _player(site, "Ada Asks"), _player(site, "Bo Asked About")
    cy = _player(site, "Cy Meanwhile")
    heard: list[str] = []  # what the list socket told Ada's page
    ada_page.on(
        "websocket",
        lambda ws: (
            ws.on("framereceived", lambda data: heard.append(str(data)))
            if "/v1/tables/live" in ws.url
            else None
        ),
    )
    _in_lobby(ada_page, site, ada)
    _table_listed(site, ada_page, bob)
    ada_page.get_by_role("button", name="Block Bo Asked About", exact=True).click()
    ada_page.wait_for_selector("#open-tables [data-testid=block-confirm]")

    opened = httpx.post(f"{site}/v1/tables", json={"rules": "arcadia"}, headers=_auth(cy))
    assert opened.status_code == 201, opened.text
    run_until(ada_page, lambda: any("Cy Meanwhile" in frame for frame in heard), 5000)
    assert any("Cy Meanwhile" in frame for frame in heard), "the list socket did not tell it"
    assert "Cy Meanwhile" not in ada_page.inner_text("#open-tables")  # the question is kept
    ada_page.keyboard.press("Escape")  # called off: the Block is back, with the keyboard
    wait_until(ada_page, "document.activeElement.dataset.testid === 'block'")
    wait_until(
        ada_page,
        "document.querySelector('#open-tables').textContent.includes('Cy Meanwhile')",
        timeout=2000,
    )
    assert _focused_testid(ada_page) == "block"
    assert ada_page.evaluate("document.activeElement.closest('li').textContent").startswith(
        "Bo Asked About"
    )


def test_a_block_called_off_in_the_challenges_lets_the_list_catch_up_at_once(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """While a Block's question is open under "Challenges for you", the list is not drawn
    anew; called off, it stayed as it was until the lobby's next read (up to 5 s on): a
    challenge that came meanwhile was missing. The page's timers stand still here once
    the question is asked (Playwright's clock, paused), so no read of the lobby's own
    timer can draw it: only calling the question off can."""
    ada, bob, cy = (_player(site, name) for name in ("Ada Asked", "Bo Challenges", "Cy Later"))
    with checked_tab(browser, clock=True) as ada_page:
        _in_lobby(ada_page, site, ada)
        sent = httpx.post(f"{site}/v1/challenges", json={"to": ada["id"]}, headers=_auth(bob))
        assert sent.status_code == 201, sent.text
        ada_page.get_by_role("button", name="Block Bo Challenges", exact=True).click()
        ada_page.wait_for_selector("#incoming [data-testid=block-confirm]")
        ada_page.clock.pause_at(ada_page.evaluate("Date.now()") / 1000 + 1)

        read: list[str] = []  # the lobby's reads of the challenges (the stream's news asks)
        ada_page.on(
            "requestfinished",
            lambda r: read.append(r.url) if r.url.endswith("/v1/challenges") else None,
        )
        came = httpx.post(f"{site}/v1/challenges", json={"to": ada["id"]}, headers=_auth(cy))
        assert came.status_code == 201, came.text
        run_until(ada_page, lambda: bool(read), 10_000)
        assert read, "the player stream's news of the challenge was read"
        assert "Cy Later" not in ada_page.inner_text("#incoming")  # the question is kept

        ada_page.keyboard.press("Escape")  # called off: the Block is back, with the keyboard
        ada_page.wait_for_selector("#incoming li:has-text('Cy Later')", timeout=10_000)
        assert _focused_testid(ada_page) == "block"
        assert ada_page.evaluate("document.activeElement.closest('li').textContent").startswith(
            "Bo Challenges"
        )
