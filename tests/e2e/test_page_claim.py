"""The end of a match on the page: a claim from an opponent who left (offered exactly when
the server would accept it, made, and told as a claim to both players, not as a
resignation) and the rating change of a rated match. Real server (a short absence grace,
which the page learns from the server: it assumes none), real headless Chromium."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    browser,
    page,
    refused_by_policy,
    served_site,
    settle,
    stored,
    wait_until,
)
from tests.e2e.test_page_a11y import LIVE_RECORDER, said
from tests.e2e.test_page_lobby import pages  # noqa: F401  (fixture)
from tests.e2e.test_page_socketless import REFUSED_SOCKETS

GRACE_S = 3


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose players may claim a match after GRACE_S of absence."""
    folder = tmp_path_factory.mktemp("claim")
    with served_site(folder, GINRUMMY_ABSENCE_GRACE_S=str(GRACE_S)) as url:
        yield url


def enter_lobby(page: Page, site: str, name: str) -> None:  # noqa: F811
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    page.fill("[data-testid=lobby-name]", name)
    page.click("[data-testid=enter-lobby]")
    page.wait_for_selector("[data-testid=open-tables]")


def meet_at_a_table(
    first: Page, second: Page, site: str, names: tuple[str, str]
) -> tuple[Page, Page]:
    """``first`` opens a table in the lobby and ``second`` joins it; the page whose turn
    it is first, then the other."""
    enter_lobby(first, site, names[0])
    first.click("[data-testid=open-table]")
    first.wait_for_selector("[data-testid=waiting]:not([hidden])")
    enter_lobby(second, site, names[1])
    second.click(f"[data-testid=open-tables] li:has-text('{names[0]}') [data-testid=join]")
    for tab in (first, second):
        tab.wait_for_selector("body[data-screen=table]")
        settle(tab)
    if first.get_attribute("body", "data-my-turn") == "true":
        return first, second
    return second, first


def leave_and_time_the_offer(leaver: Page, stayer: Page) -> float:
    """Both at the table for longer than the grace (no claim offered: an opponent there
    is not away, however long it thinks), then ``leaver`` closes its page: the seconds
    until ``stayer`` offers the claim, its notice naming the leaver."""
    name = json.loads(leaver.evaluate("localStorage.getItem('ginrummy.player')"))["name"]
    time.sleep(GRACE_S + 1.5)
    assert stayer.query_selector("[data-testid=claim]") is None
    left = time.monotonic()
    leaver.context.close()
    notice = stayer.wait_for_selector("[data-testid=claim-notice]")
    offered = time.monotonic() - left
    assert notice is not None
    assert f"{name} seems to be away" in notice.inner_text()
    return offered


def rating_change(site: str, token: str, player_id: str, match_id: str) -> tuple[int, int]:
    """The API's rating before and after ``match_id``, rounded as the page shows them."""
    record = httpx.get(
        f"{site}/v1/players/{player_id}/rating", headers={"Authorization": f"Bearer {token}"}
    ).json()
    row = next(r for r in record["history"] if r["match_id"] == match_id)
    return round(row["rating_before"]), round(row["rating"])


def rating_line(before: int, after: int) -> str:
    diff = after - before
    return f"Rating: {before} → {after} ({'+' if diff >= 0 else ''}{diff})"


def test_a_player_claims_the_match_from_an_opponent_who_left(
    site: str,
    browser: Browser,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    first, second, _ = pages
    for tab in (first, second):
        tab.add_init_script(LIVE_RECORDER)  # what a screen reader is told
    # The one to play first leaves: its table and player stream close, its turn waits.
    leaver, stayer = meet_at_a_table(first, second, site, ("Ada", "Bob"))
    leaver_player = leaver.evaluate("localStorage.getItem('ginrummy.player')")
    leaver_name = json.loads(leaver_player)["name"]
    stayer_name = json.loads(stayer.evaluate("localStorage.getItem('ginrummy.player')"))["name"]
    token, match_id = stored(stayer)
    # The claim is offered once the server would accept it: the grace counts from the
    # leaving (not from the turn's start, as the page once did), and the page learns the
    # grace from the server (it once assumed the default 120 s).
    offered = leave_and_time_the_offer(leaver, stayer)
    assert GRACE_S - 0.1 <= offered < GRACE_S + 6, offered
    # Said once, as it appears: it was a role=status made anew at every redraw (each
    # answer of the server, its seconds counting on), read again at each, or never.
    away = f"{leaver_name} seems to be away"
    wait_until(stayer, f"window.__said.some(([, t]) => t.includes({json.dumps(away)}))")
    time.sleep(GRACE_S)  # the server is asked again meanwhile: the notice is redrawn
    assert "seems to be away: not connected for" in stayer.inner_text("[data-testid=claim-notice]")
    assert len([t for _, t in said(stayer) if away in t]) == 1, said(stayer)
    assert stayer.get_attribute("[data-testid=claim-notice]", "role") is None
    stayer.click("[data-testid=claim]")  # at once: accepted, never "too early"
    stayer.wait_for_selector("body[data-phase=match_over]")
    assert stayer.is_hidden("#toast"), stayer.inner_text("#toast")
    claimed = stayer.wait_for_selector("[data-testid=settlement-claimed]").inner_text()  # type: ignore[union-attr]
    assert claimed.startswith(f"You claimed the match: {leaver_name} was away"), claimed
    assert stayer.query_selector("[data-testid=settlement-resigned]") is None
    assert "You win the match" in stayer.inner_text("[data-testid=settlement]")
    view = httpx.get(
        f"{site}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert view["view"]["settlement"] is not None

    # The absent player comes back: the match was claimed from it, it did not resign.
    context = browser.new_context(viewport={"width": 1000, "height": 860})
    errors: list[str] = []
    try:
        back = context.new_page()
        back.on("pageerror", lambda exc: errors.append(str(exc)))
        back.on("console", lambda message: errors.extend(refused_by_policy(message.text)))
        back.set_default_timeout(TIMEOUT_MS)
        back.goto(f"{site}/")
        back.evaluate("p => localStorage.setItem('ginrummy.player', p)", leaver_player)
        back.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
        text = back.wait_for_selector("[data-testid=settlement-claimed]").inner_text()  # type: ignore[union-attr]
        assert text.startswith(f"{stayer_name} claimed the match from you: you were away"), text
        assert back.query_selector("[data-testid=settlement-resigned]") is None
        assert "resigned" not in back.inner_text("[data-testid=settlement]")
    finally:
        context.close()
    assert errors == [], errors


def test_a_page_whose_socket_is_refused_is_offered_the_claim_all_the_same(
    site: str,
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    """Without its match socket the page asks the server (js/socketless.js): it once asked
    once, as the match opened, and never offered the claim if the opponent left later."""
    first, second, _ = pages
    leaver, stayer = meet_at_a_table(first, second, site, ("Cy", "Di"))
    # The stayer's page opens the match again with its socket refused (the leaver's
    # socket keeps it present: a player with no socket at all is away, as the server says).
    # Left first, so that a socket the old page opens as it goes is not counted as the
    # new page's (seen: a reload's outgoing page opened its match socket once more).
    match_url = stayer.url
    stayer.goto("about:blank")
    stayer.add_init_script(REFUSED_SOCKETS)
    sockets: list[str] = []
    stayer.on("websocket", lambda ws: sockets.append(ws.url))
    stayer.goto(match_url)
    stayer.wait_for_selector("body[data-screen=table]")
    settle(stayer)
    leaver_name = json.loads(leaver.evaluate("localStorage.getItem('ginrummy.player')"))["name"]
    offered = leave_and_time_the_offer(leaver, stayer)
    # the page asks every 3 s: the offer comes at most one period after the server's time
    assert GRACE_S - 0.1 <= offered < GRACE_S + 3 + 6, offered
    stayer.click("[data-testid=claim]")
    stayer.wait_for_selector("body[data-phase=match_over]")
    assert stayer.is_hidden("#toast"), stayer.inner_text("#toast")
    claimed = stayer.wait_for_selector("[data-testid=settlement-claimed]").inner_text()  # type: ignore[union-attr]
    assert claimed.startswith(f"You claimed the match: {leaver_name} was away"), claimed
    assert sockets and not [url for url in sockets if re.search(r"/matches/[^/]+/live(\?|$)", url)]


def start_and_resign(
    page: Page,  # noqa: F811
    site: str,
    name: str | None,
    hints: bool = False,
) -> tuple[str, str]:
    """Deal a match against easy from the start form and resign it. ``name``: a new
    player on a fresh page; None: the same player, from the table's "New match"."""
    if name is None:
        page.click("#nav-new")
        page.wait_for_selector("body[data-screen=start]")
    else:
        page.goto(f"{site}/?delay={DELAY_MS}")
        page.fill("#name", name)
    page.select_option("#level", "easy")
    if hints:
        page.check("#hints")  # advice: a practice match, never rated
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    # The house AI never leaves, and cannot be claimed from.
    assert page.query_selector("[data-testid=claim]") is None
    page.click("[data-testid=resign]")
    page.click("[data-testid=resign-confirm]")
    page.wait_for_selector("body[data-phase=match_over]")
    settle(page)
    return stored(page)


def test_a_rated_match_shows_the_rating_change_and_the_header_follows(
    site: str,
    page: Page,  # noqa: F811
) -> None:
    token, match_id = start_and_resign(page, site, "Gus")
    player_id = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))["id"]
    before, after = rating_change(site, token, player_id, match_id)
    line = page.wait_for_selector("[data-testid=rating-change]").inner_text()  # type: ignore[union-attr]
    assert line == rating_line(before, after)
    assert after < before  # a resignation loses
    # The header shows the new rating without a reload.
    wait_until(
        page,
        f"document.querySelector('[data-testid=who-rating]').textContent.includes('rated {after} ')",
    )
    assert re.search(rf"rated {after} ± \d+", page.inner_text("#who"))

    # A practice match (hints asked for) says nothing of ratings.
    token, match_id = start_and_resign(page, site, None, hints=True)
    view = httpx.get(f"{site}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"})
    assert view.json()["rated"] is False
    page.wait_for_timeout(500)  # the page would have asked for the rating by now
    assert page.query_selector("[data-testid=rating-change]") is None
    assert "Rating" not in page.inner_text("#result")
