"""A table with a custom target or knock limit, opened from the lobby's own form.

POST /v1/tables takes a custom rule set (docs/rules.md, "Custom rule sets"), but the
lobby offered the presets alone. Its open-table form now has an "Advanced" disclosure
with a target and a knock limit, checked against the server's bounds before anything is
sent (and the server's own words shown if it still refuses); such a table is unrated,
as the server rates presets only, and the open tables say what it changes. Real server,
real headless Chromium; what was opened is read back through the API.
"""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, Request, Route

from domain.rules import _BOUNDS, PRESETS
from tests.e2e.test_page import (  # noqa: F401  (fixtures)
    browser,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_lobby import enter_lobby, pages  # noqa: F401
from tests.e2e.test_page_lobby_clock import my_tables


def test_a_table_with_a_custom_target_and_knock_limit_is_checked_then_opened(
    site: str,  # noqa: F811
    pages: tuple[Page, Page, Page],  # noqa: F811
) -> None:
    ada, bob, _ = pages
    posts: list[str] = []

    def seen(request: Request) -> None:
        if request.method == "POST" and re.search(r"/v1/tables$", request.url):
            posts.append(request.url)

    ada.on("request", seen)
    enter_lobby(ada, site, "Ada Custom")
    ada.select_option("[data-testid=table-preset]", "arkadium")
    ada.click("[data-testid=table-advanced] summary")
    # Out of the server's bounds: said beside the field, nothing sent.
    ada.fill("[data-testid=table-knock-limit]", "11")
    ada.click("[data-testid=open-table]")
    problem = ada.wait_for_selector("[data-testid=table-problem]:not([hidden])")
    words = problem.inner_text()  # type: ignore[union-attr]
    assert "knock limit" in words and "from 0 (gin only) to 10" in words, words
    assert ada.evaluate("document.activeElement.dataset.testid") == "table-knock-limit"
    assert posts == [] and my_tables(site, ada) == []
    ada.fill("[data-testid=table-target]", "0")
    ada.fill("[data-testid=table-knock-limit]", "5")
    assert ada.is_hidden("[data-testid=table-problem]")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector("[data-testid=table-problem]:not([hidden])")
    assert "1 to 10000" in ada.inner_text("[data-testid=table-problem]")
    assert posts == []
    # Mended: a custom rule set is never rated, and the form says so before opening.
    ada.fill("[data-testid=table-target]", "50")
    assert ada.is_disabled("[data-testid=table-rated]")
    assert "preset's rules" in ada.inner_text("[data-testid=table-rated-why]")
    ada.click("[data-testid=open-table]")
    ada.wait_for_selector("[data-testid=my-table]")
    (table,) = my_tables(site, ada)
    assert table["rated"] is False and table["practice"] is True
    rules = table["rules"]
    assert (rules["name"], rules["target"], rules["knock_limit"]) == ("arkadium+custom", 50, 5)
    assert rules["gin_bonus"] == PRESETS["arkadium"].gin_bonus  # the rest: the preset's

    # The one who may join reads what the table changes before joining.
    enter_lobby(bob, site, "Bob Custom")
    row = bob.wait_for_selector("[data-testid=open-tables] li:has-text('Ada Custom')")
    words = row.inner_text()  # type: ignore[union-attr]
    assert "knock ≤ 5 (was knock ≤ 10)" in words and "to 50 (was to 100)" in words, words
    assert "unrated" in words


def test_the_servers_refusal_of_custom_rules_is_shown_in_its_words(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A page whose own check is out of date still says the server's refusal beside the
    form. The request goes to the real server with a target it refuses."""
    enter_lobby(page, site, "Stale Rules")

    def too_low(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        rules = {**body["rules"], "target": 0}
        route.continue_(post_data=json.dumps({**body, "rules": rules}))

    page.route(re.compile(r".*/v1/tables$"), too_low)
    page.click("[data-testid=table-advanced] summary")
    page.fill("[data-testid=table-target]", "20")
    page.click("[data-testid=open-table]")
    problem = page.wait_for_selector("[data-testid=table-problem]:not([hidden])")
    text = problem.inner_text()  # type: ignore[union-attr]
    assert text.startswith("The server opened nothing."), text
    assert "rules.target: Expected `int` >= 1" in text, text
    assert my_tables(site, page) == []


def test_the_pages_rule_bounds_are_the_domains(site: str, page: Page) -> None:  # noqa: F811
    page.goto(f"{site}/")
    shown = page.evaluate("async () => (await import('/js/customrules.js')).RULE_BOUNDS")
    assert {field: tuple(b) for field, b in shown.items()} == {
        field: _BOUNDS[field] for field in shown
    }
