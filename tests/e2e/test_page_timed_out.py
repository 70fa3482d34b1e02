"""Moves the server made for a player whose time ran out are told as made for them.

Under a move clock a late turn is played by the house easy AI (the log's
``turn_timed_out``, then that seat's moves); the page told them as the player's own ("You
discarded 7♠", "Hal discarded 7♠"). Here nobody moves: a host over the API opens a table
with a short clock, a person joins it on the page and never plays, a third page watches,
and every move of the match is the stand-in's. Each page's narration and the player's
list of the hand's moves (after a reload too) must say so (page QA of people playing
people). Real server, real headless Chromium.
"""

from __future__ import annotations

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated  # noqa: F401 (fixtures)

PER_MOVE_MS = 3000
WAIT_MS = 60_000

# Every text the narration line shows, kept as it changes (it shows the newest event only).
RECORD = """selector => {
  window.said = [];
  const keep = () => {
    const el = document.querySelector(selector);
    const text = el ? el.textContent : '';
    if (text && window.said[window.said.length - 1] !== text) window.said.push(text);
  };
  new MutationObserver(keep).observe(document.body, { subtree: true, childList: true, characterData: true });
  keep();
}"""


def said(page: Page) -> list[str]:
    texts: list[str] = page.evaluate("() => window.said")
    return texts


def wait_for_said(page: Page, text: str) -> None:
    wait_until(page, f"window.said.some((t) => t.startsWith({text!r}))", timeout=WAIT_MS)


def test_moves_made_for_a_timed_out_player_are_told_as_such(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada, carol, _ = pages
    created = httpx.post(f"{site}/v1/players", json={"name": "Hal Late"}).json()
    hal = httpx.Client(base_url=site, headers={"Authorization": f"Bearer {created['token']}"})
    table = hal.post("/v1/tables", json={"clock": {"per_move_ms": PER_MOVE_MS}})
    assert table.status_code == 201, table.text
    enter_lobby(ada, site, "Ada Late")
    ada.click("[data-testid=open-tables] li:has-text('Hal Late') [data-testid=join]")
    match_id = seated(ada)
    ada.evaluate(RECORD, "#narration")
    carol.goto(f"{site}/?delay={DELAY_MS}#/watch/{match_id}")
    carol.wait_for_selector("[data-testid=watch-score]")
    carol.evaluate(RECORD, "[data-testid=watch-narration]")

    # Nobody plays: each seat's turns are the stand-in's, told as made for it.
    wait_for_said(ada, "Time ran out for you: the computer ")
    wait_for_said(ada, "Time ran out for Hal Late: the computer ")
    wait_for_said(carol, "Time ran out for Ada Late: the computer ")
    wait_for_said(carol, "Time ran out for Hal Late: the computer ")
    # ... and never as a move of the player's own choosing.
    mine = ("You took", "You passed", "You drew", "You discarded", "You knocked", "You went")
    assert not [t for t in said(ada) if t.startswith(mine)], said(ada)
    theirs = ("Hal Late took", "Hal Late passed", "Hal Late drew", "Hal Late discarded")
    assert not [t for t in said(ada) + said(carol) if t.startswith(theirs)], said(carol)
    assert not [t for t in said(carol) if t.startswith("Ada Late ") and "ran out" not in t]

    # The hand's list of moves says it too, and so it does after a reload (from the
    # view's clock, which names the moves the stand-in made).
    for _ in range(2):
        wait_until(ada, "document.querySelectorAll('#moves li').length > 0", timeout=WAIT_MS)
        moves = ada.eval_on_selector_all(
            "#moves li", "els => els.map((e) => [e.className, e.textContent])"
        )
        assert all(
            kind == "stand-in" and text.startswith("Time ran out for ") for kind, text in moves
        ), moves
        ada.reload()
        settle(ada)

    # The replay of the match (Hal resigns it) tells the stand-in's moves the same way.
    resigned = hal.post(f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}})
    assert resigned.status_code == 200, resigned.text
    log = hal.get(f"/v1/matches/{match_id}/events", params={"limit": 1000}).json()["events"]
    timed_out = next(e for e in log if e["event"]["type"] == "turn_timed_out")
    late = ("Hal Late", "Ada Late")[timed_out["event"]["seat"]]  # the host sits in seat 0
    made = timed_out["version"] + 1
    ada.goto(f"{site}/?delay={DELAY_MS}#/replay/{match_id}")
    ada.wait_for_selector("[data-testid=replay-event]")
    ada.eval_on_selector(
        "#replay input[type=range]",
        "(el, at) => { el.value = at; el.dispatchEvent(new Event('input')); }",
        made,
    )
    wait_until(ada, f"document.querySelector('#replay').dataset.shown === '{made}'")
    told = ada.inner_text("[data-testid=replay-event]")
    assert told.startswith(f"Time ran out for {late}: the computer "), told
    hal.close()
