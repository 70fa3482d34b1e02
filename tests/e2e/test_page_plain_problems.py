"""Refusals a person meets on the page, said in the page's words, in headless Chromium
against a real server: the page showed the API's own ("Not the match's current version:
you acted on version 4; the match is at version 6", "Too many requests; retry after the
time in Retry-After: too many sign_ins from this address", "The request does not match
the schema: name: ..."), which stay as they are for programs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    browser,
    page,
    served_site,
    wait_until,
)
from tests.e2e.test_page_layout import (
    act,
    advance_until,
    my_turn_to,
    new_match,
    open_match,
    sign_in,
)

SIGN_INS_ALLOWED = 2  # a minute, from one address: the third attempt is refused


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of the page's own whose sign-in attempts run out after two a minute."""
    settings = {"GINRUMMY_RATE_SIGN_INS_PER_ADDRESS": str(SIGN_INS_ALLOWED)}
    with served_site(tmp_path_factory.mktemp("plain"), **settings) as url:
        yield url


def test_a_move_on_a_board_the_game_has_left_is_said_plainly_and_the_board_caught_up(
    site: str,
    page: Page,  # noqa: F811
) -> None:
    """The player moved on another device; this page, its socket silent, still showed the
    old board, and its move was refused with "you acted on version N"."""
    player, match_id = new_match(site, "Sam Stale", "plain-stale")
    token = player["token"]
    view = advance_until(site, token, match_id, my_turn_to("draw"), ("pass_up_card",))
    page.route_web_socket(re.compile(r".*/live.*"), lambda socket: None)  # no frame comes
    sign_in(page, site, player, {"tourSeen": True})
    open_match(page, site, match_id)
    assert page.get_attribute("body", "data-version") == str(view["version"])

    draw = next(cmd for cmd in view["legal"] if cmd["type"] == "draw_stock")
    moved = act(site, token, match_id, draw)  # on the other device
    page.click("#actions [data-testid=draw-stock]")
    page.wait_for_selector("#toast:not([hidden])")
    # The board catches up after the toast (the read may fail), so the toast promises none.
    assert page.inner_text("#toast") == "That move is no longer possible: the game moved on."
    wait_until(page, f"document.body.dataset.version === '{moved['version']}'")

    # the API's own words, for programs, are as they were
    stale = httpx.post(
        f"{site}/v1/matches/{match_id}/actions",
        json={"action": {"type": "draw_stock"}, "version": view["version"]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert stale.status_code == 409 and stale.json()["rule"] == "stale_version", stale.text
    assert stale.json()["detail"].startswith(f"you acted on version {view['version']}")


def test_too_many_sign_in_attempts_say_when_to_try_again(
    site: str,
    page: Page,  # noqa: F811
) -> None:
    """The form said "Too many requests; retry after the time in Retry-After: too many
    sign_ins from this address: at most 2 per 60 s; retry in 41 s"."""
    page.goto(f"{site}/#/")
    page.click("#have-code [data-testid=have-code]")
    page.wait_for_selector("body[data-screen=signin]")
    problem = page.locator("[data-testid=signin-problem]")
    told = ""
    for _ in range(2 * SIGN_INS_ALLOWED + 2):  # a new minute's window may begin meanwhile
        page.fill("[data-testid=signin-input]", "NOPE1-NOPE2")
        with page.expect_response(lambda r: r.url.endswith("/v1/sign-in-codes/redeem")) as sent:
            page.click("[data-testid=signin-submit]")
        if sent.value.status == 429:
            wait_until(
                page,
                "document.querySelector('[data-testid=signin-problem]').innerText"
                ".startsWith('Too many')",
            )
            told = problem.inner_text()
            break
    assert re.fullmatch(r"Too many attempts\. Try again in \d+ seconds?\.", told), told

    refused = httpx.post(f"{site}/v1/sign-in-codes/redeem", json={"code": "NOPE1-NOPE2"})
    assert refused.status_code == 429, refused.text
    assert "too many sign_ins" in refused.json()["detail"]  # the API's words, unchanged


@pytest.mark.parametrize(
    ("detail", "said"),
    [
        (
            "name: at most 40 characters (counted after NFC composition); this one has 41",
            "That name is too long: a name has at most 40 characters.",
        ),
        (
            "name: holds U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control, which"
            " reorders the text around it; send it without",
            "That name holds U+202E RIGHT-TO-LEFT OVERRIDE, a bidirectional control, which"
            " reorders the text around it: type it without.",
        ),
        (
            "name: 'Computer (hard)' is how a house AI is shown; choose another",
            "That name is how the computer (a house AI) is shown: choose another.",
        ),
        (
            "code: Expected `str` of length <= 40",
            "Not accepted: code: Expected `str` of length <= 40",
        ),
    ],
)
def test_a_request_the_schema_refuses_is_said_without_the_schema(
    site: str,
    page: Page,  # noqa: F811
    detail: str,
    said: str,
) -> None:
    page.goto(f"{site}/")
    problem: dict[str, Any] = {
        "type": "/problems/invalid-request",
        "title": "The request does not match the schema",
        "status": 422,
        "detail": detail,
        "rule": "invalid_request",
    }
    shown = page.evaluate(
        """async (problem) => {
          const { problemText } = await import('/js/ui.js');
          const { ApiError } = await import('/js/api.js');
          return problemText(new ApiError(422, problem));
        }""",
        problem,
    )
    assert shown == said
