"""The page's "Live matches" (livematches.js; GET /v1/matches/watchable).

In real Chromium against a real server (the fixtures of test_page.py): a match two pages
are playing is listed with its seats, rules, score, hands played and spectators, its Watch
button named for the match; Watch opens the watch screen, and the list, left open on
another page, follows the new spectator by itself. More matches than a page holds are
paged. The screen is reached from the header's navigation.
"""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    browser,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_a11y import LIVE_RECORDER, said
from tests.e2e.test_page_chat import seated_pair
from tests.e2e.test_page_layout import sign_in
from tests.e2e.test_page_lobby import pages  # noqa: F401


def _player(site: str, name: str) -> dict[str, Any]:  # noqa: F811
    player: dict[str, Any] = httpx.post(f"{site}/v1/players", json={"name": name}).json()
    return player


def _auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


def test_a_match_two_pages_play_is_listed_and_watch_opens_it(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada_page, bob_page, carol = pages
    ada, bob, match_id = seated_pair(site, "Ada", "Bob")
    for tab, who in ((ada_page, ada), (bob_page, bob)):
        sign_in(tab, site, who, {"tourSeen": True})
        tab.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
        tab.wait_for_selector("body[data-screen=table]")

    # Bob, from his match, opens Live matches in the header: his match is listed.
    bob_page.click("#nav-live")
    bob_page.wait_for_selector("body[data-screen=live]")
    row = bob_page.wait_for_selector(f"[data-testid=live-match][data-match-id='{match_id}']")
    text = row.inner_text()  # type: ignore[union-attr]
    # the rules in the lobby's and History's words: it said the bare "arcadia"
    for shown in ("Ada", "Bob", "arcadia to 100", "0 : 0", "0 spectators"):
        assert shown in text, text
    assert bob_page.title() == "Live matches · Gin Rummy"
    match = httpx.get(f"{site}/v1/matches/{match_id}", headers=_auth(ada)).json()
    first, second = (s["name"] for s in match["seats"])

    # Carol, a guest with no player, finds it too and watches it with its named button.
    carol.goto(f"{site}/?delay={DELAY_MS}#/live")
    watch = carol.get_by_role("button", name=f"Watch {first} against {second}", exact=True)
    watch.click()
    carol.wait_for_selector("body[data-screen=watch] [data-testid=watch-score]")
    assert carol.url.endswith(f"#/watch/{match_id}")
    assert f"Watching: {first} against {second}" in carol.inner_text("#watch h1")

    # Bob's list, left open, reads again by itself: Carol now watches.
    bob_page.wait_for_selector(
        f"[data-testid=live-match][data-match-id='{match_id}'] "
        "[data-testid=live-spectators]:has-text('1 spectator')",
        timeout=15_000,
    )
    # Leaving the screen stops its reads.
    bob_page.go_back()
    bob_page.wait_for_selector("body[data-screen=table]")
    asked: list[str] = []
    bob_page.on("request", lambda r: asked.append(r.url) if "watchable" in r.url else None)
    bob_page.wait_for_timeout(6000)
    assert asked == [], asked


def test_more_matches_than_a_page_are_paged(site: str, page: Page) -> None:  # noqa: F811
    viewer = page
    for n in range(3):
        host = _player(site, f"Host{n}")
        for _ in range(8):
            created = httpx.post(
                f"{site}/v1/matches",
                json={"level": "easy", "rules": "arcadia"},
                headers=_auth(host),
            )
            assert created.status_code == 201, created.text
    total = len(httpx.get(f"{site}/v1/matches/watchable?limit=100").json()["matches"])
    assert total > 20
    viewer.add_init_script(LIVE_RECORDER)
    viewer.goto(f"{site}/?delay={DELAY_MS}#/live")
    viewer.wait_for_selector("[data-testid=live-match]")
    assert viewer.locator("[data-testid=live-match]").count() == 20
    assert viewer.locator("[data-testid=live-previous]").count() == 0
    viewer.click("[data-testid=live-next]")
    wait_until(viewer, "document.querySelectorAll('[data-testid=live-match]').length < 20")
    assert viewer.locator("[data-testid=live-match]").count() == total - 20
    wait_until(viewer, "window.__said.some((s) => s[1].includes('Live matches 21 to'))")
    # The Next pressed is gone on the last page: the keyboard is on Previous, not lost.
    assert viewer.evaluate("document.activeElement.dataset.testid") == "live-previous"
    assert viewer.locator("[data-testid=live-next]").count() == 0
    viewer.click("[data-testid=live-previous]")
    wait_until(viewer, "document.querySelectorAll('[data-testid=live-match]').length === 20")
    assert [s for s in said(viewer) if "Live matches 1 to 20" in s[1]]


# The tab hidden, then shown again, as a browser tells a page (headless Chromium's tab is
# always visible): ``document.hidden`` answers what the test sets.
HIDDEN_TAB = """
window.__hidden = false;
Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__hidden });
Object.defineProperty(document, 'visibilityState', {
  configurable: true, get: () => (window.__hidden ? 'hidden' : 'visible'),
});
"""


def test_the_list_is_not_read_while_the_tab_is_hidden(site: str, page: Page) -> None:  # noqa: F811
    page.add_init_script(HIDDEN_TAB)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "watchable" in r.url else None)
    page.goto(f"{site}/?delay={DELAY_MS}#/live")
    page.wait_for_selector("[data-testid=live-list] :is(table, [data-testid=live-empty])")
    page.wait_for_timeout(5500)
    assert len(asked) >= 2, asked  # read at once, then every 5 s
    page.evaluate("window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(300)
    before = len(asked)
    page.wait_for_timeout(6000)
    assert len(asked) == before, asked  # nothing asked while hidden
    page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(500)
    assert len(asked) == before + 1, asked  # shown again: read at once
