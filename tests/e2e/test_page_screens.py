"""Screens that do not contradict themselves (issue 23, item 4), in headless Chromium.

Each test sets up the situation through the API of a real server, opens it on the page
and checks what the page shows: the layoff that would not help, the score pills at a
hand's end, the boxes in words, the replay viewer's labels and the knocker's melds, the
remembered opponent, and the matches in progress told apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, Route

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    api_view,
    browser,
    page,
    play_out_by_api,
    run_until,
    settle,
    shots,
    site,
    wait_until,
)
from tests.e2e.test_page_layout import (
    act,
    new_match,
    open_match,
    sign_in,
    to_hand_over,
    to_my_discard,
)


def defending_without_help(base: str, token: str, match_id: str) -> dict[str, Any] | None:
    """Never knock, so the AI does: the first time the human defends holding a card it may
    lay off but the engine's plan lays off nothing (it would not lower the deadwood)."""
    view = api_view(base, token, match_id)
    for _ in range(3000):
        if view["phase"] == "match_over":
            return None
        legal = view["legal"]
        by_type = {cmd["type"]: cmd for cmd in legal}
        if view["phase"] == "layoff" and 0 in view["to_act"]:
            layoffs = [c for c in legal if c["type"] == "lay_off"]
            if layoffs and not view["suggested_layoffs"]["layoffs"]:
                return view
        best = view["best_discard"][0] if view["best_discard"] else None
        choice = (
            next((c for c in legal if c["type"] == "discard" and c["card"] == best), None)
            or by_type.get("pass_up_card")
            or by_type.get("draw_stock")
            or by_type.get("finish_layoffs")
            or by_type.get("next_hand")
            or legal[0]
        )
        view = act(base, token, match_id, choice)
    raise AssertionError("the match went on for too long")


def test_a_layoff_that_would_not_help_is_explained_not_contradicted(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    found = None
    for attempt in range(6):
        player, match_id = new_match(site, "Hedy", f"page-no-help-{attempt}")
        found = defending_without_help(site, player["token"], match_id)
        if found is not None:
            break
    assert found is not None, "no defence where a legal layoff would not help"
    cards = {c["card"] for c in found["legal"] if c["type"] == "lay_off"}
    sign_in(page, site, player, {"hints": True})
    page.goto(f"{site}/?delay={DELAY_MS}#/match/{match_id}")
    page.wait_for_selector("body[data-phase=layoff][data-my-turn=true]")
    settle(page)
    actions = page.inner_text("#actions")
    assert "Nothing to lay off" not in actions, actions
    assert page.query_selector("[data-testid=layoff-best]") is None
    why = page.inner_text("[data-testid=layoff-why]")
    assert "would not lower your deadwood" in why
    assert str(found["arrangement"]["deadwood_points"]) in why
    names = page.evaluate(
        "async (cards) => { const { cardName } = await import('/js/cards.js');"
        " return cards.map(cardName); }",
        sorted(cards),
    )
    assert all(name in why for name in names), (names, why)
    assert page.inner_text("[data-testid=finish-layoffs]").startswith("Keep my melds: finish")
    # The best layoffs are not a hint (docs/rules.md, "Laying off"): with the Hints tick
    # off the page still offers the layoffs, says why they would not help, and keeps "Keep
    # my melds".
    page.uncheck("[data-testid=hints-toggle]")
    page.reload()
    page.wait_for_selector("body[data-phase=layoff][data-my-turn=true]")
    settle(page)
    assert not page.is_checked("[data-testid=hints-toggle]")
    assert page.inner_text("[data-testid=layoff-why]") == why
    assert page.query_selector("[data-testid=layoff-best]") is None
    assert page.inner_text("[data-testid=finish-layoffs]").startswith("Keep my melds: finish")
    assert page.locator("[data-testid=layoff]").count() == len(
        [c for c in found["legal"] if c["type"] == "lay_off"]
    )


def test_one_score_pill_is_lit_in_play_none_at_a_hands_end_and_boxes_are_in_words(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
    shots: Path,  # noqa: F811
) -> None:
    player, match_id = new_match(site, "Ada", "pills")
    token = player["token"]
    to_my_discard(site, token, match_id)
    sign_in(page, site, player)
    open_match(page, site, match_id)
    lit = page.eval_on_selector_all(
        "#scorebar .score.acting", "els => els.map(e => e.dataset.testid)"
    )
    assert lit == ["pill-me"]
    assert "0 boxes" in page.inner_text("[data-testid=pill-me]")
    assert "0 boxes" in page.inner_text("[data-testid=pill-opponent]")

    view = to_hand_over(site, token, match_id)
    page.reload()
    page.wait_for_selector("[data-testid=hand-result]")
    settle(page)
    assert page.query_selector("#scorebar .score.acting") is None, "both pills lit at the end"
    result = view["last_result"]
    if result["type"] == "hand_scored":
        winner = "pill-me" if result["winner"] == 0 else "pill-opponent"
        assert "1 box" in page.inner_text(f"[data-testid={winner}]")
        assert "box" in (page.get_attribute(f"[data-testid={winner}] .boxes", "title") or "")


def test_the_replay_draws_each_card_once_and_its_labels_clear_the_heading(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    player, match_id = new_match(
        site, "Grace", "page-replay-knock", rules={"preset": "arcadia", "target": 1}
    )
    token = player["token"]
    play_out_by_api(site, token, match_id)
    events = httpx.get(
        f"{site}/v1/matches/{match_id}/events?after=0&limit=1000",
        headers={"Authorization": f"Bearer {token}"},
    ).json()["events"]
    knock = next(e for e in events if e["event"]["type"] == "knocked")
    last = events[-1]["version"]
    sign_in(page, site, player)
    page.goto(f"{site}/#/replay/{match_id}")
    page.wait_for_selector("#replay[data-shown='2']")
    assert page.inner_text("[data-testid=replay-rules]") == (
        "Rules: arcadia, changed: to 1 (was to 100)"
    )
    assert "0 boxes" in page.inner_text("[data-testid=replay-score]")
    page.keyboard.press("Home")
    page.wait_for_selector("#replay[data-shown='1']")
    # Every event, a washed hand's and the scored hand's included: each card shows once.
    for at in range(2, last + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f"#replay[data-shown='{at}']")
        cards = page.eval_on_selector_all(
            "[data-testid=replay-board] [data-card]", "els => els.map(e => e.dataset.card)"
        )
        assert len(cards) == len(set(cards)), f"a card drawn twice at event {at}: {cards}"
        # The stock and pile labels overlap no heading or label of the board.
        clash = page.evaluate(
            """() => {
                 const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect());
                 const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
                 const counts = boxes('#replay .pile-view .count');
                 const texts = boxes('#replay h1, #replay h2, #replay .label, #replay .narration, #replay .replay-score');
                 return counts.some((c) => texts.some((t) => meet(c, t)));
               }"""
        )
        assert clash is False, f"a label overlaps at event {at}"
        if at == knock["version"]:
            knocker = page.inner_text("[data-testid=replay-knocker]")
            assert "knocked with these melds" in knocker
            assert page.locator("[data-testid=replay-knocker] .group.meld").count() == len(
                knock["event"]["melds"]
            )
            page.set_viewport_size({"width": 390, "height": 844})  # on a phone it fits too
            page.wait_for_timeout(100)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.set_viewport_size({"width": 1000, "height": 860})


def test_the_opponent_and_rules_chosen_last_are_remembered(site: str, page: Page) -> None:  # noqa: F811
    page.goto(f"{site}/?delay={DELAY_MS}")
    assert page.input_value("#level") == "medium"
    page.fill("#name", "Barbara")
    page.select_option("#level", "random")  # every house level a match can be played against
    page.select_option("#preset", "classic")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    settle(page)
    page.click("#nav-new")
    page.wait_for_selector("body[data-screen=start]")
    assert page.input_value("#level") == "random"
    page.reload()
    page.wait_for_selector("#resume:not([hidden])")
    assert "against Computer (random)" in page.inner_text("#resume")
    assert (page.input_value("#level"), page.input_value("#preset")) == ("random", "classic")
    assert "highest total wins" in page.inner_text("[data-testid=preset-about]")


def test_matches_in_progress_are_told_apart(site: str, page: Page) -> None:  # noqa: F811
    player, first = new_match(site, "Alan", "resume-1")
    second = httpx.post(
        f"{site}/v1/matches",
        json={"level": "easy", "rules": "arcadia", "seed": "resume-2"},
        headers={"Authorization": f"Bearer {player['token']}"},
    ).json()["match_id"]
    sign_in(page, site, player)
    page.goto(f"{site}/#/")
    page.wait_for_selector("#resume:not([hidden])")
    rows = page.eval_on_selector_all("#resume li", "els => els.map(e => e.textContent)")
    assert len(rows) == 2 and rows[0] != rows[1], rows
    listed = httpx.get(
        f"{site}/v1/matches?status=active",
        headers={"Authorization": f"Bearer {player['token']}"},
    ).json()["matches"]
    for row, match in zip(rows, listed, strict=True):
        assert "started " in row and match["match_id"][:6] in row, row
        year = match["started_at"][:4]
        assert year in row, (year, row)
    assert {first[:6], second[:6]} == {m["match_id"][:6] for m in listed}


def test_a_custom_rule_set_says_what_it_changed_in_the_lists(site: str, page: Page) -> None:  # noqa: F811
    player, match_id = new_match(
        site, "Edsger", "custom-list", rules={"preset": "arkadium", "knock_limit": 5}
    )
    sign_in(page, site, player)
    page.goto(f"{site}/#/")
    resume = page.wait_for_selector("#resume:not([hidden]) li")
    assert resume is not None
    wait_until(
        page,
        "document.querySelector('#resume li').textContent.includes('knock ≤ 5 (was knock ≤ 10)')",
    )
    assert "+custom" not in page.inner_text("#resume")
    page.click("#nav-history")
    row = f"tr[data-match-id='{match_id}'] td[data-label=Rules]"
    page.wait_for_selector(row)
    wait_until(
        page,
        f"document.querySelector({json.dumps(row)}).textContent"
        " === 'arkadium, changed: knock ≤ 5 (was knock ≤ 10) (practice)'",  # custom: practice
    )


def test_a_custom_rule_set_is_named_in_words_in_the_history_links(site: str, page: Page) -> None:  # noqa: F811
    # The row's Resume (Replay, Verify) link is heard with its match: it said
    # "arkadium+custom" where the row shows what the rule set changes.
    player, match_id = new_match(
        site, "Edsger", "custom-heard", rules={"preset": "arkadium", "knock_limit": 5}
    )
    sign_in(page, site, player)
    page.goto(f"{site}/#/history")
    link = f"tr[data-match-id='{match_id}'] a.button"
    page.wait_for_selector(link)
    wait_until(
        page,
        f"document.querySelector({json.dumps(link)}).textContent"
        ".includes('arkadium, changed: knock ≤ 5 (was knock ≤ 10)')",
    )
    name = page.locator(link).evaluate("a => a.textContent")
    assert name.startswith("Resume the match against "), name
    assert "+custom" not in name, name


def test_a_watched_house_match_links_to_its_watch_page(site: str, page: Page) -> None:  # noqa: F811
    # The host of a match between two house AIs holds no seat: its lists send it to watch.
    player = httpx.post(f"{site}/v1/players", json={"name": "Grace"}).json()
    created = httpx.post(
        f"{site}/v1/house-matches",
        json={"seats": ["ai:easy", "ai:medium"]},
        headers={"Authorization": f"Bearer {player['token']}"},
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    sign_in(page, site, player)
    page.goto(f"{site}/#/")
    link = page.wait_for_selector("#resume:not([hidden]) [data-testid=resume-match]")
    assert link is not None
    assert link.get_attribute("href") == f"#/watch/{match_id}"
    assert "watching two house AIs" in link.inner_text()
    page.click("#nav-history")
    row = page.wait_for_selector(f"tr[data-match-id='{match_id}']")
    assert row is not None
    assert "two house AIs" in row.inner_text()
    watch = page.wait_for_selector(f"tr[data-match-id='{match_id}'] a.button")
    assert watch is not None and watch.get_attribute("href") == f"#/watch/{match_id}"


def test_the_header_keeps_its_height_from_screen_to_screen(site: str, page: Page) -> None:  # noqa: F811
    """The header drew the player's rating empty on every move between screens and filled
    it again once read: at a desktop's width it is one row without the rating and two with
    it, so the whole page went up a line and came back down, under the pointer (a click
    just then could land beside its button). The rating shown stays while it is read: here
    each screen's read of it is held until the header has been measured."""
    # A short name: at 1000 px the header is one row without the rating and two with it.
    player = httpx.post(f"{site}/v1/players", json={"name": "Wil"}).json()
    sign_in(page, site, player)
    page.goto(f"{site}/#/lobby")
    page.wait_for_selector("[data-testid=who-rating]:has-text('rated')")
    height = "document.querySelector('header.top').offsetHeight"
    first = page.evaluate(height)
    held: list[Route] = []
    page.route(re.compile(r".*/v1/me$"), lambda route: held.append(route))
    for screen in ("history", "leaderboard", "live", "lobby", "rules"):
        page.click(f"#nav-{screen}")
        page.wait_for_selector(f"body[data-screen={screen}]")
        run_until(page, lambda: bool(held), 2000)  # the header asks as the screen is drawn
        assert held, "the rating was not read again"
        assert page.evaluate(height) == first, screen
        assert "rated" in page.inner_text("[data-testid=who-rating]"), screen
        while held:
            held.pop().continue_()


def test_a_new_players_header_shows_its_rating_at_once(site: str, page: Page) -> None:  # noqa: F811
    """A player made by "Enter the lobby" is answered with its rating, and the header shows
    it at once: read afterwards, it came in a moment later and moved the page a line, just
    as the lobby (its Join and Open buttons) had been drawn. A page opened later shows the
    rating last read, also at once."""
    held: list[Route] = []
    holding = [True]
    page.route(
        re.compile(r".*/v1/me$"),
        lambda route: held.append(route) if holding[0] else route.continue_(),
    )
    page.goto(f"{site}/?delay={DELAY_MS}#/lobby")
    page.fill("[data-testid=lobby-name]", "Neu")
    page.click("[data-testid=enter-lobby]")
    run_until(page, lambda: bool(held), 2000)
    assert held, "the header did not read the rating"
    shown = page.inner_text("[data-testid=who-rating]")
    assert "rated 1500" in shown and "provisional" in shown, shown
    height = "document.querySelector('header.top').offsetHeight"
    before = page.evaluate(height)
    holding[0] = False
    while held:
        held.pop().continue_()
    page.wait_for_timeout(300)
    assert page.inner_text("[data-testid=who-rating]") == shown
    assert page.evaluate(height) == before

    player = json.loads(page.evaluate("localStorage.getItem('ginrummy.player')"))
    assert player["rating"]["provisional"] is True
    holding[0] = True
    page.reload()
    page.wait_for_selector("[data-testid=who-rating]")
    assert page.inner_text("[data-testid=who-rating]") == shown


def test_a_token_the_server_refuses_shows_no_rating_kept_with_it(site: str, page: Page) -> None:  # noqa: F811
    """The rating kept with the saved player is drawn at once, before GET /v1/me answers;
    a token this server refuses (another database's, revoked or expired) answers 401, and
    the kept rating, which this server never gave, was left in the header for good (and in
    localStorage, to be drawn again on every page). It goes as the 401 comes."""
    page.goto(f"{site}/")
    kept = {"rating": 1900, "deviation": 60, "provisional": False}
    page.evaluate(
        "p => localStorage.setItem('ginrummy.player', JSON.stringify(p))",
        {"id": "0" * 32, "name": "Otto", "token": "from-another-database", "rating": kept},
    )
    with page.expect_response(re.compile(r".*/v1/me$")) as answer:
        page.goto(f"{site}/#/rules")
    assert answer.value.status == 401
    wait_until(page, "!JSON.parse(localStorage.getItem('ginrummy.player')).rating", timeout=5000)
    assert "1900" not in page.inner_text("#who")
    assert "Otto" in page.inner_text("#who")  # still the player this browser keeps


def test_a_visitor_not_signed_in_sees_the_leaderboard_and_is_told_what_history_needs(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """History is read with a player's token: opened by a visitor with none, it asked
    anyway and showed the server's "Missing or invalid bearer token" in a toast and
    "Could not load your matches"; it now asks nothing and says what to do. The
    leaderboard needs no token (it was "for players" only): the visitor sees the boards,
    and how to be rated, and nothing is refused."""
    refused: list[str] = []
    page.on("response", lambda r: refused.append(r.url) if r.status == 401 else None)
    page.goto(f"{site}/#/leaderboard")
    said = page.wait_for_selector("[data-testid=leaderboard-signed-out]")
    assert said is not None and "enter the lobby" in said.inner_text()
    assert page.locator("[data-testid=my-rating]").count() == 0
    page.wait_for_selector("[data-testid=leaderboard-empty], [data-testid=leaderboard]")
    page.click("[data-testid=board-bot]")
    page.wait_for_selector("[data-testid=leaderboard] :text('house AI')")
    page.click("#nav-history")
    page.wait_for_selector("#history:has-text('No matches yet')")
    page.wait_for_timeout(300)  # a request refused would have come back by now
    assert refused == []
    assert page.is_hidden("#toast"), page.inner_text("#toast")
