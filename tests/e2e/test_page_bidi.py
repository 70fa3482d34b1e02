"""A name with bidirectional controls cannot reorder the page's words around it.

The server refuses bidi controls in new names, but a name chosen before that rule is
kept as typed: here one is written into the store as such a player's name would be,
"Evil" then a pop-isolate and an unclosed right-to-left override, which (shown as plain
text) reversed the rest of its line and would close an isolate the page wrapped around
it. Wherever the page shows that name (the lobby's tables, a challenge, the players
found, the score bar, the turn, the narration, the moves, the chat, the watch screen,
the match's end, a rematch offer, the history, the replay, the live matches, a block's
question, the blocked players, the header, the sign-out question) it must be inside a <bdi>, with no bidi control left in any text the page
shows, and the words after it must still run left to right on the screen. Real server,
real headless Chromium (page QA of people playing people).
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.tables import pick
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    click_next_legal_action,
    free_port,
    settle,
    start_site,
    stop_site,
)
from tests.e2e.test_page_lobby import enter_lobby, pages, seated  # noqa: F401 (fixtures)

EVIL = "Evil\u2069\u202e"

# Every text node and attribute of the page, and where each shown "Evil" sits.
CHECK = r"""() => {
  const CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  const problems = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (CONTROLS.test(node.data)) problems.push(`a bidi control shown: ${JSON.stringify(node.data)}`);
    if (node.data.includes('Evil') && !node.parentElement.closest('bdi')) {
      problems.push(`not isolated: ${JSON.stringify(node.parentElement.textContent)}`);
    }
  }
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.value.includes('Evil') && !attr.value.includes('\u2068Evil\u2069')) {
        problems.push(`not isolated in ${attr.name}: ${JSON.stringify(attr.value)}`);
      }
    }
  }
  // On the screen: the name reads "Evil", and the words after it run left to right.
  const box = (node, i) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    return range.getBoundingClientRect();
  };
  const leftToRight = (node, i) => {
    const [a, b] = [box(node, i), box(node, i + 1)];
    return Math.abs(a.top - b.top) > 2 || a.left < b.left;
  };
  let shown = 0;
  for (const bdi of document.querySelectorAll('bdi')) {
    const text = bdi.firstChild;
    if (!text || !text.data.includes('Evil') || !bdi.getClientRects().length) continue;
    shown += 1;
    if (!leftToRight(text, text.data.indexOf('Evil'))) problems.push('the name itself is reversed');
    let next = bdi.nextSibling;
    while (next && !(next.nodeType === Node.TEXT_NODE && /\w\w/.test(next.data))) next = next.nextSibling;
    if (next && !leftToRight(next, next.data.search(/\w\w/))) {
      problems.push(`the words after it are reversed: ${JSON.stringify(bdi.parentElement.textContent)}`);
    }
  }
  return { problems, shown };
}"""


def isolated(page: Page, at_least: int = 1) -> None:
    """Every "Evil" the page holds is isolated; at least ``at_least`` are on screen."""
    found: dict[str, Any] = page.evaluate(CHECK)
    assert found["problems"] == [], found["problems"]
    assert found["shown"] >= at_least, found


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server and its SQLite file, to write a name as an old server kept it."""
    folder = tmp_path_factory.mktemp("bidi")
    port = free_port()
    process = start_site(port, folder / "page.db", folder / "server.log")
    try:
        yield f"http://127.0.0.1:{port}", folder / "page.db"
    finally:
        stop_site(process)


def old_named_player(site: str, db: Path) -> tuple[dict[str, Any], httpx.Client]:
    created = httpx.post(f"{site}/v1/players", json={"name": "Evil"}).json()
    with sqlite3.connect(db) as connection:  # the name as a server before the rule kept it
        connection.execute("UPDATE players SET name = ? WHERE id = ?", (EVIL, created["id"]))
    client = httpx.Client(base_url=site, headers={"Authorization": f"Bearer {created['token']}"})
    assert client.get("/v1/me").json()["name"] == EVIL
    return created, client


def evil_moves(evil: httpx.Client, match_id: str) -> bool:
    view = evil.get(f"/v1/matches/{match_id}").json()["view"]
    if not view["legal"] or view["seat"] not in view["to_act"]:
        return False
    answer = evil.post(
        f"/v1/matches/{match_id}/actions", json={"action": pick(view, random.Random(1))}
    )
    assert answer.status_code == 200, answer.text
    return True


def test_a_name_with_bidi_controls_is_isolated_wherever_it_is_shown(
    store: tuple[str, Path],
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    site, db = store
    pat, carol, _ = pages
    created, evil = old_named_player(site, db)
    assert evil.post("/v1/tables", json={}).status_code == 201
    enter_lobby(pat, site, "Pat")
    pat.wait_for_selector("[data-testid=open-tables] li:has-text('Evil')")
    isolated(pat)
    pat_id = json.loads(pat.evaluate("localStorage.getItem('ginrummy.player')"))["id"]
    challenge = evil.post("/v1/challenges", json={"to": pat_id})
    assert challenge.status_code == 201, challenge.text
    pat.wait_for_selector("[data-testid=incoming] li:has-text('Evil')")
    pat.fill("[data-testid=find-name]", "Evil")
    pat.click("[data-testid=find]")
    pat.wait_for_selector("[data-testid=found] li:has-text('Evil')")
    isolated(pat, at_least=3)
    cancelled = evil.post(f"/v1/challenges/{challenge.json()['table_id']}/cancel")
    assert cancelled.status_code == 200  # one open challenge to a player: the rematch's

    # At the table: Evil moves and chats; Pat plays.
    pat.click("[data-testid=open-tables] li:has-text('Evil') [data-testid=join]")
    match_id = seated(pat)
    assert evil.post(f"/v1/matches/{match_id}/chat", json={"text": "hello"}).status_code == 201
    moved = False
    for _ in range(6):
        settle(pat)
        if pat.get_attribute("body", "data-my-turn") == "true":
            click_next_legal_action(pat, allow_knock=False)
        moved = evil_moves(evil, match_id) or moved
    settle(pat)
    pat.wait_for_selector("[data-testid=chat-log] li:has-text('hello')")
    pat.click(".log-box summary")  # this hand's moves, opened
    assert moved
    isolated(pat, at_least=4)

    carol.goto(f"{site}/?delay={DELAY_MS}#/watch/{match_id}")
    carol.wait_for_selector("[data-testid=chat-log] li:has-text('hello')")
    isolated(carol, at_least=4)

    # The end: a resignation, then a rematch offer.
    assert evil.post(f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}})
    pat.wait_for_selector("body[data-phase=match_over]")
    assert evil.post(f"/v1/matches/{match_id}/rematch").status_code in (200, 201)
    pat.wait_for_selector("[data-testid=rematch-offer]")
    isolated(pat, at_least=3)
    carol.wait_for_selector("[data-testid=watch-over]")
    isolated(carol, at_least=3)

    pat.click("#nav-history")
    pat.wait_for_selector("[data-testid=history]")
    isolated(pat)
    pat.goto(f"{site}/?delay={DELAY_MS}#/replay/{match_id}")
    pat.wait_for_selector("[data-testid=replay-board] [data-testid=replay-score]")
    isolated(pat, at_least=2)

    # A match of Evil's in Live matches (its Watch button's name too); Evil blocked from
    # the lobby: the question, then the Blocked players list.
    assert evil.post("/v1/matches", json={"level": "easy", "rules": "arcadia"}).status_code == 201
    pat.click("#nav-live")
    pat.wait_for_selector("[data-testid=live-match]:has-text('Evil')")
    isolated(pat)
    pat.click("#nav-lobby")
    pat.wait_for_selector("[data-testid=blocked-players]")
    pat.fill("[data-testid=find-name]", "Evil")
    pat.click("[data-testid=find]")
    pat.click("[data-testid=found] li:has-text('Evil') [data-testid=block]")
    pat.wait_for_selector("[data-testid=block-confirm]")
    isolated(pat, at_least=2)
    pat.click("[data-testid=block-yes]")
    pat.wait_for_selector("[data-testid=blocked-player]:has-text('Evil')")
    isolated(pat, at_least=2)

    # Evil's own page: the header and the sign-out question.
    player = {"id": created["id"], "name": EVIL, "token": created["token"]}
    carol.evaluate("p => localStorage.setItem('ginrummy.player', p)", json.dumps(player))
    carol.goto(f"{site}/?delay={DELAY_MS}#/")
    carol.wait_for_selector("#who bdi")
    carol.click("#nav-signout")
    carol.wait_for_selector("#signout-confirm:not([hidden])")
    isolated(carol, at_least=2)
    evil.close()
