"""The end of a match leaves nothing failed behind in the browser.

When a match was over, the page went on asking the server about it, and the server
refused: the claim watch asked ``GET …/claim`` for the views the play-out shows between
the deciding move and ``match_settled`` (a resignation, a claim, the last hand scored:
the server had settled the match in that same decision, so 422 ``match_over``), and the
watch for the opponent's rematch offer asked ``GET …/rematch`` every 2 s, a 404 until
somebody offered one. Chromium writes every refused request on the console as an error.

Each way a match ends, against the house AI and between two people at a private table,
in headless Chromium against a real server: no console error, no failed request and no
4xx or 5xx answer from the table's opening until well after the end (two of the rematch
watch's polls). The opponent's moves are made over HTTP, so each test takes seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Response

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    api_view,
    browser,
    checked_tab,
    pass_page_time,
    served_site,
    settle,
    site,
    wait_until,
)
from tests.e2e.test_page_friends import auth, joined, make_player, private_table, signed_in

# The claim's site: a player away this long may be claimed from. The page asks once
# (GET …/claim) as it opens a match the opponent keeps waiting, then follows the match
# socket's presence frames; the grace leaves time for that first answer before a claim.
GRACE_S = 8
# Two of the rematch watch's asks after the end: one as it ends, the next 15 s on (while
# the player stream is open it says an offer at once, and the watch asks seldom).
AFTER_THE_END_MS = 16_000


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:  # noqa: F811
    """A tab whose timers Playwright's clock runs: the page's time after a match's end
    passes at once (``pass_page_time``), each request it sends answered on the way, where
    the test sat out AFTER_THE_END_MS at each end."""
    with checked_tab(browser, clock=True) as tab:
        yield tab


class Troubles:
    """What the browser says went wrong on a page: console errors, failed requests and
    refused answers (4xx, 5xx), each with its method and path."""

    def __init__(self, page: Page) -> None:
        self.seen: list[str] = []
        page.on("console", self._console)
        page.on("requestfailed", self._failed)
        page.on("response", self._answered)
        page.on("pageerror", lambda exc: self.seen.append(f"page error: {exc}"))

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.seen.append(f"console: {message.text} ({message.location.get('url', '')})")

    def _failed(self, request: Request) -> None:
        self.seen.append(f"failed: {request.method} {request.url} ({request.failure})")

    def _answered(self, response: Response) -> None:
        if response.status >= 400:
            self.seen.append(f"{response.status}: {response.request.method} {response.url}")


def ended_quietly(page: Page, troubles: Troubles) -> None:
    """The match is over on the page, which then asks nothing the server refuses."""
    page.wait_for_selector("body[data-phase=match_over]")
    settle(page)
    pass_page_time(page, AFTER_THE_END_MS)
    assert troubles.seen == [], troubles.seen


def waiting_and_acting(
    site: str,  # noqa: F811
    host: dict[str, str],
    guest: dict[str, str],
    match_id: str,
) -> tuple[dict[str, str], dict[str, str]]:
    """(the player who waits, the player to act) at the match's start."""
    view = httpx.get(f"{site}/v1/matches/{match_id}", headers=auth(guest)).json()["view"]
    return (host, guest) if view["to_act"] == [view["seat"]] else (guest, host)


def open_waiting(page: Page, site: str, player: dict[str, str], match_id: str) -> Troubles:  # noqa: F811
    """Open the match on ``player``'s page while the opponent is to act, once the page's
    one question of the claim (``GET …/claim``, as it opens) is answered: an opponent's
    move made while it is on its way may settle the match before the server reads it, a
    race of that question, not what is tested here."""
    signed_in(page, site, player)
    troubles = Troubles(page)
    with page.expect_response(lambda r: r.request.method == "GET" and r.url.endswith("/claim")):
        page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    wait_until(page, "document.body.dataset.screen === 'table'")
    settle(page)
    return troubles


def act(site: str, player: dict[str, str], match_id: str, action: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    answer = httpx.post(
        f"{site}/v1/matches/{match_id}/actions", json={"action": action}, headers=auth(player)
    )
    assert answer.status_code == 200, answer.text
    view: dict[str, Any] = answer.json()["view"]
    return view


def simple_move(view: dict[str, Any], knock: bool) -> dict[str, Any]:
    """A legal move for the seat to act (hints on: the engine's best discard), a knock or
    gin first if ``knock``."""
    legal = view["legal"]
    by_type = {cmd["type"]: cmd for cmd in legal}
    best = view["best_discard"][0] if view["best_discard"] else None
    knocks = [c for c in legal if c["type"] in ("gin", "knock")] if knock else []
    choice = (
        (knocks[0] if knocks else None)
        or next((c for c in legal if c["type"] == "discard" and c["card"] == best), None)
        or by_type.get("pass_up_card")
        or by_type.get("draw_stock")
        or by_type.get("next_hand")
        or legal[0]
    )
    return {k: v for k, v in choice.items() if k != "seat"}


def test_a_match_against_the_house_ends_quietly(site: str, page: Page) -> None:  # noqa: F811
    """By the player's resignation, and by the last hand (the AI knocks, the player
    finishes laying off): the page asks no claim of the house AI, nor its rematch offer."""
    player = make_player(site, "Hester")
    signed_in(page, site, player)
    troubles = Troubles(page)
    created = httpx.post(
        f"{site}/v1/matches", json={"level": "easy", "rules": "arcadia"}, headers=auth(player)
    )
    assert created.status_code == 201, created.text
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{created.json()['match_id']}")
    wait_until(page, "document.body.dataset.screen === 'table'")
    settle(page)
    page.click("[data-testid=resign]")
    page.click("[data-testid=resign-confirm]")
    ended_quietly(page, troubles)

    for attempt in range(8):  # a deal where the AI knocks (not a big gin) and waits for us
        created = httpx.post(
            f"{site}/v1/matches",
            json={
                "level": "easy",
                "rules": {"preset": "arcadia", "target": 1},
                "seed": f"house-end-{attempt}",
                "hints": True,
            },
            headers=auth(player),
        )
        assert created.status_code == 201, created.text
        match_id = created.json()["match_id"]
        view = api_view(site, player["token"], match_id)
        for _ in range(400):
            if view["phase"] in ("layoff", "match_over"):
                break
            if view["seat"] not in view["to_act"]:
                view = api_view(site, player["token"], match_id)
                continue
            view = act(site, player, match_id, simple_move(view, knock=False))
        if view["phase"] == "layoff" and view["seat"] in view["to_act"]:
            break
    else:
        raise AssertionError("the AI never knocked in 8 deals")
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-phase=layoff][data-my-turn=true]")
    settle(page)
    page.click("#actions [data-testid=finish-layoffs]")
    ended_quietly(page, troubles)


def test_a_friend_resigning_while_the_page_waits_ends_the_match_quietly(
    site: str,  # noqa: F811
    page: Page,
) -> None:
    host, guest = make_player(site, "Wanda"), make_player(site, "Ray")
    match_id = joined(site, private_table(site, host), guest)
    waiting, acting = waiting_and_acting(site, host, guest, match_id)
    troubles = open_waiting(page, site, waiting, match_id)
    act(site, acting, match_id, {"type": "resign"})
    ended_quietly(page, troubles)


def test_resigning_while_the_friend_is_to_play_ends_the_match_quietly(
    site: str,  # noqa: F811
    page: Page,
) -> None:
    host, guest = make_player(site, "Rosa"), make_player(site, "Tomas")
    match_id = joined(site, private_table(site, host), guest)
    waiting, _ = waiting_and_acting(site, host, guest, match_id)
    troubles = open_waiting(page, site, waiting, match_id)
    page.click("[data-testid=resign]")
    page.click("[data-testid=resign-confirm]")
    ended_quietly(page, troubles)


def test_the_last_hand_between_friends_ends_the_match_quietly_and_the_rematch_is_offered(
    site: str,  # noqa: F811
    page: Page,
) -> None:
    """A match to 1 point: both play over HTTP until one knocks; the knocker's page waits
    for the friend to finish laying off, which scores the hand and ends the match. The
    friend's rematch offer is then shown, and accepted, as before."""
    host, guest = make_player(site, "Kira"), make_player(site, "Dov")
    players = (host, guest)
    for _ in range(8):  # a hand ended by a knock (not a big gin, which leaves no layoff)
        table = private_table(site, host, rules={"preset": "arcadia", "target": 1}, hints=True)
        match_id = joined(site, table, guest)
        views = [api_view(site, p["token"], match_id) for p in players]
        for _ in range(400):
            if views[0]["phase"] in ("layoff", "match_over"):
                break
            to_act = next(i for i, v in enumerate(views) if v["seat"] in v["to_act"])
            act(site, players[to_act], match_id, simple_move(views[to_act], knock=True))
            views = [api_view(site, p["token"], match_id) for p in players]
        if views[0]["phase"] == "layoff":
            break
    else:
        raise AssertionError("no hand ended by a knock in 8 deals")
    knocker = next(i for i, v in enumerate(views) if v["seat"] == v["knock"]["seat"])
    defender = players[1 - knocker]
    troubles = open_waiting(page, site, players[knocker], match_id)
    act(site, defender, match_id, {"type": "finish_layoffs"})
    ended_quietly(page, troubles)

    offered = httpx.post(f"{site}/v1/matches/{match_id}/rematch", headers=auth(defender))
    assert offered.status_code == 200, offered.text
    offer = page.wait_for_selector("[data-testid=rematch-offer]")
    assert offer is not None and f"{defender['name']} offers a rematch" in offer.inner_text()
    page.click("[data-testid=rematch-accept]")
    wait_until(page, f"localStorage.getItem('ginrummy.match') !== '{match_id}'")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    assert troubles.seen == [], troubles.seen


@pytest.fixture(scope="module")
def claim_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose players may claim a match after GRACE_S of absence."""
    folder = tmp_path_factory.mktemp("match-end")
    with served_site(folder, GINRUMMY_ABSENCE_GRACE_S=str(GRACE_S)) as url:
        yield url


def test_a_claim_from_a_friend_who_left_ends_the_match_quietly(
    claim_site: str,
    page: Page,
) -> None:
    """The friend joined over HTTP and never came to the table: away from the start."""
    host, guest = make_player(claim_site, "Clara"), make_player(claim_site, "Gone")
    match_id = joined(claim_site, private_table(claim_site, host), guest)
    waiting, _ = waiting_and_acting(claim_site, host, guest, match_id)
    if waiting is guest:  # the host passes the up-card: the friend who left is to play
        view = api_view(claim_site, host["token"], match_id)
        act(claim_site, host, match_id, simple_move(view, knock=False))
    troubles = open_waiting(page, claim_site, host, match_id)
    page.click("[data-testid=claim]", timeout=(GRACE_S + 20) * 1000)
    page.wait_for_selector("[data-testid=settlement-claimed]")
    ended_quietly(page, troubles)
