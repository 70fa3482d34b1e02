"""The rules in the page (issue 23, item 1), in Debian's headless Chromium.

A "How to play" link on every screen opens the rules screen: the game in short, the
presets, worked examples and the full rule book (served by the server itself). Opened
from a match it shows that match's rules, its changes from the preset marked. A first
deal shows a short tour of the table once; dismissed, it stays away after a reload.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import httpx
from playwright.sync_api import Browser, Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    DELAY_MS,
    TIMEOUT_MS,
    api_view,
    browser,
    page,
    settle,
    site,
)
from tests.e2e.test_page_layout import new_match, open_match, overflow, sign_in

RULE_BOOK = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_the_server_serves_the_rule_book_as_markdown(site: str) -> None:  # noqa: F811
    answer = httpx.get(f"{site}/rules.md")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/markdown")
    assert answer.text == RULE_BOOK.read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_of_the_served_rule_book_resolves(site: str) -> None:  # noqa: F811
    """The rule book's links to other documents (fair-deal.md, and theirs in turn) and to
    its own sections work from the server's copy, as they do in the repository."""
    todo, seen, links = ["/rules.md"], set(), 0
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        answer = httpx.get(f"{site}{path}")
        assert answer.status_code == 200, path
        assert answer.headers["content-type"].startswith("text/markdown"), path
        for target in re.findall(r"\]\(([^)\s]+)\)", answer.text):
            if "://" in target or target.startswith("mailto:"):
                continue
            links += 1
            document, _, anchor = target.partition("#")
            linked = urljoin(path, document) if document else path
            todo.append(linked)
            if anchor:
                text = httpx.get(f"{site}{linked}").text
                anchors = {_slug(h) for h in re.findall(r"^#+ (.*)$", text, re.MULTILINE)}
                assert anchor in anchors, f"{path}: {target}"
    assert {"/rules.md", "/fair-deal.md"} <= seen and links > 5


def test_how_to_play_is_on_every_screen(site: str, page: Page) -> None:  # noqa: F811
    player, match_id = new_match(site, "Rita", "rules-every-screen")
    sign_in(page, site, player)
    screens = {
        "start": "#/",
        "lobby": "#/lobby",
        "history": "#/history",
        "leaderboard": "#/leaderboard",
        "rules": "#/rules",
        "watch": f"#/watch/{match_id}",
        "replay": f"#/replay/{match_id}",
        "table": f"#/match/{match_id}",
    }
    for screen, route in screens.items():
        page.goto(f"{site}/?delay={DELAY_MS}{route}")
        page.wait_for_selector(f"body[data-screen={screen}]")
        link = page.locator("[data-testid=how-to-play]")
        assert link.is_visible(), screen
        if screen != "table":
            assert link.get_attribute("href") == "#/rules", screen
    # From a match, the link opens that match's rules.
    assert page.get_attribute("[data-testid=how-to-play]", "href") == f"#/rules/{match_id}"
    page.click("[data-testid=how-to-play]")
    page.wait_for_selector("body[data-screen=rules]")
    page.wait_for_selector("[data-testid=match-rules]")


def test_the_rules_screen_explains_the_game_and_the_presets(site: str, page: Page) -> None:  # noqa: F811
    page.goto(f"{site}/#/rules")
    page.wait_for_selector("body[data-screen=rules]")
    text = page.inner_text("#rules")
    for word in (
        "Melds",
        "Deadwood",
        "knock",
        "Gin",
        "Big gin",
        "undercut",
        "Laying off",
        "box",
        "match bonus",
        "The ace is low",  # RULES.md: Q-K-A and K-A-2 are not runs
        "if both pass, the non-dealer draws from the stock",
        "never after gin or big gin",
    ):
        assert word in text, word
    presets = page.eval_on_selector_all(
        "[data-testid=rules-presets] dt", "els => els.map(e => e.dataset.preset)"
    )
    assert presets == ["arcadia", "arkadium", "classic"]
    examples = page.locator("[data-testid=rules-examples] li")
    assert examples.count() >= 2
    assert "33" in examples.nth(0).inner_text()
    # The rule book link goes to the server's own copy.
    href = page.get_attribute("[data-testid=rule-book]", "href")
    assert href == "/rules.md"
    assert httpx.get(f"{site}{href}").status_code == 200
    # No match asked for: no match rules table.
    assert page.locator("[data-testid=match-rules]").count() == 0
    # The examples are the rule book's, whose numbers the engine checks
    # (tests/domain/test_rules_doc.py).
    book = RULE_BOOK.read_text(encoding="utf-8")
    assert "the knocker scores 33" in book and "the defender scores 32" in book
    assert "totals:       Ada 329, Bo 137" in book
    shown = [examples.nth(i).inner_text() for i in range(3)]
    assert "= 33" in shown[0] and "= 32" in shown[1] and "Ada 329, Bo 137" in shown[2]
    # The browser shows the rule book itself (it is not a download).
    with page.context.expect_page() as opened:
        page.click("[data-testid=rule-book]")
    book_tab = opened.value
    book_tab.wait_for_load_state()
    assert book_tab.inner_text("body").startswith("# The rules of Gin Rummy")


def test_a_matchs_rules_mark_what_differs_from_its_preset(site: str, page: Page) -> None:  # noqa: F811
    player, match_id = new_match(
        site, "Rory", "rules-custom", {"preset": "arkadium", "knock_limit": 5, "target": 50}
    )
    sign_in(page, site, player)
    page.goto(f"{site}/#/rules/{match_id}")
    page.wait_for_selector("[data-testid=match-rules]")
    changed = page.eval_on_selector_all(
        "[data-testid=match-rules] tr.changed", "els => els.map(e => e.dataset.field)"
    )
    assert sorted(changed) == ["knock_limit", "target"]
    row = page.inner_text("[data-testid=match-rules] tr[data-field=knock_limit]")
    assert "5" in row and "10" in row and "changed" in row
    unchanged = page.locator("[data-testid=match-rules] tr[data-field=gin_bonus]")
    assert unchanged.get_attribute("data-changed") == "false"
    line = page.inner_text("[data-testid=match-rules-line]")
    assert line.startswith("arkadium, changed:") and "knock ≤ 5" in line
    # A preset match has no changed row.
    player2, plain = new_match(site, "Ruth", "rules-plain", "classic")
    sign_in(page, site, player2)
    page.goto(f"{site}/#/rules/{plain}")
    page.wait_for_selector("[data-testid=match-rules]")
    assert page.locator("[data-testid=match-rules] tr.changed").count() == 0
    assert page.inner_text("[data-testid=match-rules-line]") == "classic"


def test_a_matchs_rules_say_its_aim_and_its_oklahoma_knock_limit(site: str, page: Page) -> None:  # noqa: F811
    """Opened from a match, "How to play" gave the aim as "first to the target (100 points)"
    whatever the match's target and winner rule, and with Oklahoma the table's knock limit
    read "10". The aim, knocking and the table say the match's own rules (QA F9)."""
    rules = {"preset": "arkadium", "target": 250, "gin_bonus": 40, "oklahoma": True}
    player, match_id = new_match(site, "Okla", "rules-oklahoma", rules)
    hand_limit = api_view(site, player["token"], match_id)["knock_limit"]
    sign_in(page, site, player)
    page.goto(f"{site}/#/rules/{match_id}")
    page.wait_for_selector("[data-testid=match-rules]")
    aim = page.inner_text("#rules section:has(h2:text-is('The aim'))")
    assert "be first to the target (250 points)" in aim and "100" not in aim, aim
    knock = page.locator("[data-testid=match-rules] tr[data-field=knock_limit] td").first
    limit = "gin only" if hand_limit == 0 else str(hand_limit)
    assert knock.inner_text().startswith(f"the up-card's value (Oklahoma, this hand {limit})")
    row = page.locator("[data-testid=match-rules] tr[data-field=knock_limit]")
    assert row.get_attribute("data-changed") == "true"
    knocking = page.inner_text("[data-testid=rules-knocking]")
    assert "Oklahoma" in knocking and "10 or less" not in knocking, knocking
    # A classic match to 40: the highest total wins, once someone reaches 40.
    player2, classic = new_match(
        site, "Clay", "rules-classic-40", {"preset": "classic", "target": 40, "knock_limit": 7}
    )
    sign_in(page, site, player2)
    page.goto(f"{site}/#/rules/{classic}")
    page.wait_for_selector("[data-testid=match-rules]")
    aim = page.inner_text("#rules section:has(h2:text-is('The aim'))")
    assert "reaches the target (40 points)" in aim and "highest total" in aim, aim
    assert "first to" not in aim, aim
    assert "leaves you 7 or less deadwood" in page.inner_text("[data-testid=rules-knocking]")


def deal_from_the_form(page: Page, base: str, name: str) -> None:  # noqa: F811
    page.goto(f"{base}/?delay={DELAY_MS}#/")
    page.fill("#name", name)
    page.select_option("#level", "easy")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    page.wait_for_selector("#hand [data-card]")
    settle(page)


def test_the_first_match_tour_shows_once_and_stays_dismissed(site: str, page: Page) -> None:  # noqa: F811
    deal_from_the_form(page, site, "Tess")
    tour = page.locator("[data-testid=tour]")
    tour.wait_for()
    pointed = []
    for _ in range(4):
        pointed.append(page.eval_on_selector(".tour-target", "el => el.id"))
        if page.locator("[data-testid=tour-next]").count() == 0:
            break
        page.click("[data-testid=tour-next]")
    assert pointed == ["hand", "piles", "actions", "nav-rules"]
    page.click("[data-testid=tour-close]")
    assert tour.count() == 0
    assert page.locator(".tour-target").count() == 0
    prefs = page.evaluate("JSON.parse(localStorage.getItem('ginrummy.prefs'))")
    assert prefs["tourSeen"] is True  # remembered in this browser, not only in this tab
    page.reload()
    page.wait_for_selector("#hand [data-card]")
    settle(page)
    assert page.locator("[data-testid=tour]").count() == 0
    # A second deal does not show it again.
    deal_from_the_form(page, site, "Tess")
    assert page.locator("[data-testid=tour]").count() == 0
    # The rules screen can ask for it again: it shows on the match.
    page.click("[data-testid=how-to-play]")
    page.click("[data-testid=tour-again]")
    page.wait_for_selector("body[data-screen=table]")
    page.locator("[data-testid=tour]").wait_for()
    page.click("[data-testid=tour-close]")  # skipped at the first step
    page.reload()
    page.wait_for_selector("#hand [data-card]")
    settle(page)
    assert page.locator("[data-testid=tour]").count() == 0


def test_a_first_match_under_a_move_clock_shows_no_tour_until_one_without(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The tour is not modal, but it takes the keyboard and the reading while a newcomer's
    move clock runs: under a clock it waits for the first match without one."""
    page.goto(f"{site}/?delay={DELAY_MS}#/")
    page.fill("#name", "Clocky")
    page.select_option("#level", "easy")
    page.select_option("[data-testid=start-clock]", "move-60")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    page.wait_for_selector("#hand [data-card]")
    settle(page)
    page.wait_for_timeout(500)
    assert page.locator("[data-testid=tour]").count() == 0
    page.goto(f"{site}/?delay={DELAY_MS}#/")
    page.select_option("[data-testid=start-clock]", "none")
    page.click("[data-testid=start]")
    page.wait_for_selector("body[data-screen=table]")
    page.locator("[data-testid=tour]").wait_for()


def test_a_match_opened_by_its_address_shows_no_tour_unasked(site: str, page: Page) -> None:  # noqa: F811
    player, match_id = new_match(site, "Ugo", "rules-no-tour")
    sign_in(page, site, player)
    open_match(page, site, match_id)
    assert page.locator("[data-testid=tour]").count() == 0


def test_the_rules_screen_fits_a_phone(browser: Browser, site: str) -> None:  # noqa: F811
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    try:
        player, match_id = new_match(
            site, "Pia", "rules-phone", {"preset": "classic", "gin_bonus": 30}
        )
        sign_in(tab, site, player)
        tab.goto(f"{site}/#/rules/{match_id}")
        tab.wait_for_selector("[data-testid=match-rules] tr.changed")
        assert overflow(tab) <= 0
        tab.goto(f"{site}/#/rules")
        tab.wait_for_selector("[data-testid=rules-presets]")
        assert overflow(tab) <= 0
    finally:
        context.close()


def test_the_tours_knock_step_says_this_hands_knock_limit(site: str, page: Page) -> None:  # noqa: F811
    """Oklahoma: the up-card sets the knock limit, so the tour takes it from the view (it
    said "10 or less" whatever the limit, and that Knock "appears", though the button is
    always there, greyed)."""
    for n in range(20):  # a deal whose up-card sets a limit other than 10
        player, match_id = new_match(
            site, "Olga", f"tour-oklahoma-{n}", {"preset": "arcadia", "oklahoma": True}
        )
        view = api_view(site, player["token"], match_id)
        if view["knock_limit"] != 10:
            break
    limit = view["knock_limit"]
    assert limit != 10
    sign_in(page, site, player)
    page.evaluate("sessionStorage.setItem('ginrummy.tour-pending', '1')")
    open_match(page, site, match_id)
    page.locator("[data-testid=tour]").wait_for()
    page.click("[data-testid=tour-next]")
    page.click("[data-testid=tour-next]")
    assert page.eval_on_selector(".tour-target", "el => el.id") == "actions"
    text = page.inner_text("[data-testid=tour-step]")
    assert "appears" not in text and "10 or less" not in text
    assert "greyed" in text and "Oklahoma" in text
    assert (f"{limit} or less deadwood" if limit else "only Gin goes out") in text


def test_each_tour_step_shows_its_part_of_the_table_on_a_phone(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """On a phone the hand was under the action bar while the tour's first step spoke of it:
    each step brings its part into sight, below the tour and above the bar."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    try:
        deal_from_the_form(tab, site, "Tina")
        tab.locator("[data-testid=tour]").wait_for()
        seen = {}
        for _ in range(4):
            # the point at the middle of the part (its first card for the hand) is the
            # part's own: on the screen, and under neither the tour nor the action bar
            seen[tab.eval_on_selector(".tour-target", "el => el.id")] = tab.evaluate(
                """() => {
                  const target = document.querySelector('.tour-target');
                  const part = target.id === 'hand' ? target.querySelector('[data-card]') : target;
                  const box = part.getBoundingClientRect();
                  const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
                  return Boolean(hit && target.contains(hit));
                }"""
            )
            if tab.locator("[data-testid=tour-next]").count() == 0:
                break
            tab.click("[data-testid=tour-next]")
        assert seen == {"hand": True, "piles": True, "actions": True, "nav-rules": True}, seen
    finally:
        context.close()
