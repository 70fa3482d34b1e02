"""The no-progress rule on the page (the review of the page, item 5).

In real Chromium against a real server (the fixtures of test_page.py). The rule was
shown only by a small count under the pile, its meaning in a tooltip a phone cannot
show: "How to play" now says it in the rule book's words and numbers, the table says so
in a visible line when a hand comes near the limit, and the count reads in whole lines
on a phone.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page

from domain.rules import PRESETS
from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    TIMEOUT_MS,
    browser,
    page,
    settle,
    site,
)
from tests.e2e.test_page_layout import (
    advance_until,
    my_turn_to,
    new_match,
    open_match,
    overflow,
    sign_in,
)


def to_my_discard_with_a_pile_take(base: str, token: str, match_id: str) -> dict[str, Any]:
    """Take a face-up card (the up-card, or the pile's top) as soon as one is offered."""
    return advance_until(
        base,
        token,
        match_id,
        lambda view: my_turn_to("discard")(view) and view["pile_draws"] > 0,
        ("take_up_card", "draw_discard", "discard", "pass_up_card"),
        steps=20,
    )


def test_how_to_play_says_the_no_progress_rule_in_the_rule_books_words(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    limit = PRESETS["arcadia"].pile_draw_limit
    page.goto(f"{site}/#/rules")
    page.wait_for_selector("body[data-screen=rules]")
    text = page.inner_text("#rules")
    assert f"once the players have taken {limit} face-up cards between them in one hand" in text
    assert "stock draws do not" in text and "no score, no box, the same dealer deals again" in text


def test_how_to_play_from_a_match_says_that_matchs_limit_or_that_the_rule_is_off(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    presets = PRESETS["arcadia"].pile_draw_limit
    player, custom = new_match(
        site, "Cleo", "no-progress-rules-7", {"preset": "arcadia", "pile_draw_limit": 7}
    )
    sign_in(page, site, player)
    page.goto(f"{site}/#/rules/{custom}")
    rule = page.wait_for_selector("[data-testid=no-progress-rule][data-limit='7']")
    assert rule is not None
    assert "once the players have taken 7 face-up cards between them in one hand" in (
        rule.inner_text()
    )
    assert rule.inner_text().startswith("In this match, a hand is washed")
    assert '("Face-up taken: 3 of 7")' in page.inner_text("#rules")
    assert f"have taken {presets} face-up" not in page.inner_text("#rules")

    player, off = new_match(
        site, "Otto", "no-progress-rules-off", {"preset": "arcadia", "pile_draw_limit": None}
    )
    sign_in(page, site, player)
    page.goto(f"{site}/#/rules/{off}")
    rule = page.wait_for_selector("[data-testid=no-progress-rule][data-limit='off']")
    assert rule is not None
    assert rule.inner_text().startswith("Off in this match:")
    text = page.inner_text("#rules")
    assert "once the players have taken" not in text and "Face-up taken" not in text
    # the presets' number is still given, as the presets', not as this match's
    assert f"Under the presets a hand that makes no progress is washed: once {presets}" in text


def test_the_table_says_when_a_hand_nears_the_no_progress_limit(
    site: str,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    try:
        # Far from the limit: no note.
        player, far = new_match(site, "Nell", "no-progress-far")
        sign_in(tab, site, player)
        open_match(tab, site, far)
        assert tab.locator("[data-testid=no-progress-note]").is_hidden()
        # Three takes allowed, one made: the note is on the table, in words.
        player, near = new_match(
            site, "Nora", "no-progress-near", {"preset": "arcadia", "pile_draw_limit": 3}
        )
        view = to_my_discard_with_a_pile_take(site, player["token"], near)
        sign_in(tab, site, player)
        open_match(tab, site, near)
        note = tab.locator("[data-testid=no-progress-note]")
        assert note.is_visible()
        text = note.inner_text()
        assert f"{view['pile_draws']} of 3 face-up cards taken this hand" in text
        assert "washes the hand" in text
        # The pile's count: each of its two lines on one line, inside the screen.
        label = tab.locator("[data-testid=pile-draws]")
        assert label.inner_text() == f"Face-up taken: {view['pile_draws']} of 3"
        box = label.bounding_box()
        line = tab.evaluate(
            "el => parseFloat(getComputedStyle(el).lineHeight) || 1.2 * parseFloat(getComputedStyle(el).fontSize)",
            label.element_handle(),
        )
        assert box is not None and box["height"] < 1.5 * line, (box, line)
        assert overflow(tab) == 0
    finally:
        context.close()
