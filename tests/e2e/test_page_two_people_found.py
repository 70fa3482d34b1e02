"""What a tester playing two people against each other found the page saying wrong, in
headless Chromium: each test sets the situation up through a real server's API, opens it
on the page and checks what a player sees and can do."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import Page, Route, expect

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    api_view,
    browser,
    page,
    site,
    wait_until,
)
from tests.e2e.test_page_friends import auth, invite_link, joined, make_player, private_table
from tests.e2e.test_page_layout import act, new_match, sign_in


def test_a_knock_limit_of_zero_is_called_gin_only(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    player, match_id = new_match(
        site, "Hedy", "gin-only", rules={"preset": "arkadium", "knock_limit": 0}
    )
    assert api_view(site, player["token"], match_id)["knock_limit"] == 0
    sign_in(page, site, player)
    page.goto(f"{site}/#/")
    page.wait_for_selector("#resume:not([hidden]) li")
    # the custom set is said in words once its rules are read (a read of its own): waited
    # for, where an immediate read of the row failed under load
    expect(page.locator("#resume li").first).to_contain_text("gin only (was knock ≤ 10)")
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("#scorebar .meta")
    this_hand = page.inner_text("#scorebar .meta > span:last-child")  # after "hand 1"
    assert this_hand == "gin only", this_hand


def test_a_match_resigned_mid_hand_points_at_no_cards_it_does_not_show(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    # A resignation mid-hand scores no hand, so no hand is shown face up: the label said
    # "cards face up below" over nothing.
    player, match_id = new_match(site, "Ada", "resigned-mid-hand")
    view = act(site, player["token"], match_id, {"type": "resign"})
    assert view["phase"] == "match_over"
    sign_in(page, site, player)
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("[data-testid=settlement-resigned]")
    label = page.inner_text("#opponent .label")
    assert "face up" not in label, label
    count = view["opponent_card_count"]
    assert label.endswith(f"{count} cards"), label
    faces = page.locator("#opponent [data-testid=opponent-hand] > *").count()
    assert faces == count, (faces, count)


def test_the_rating_reads_the_same_in_the_header_and_the_leaderboard(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    # The tester's numbers: a deviation of 260.27 (the full record) is 260 in a rating
    # summary; the header said ± 520 and the leaderboard's own line ± 521.
    player, _ = new_match(site, "Grace", "rating-rounding")

    def summary(route: Route) -> None:
        me = route.fetch().json()
        me["rating"] = {"rating": 1567, "deviation": 260, "provisional": True}
        route.fulfill(json=me)

    def record(route: Route) -> None:
        full = route.fetch().json()
        full.update(rating=1567.4, deviation=260.27)
        route.fulfill(json=full)

    page.route("**/v1/me", summary)
    page.route(f"**/v1/players/{player['id']}/rating*", record)
    sign_in(page, site, player)
    page.goto(f"{site}/#/leaderboard")
    wait_until(page, "document.querySelector('[data-testid=who-rating]').textContent.includes('±')")
    wait_until(page, "document.querySelector('[data-testid=my-rating]').textContent.includes('±')")
    header = page.inner_text("[data-testid=who-rating]")
    mine = page.inner_text("[data-testid=my-rating]")
    assert "1567 ± 520" in header, header
    assert "1567 ± 520 " in mine, mine


def test_really_resign_is_answered_no_with_a_button_or_escape(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    # Only a click elsewhere called "Really resign?" off: no button said so, Escape did
    # nothing, and a keyboard player was left one Enter from losing the match.
    player, match_id = new_match(site, "Kit", "resign-called-off")
    sign_in(page, site, player)
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("#hand [data-card]")
    focused = "document.activeElement && document.activeElement.dataset.testid"
    page.focus("[data-testid=resign]")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=resign-confirm]")
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=resign]")
    assert page.query_selector("[data-testid=resign-confirm]") is None
    assert page.query_selector("[data-testid=resign-cancel]") is None
    assert page.evaluate(focused) == "resign"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=resign-confirm]")
    page.keyboard.press("Tab")
    assert page.evaluate(focused) == "resign-cancel"
    assert page.inner_text("[data-testid=resign-cancel]") == "Keep playing"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=resign]")
    assert page.evaluate(focused) == "resign"
    assert api_view(site, player["token"], match_id)["phase"] != "match_over"


def test_an_invite_taken_meanwhile_says_so_and_offers_no_join(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    # Dee opened Ann's link and waited; Bea joined through it. Dee's Join was refused
    # ("Both seats at this table are taken") and stayed, to be refused again.
    ann, bea, dee = (make_player(site, n) for n in ("Ann", "Bea", "Dee"))
    table = private_table(site, ann)
    sign_in(page, site, dee)
    page.goto(invite_link(site, table))
    page.wait_for_selector("[data-testid=join-invite]:not([hidden])")
    wait_until(page, "document.querySelector('#invite-about').textContent.includes('invites you')")
    joined(site, table, bea)
    page.click("[data-testid=join-invite]")
    page.wait_for_selector("#toast:not([hidden])")
    assert "both seats at this table are taken" in page.inner_text("#toast").lower()
    page.wait_for_selector("[data-testid=join-invite]", state="detached")
    notice = page.inner_text("[data-testid=invite]")
    assert notice.startswith("This table is closed: someone else took its seat."), notice
    assert "Ask Ann for a new link." in notice, notice


def test_join_without_a_name_puts_the_keyboard_in_the_name_field(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    table = private_table(site, make_player(site, "Cal"))
    page.goto(invite_link(site, table))
    page.wait_for_selector("[data-testid=join-invite]:not([hidden])")
    page.click("[data-testid=join-invite]")
    page.wait_for_selector("#toast:not([hidden])")
    assert "Please enter your name first." in page.inner_text("#toast")
    assert page.evaluate("document.activeElement.id") == "lobby-name"


def test_a_tab_follows_the_player_signed_out_or_in_in_another_tab(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    # Signed out in a second tab, the first still played as Alice, each move refused
    # ("Missing or invalid bearer token"); with a new player signed in there, each move
    # was "You hold no seat in this match".
    alice, match_id = new_match(site, "Alice", "two-tabs")
    sign_in(page, site, alice)
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("#hand [data-card]")
    other = page.context.new_page()
    other.goto(f"{site}/#/")
    other.click("#nav-signout")
    other.click("[data-testid=signout-yes]")
    page.wait_for_selector("body[data-screen=start]")
    assert page.inner_text("#who") == "Not signed in"
    assert page.inner_text("#toast") == (
        "Signed out in another tab: this tab no longer plays as Alice."
    )
    # Alice anew (the token forgotten is no more), and another player signs in over there.
    alice, match_id = new_match(site, "Alice", "two-tabs-again")
    sign_in(page, site, alice)
    page.goto(f"{site}/#/match/{match_id}")
    page.wait_for_selector("#hand [data-card]")
    bob = make_player(site, "Bob")
    other.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", bob)
    page.wait_for_selector("body[data-screen=start]")
    wait_until(page, "document.querySelector('#who').textContent.startsWith('Playing as Bob')")
    assert page.inner_text("#toast") == (
        "Signed in as Bob in another tab: this tab plays as Bob now, no longer as Alice."
    )
    assert page.input_value("#name") == "Bob"
    other.close()


def test_signing_out_ends_the_token_the_browser_forgets(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    # Forgotten by the browser, the token still worked for whoever kept a copy of it;
    # a token the player gave a program stays theirs (only this one is rotated away).
    alice, _ = new_match(site, "Alice", "revoked-on-sign-out")
    program = httpx.post(f"{site}/v1/me/tokens", headers=auth(alice))
    assert program.status_code in (200, 201), program.text
    sign_in(page, site, alice)
    page.goto(f"{site}/#/")
    page.click("#nav-signout")
    page.click("[data-testid=signout-yes]")
    page.wait_for_selector("#who:has-text('Not signed in')")
    for _ in range(50):
        if httpx.get(f"{site}/v1/me", headers=auth(alice)).status_code == 401:
            break
        time.sleep(0.1)
    assert httpx.get(f"{site}/v1/me", headers=auth(alice)).status_code == 401
    kept = httpx.get(
        f"{site}/v1/me", headers={"Authorization": f"Bearer {program.json()['token']}"}
    )
    assert kept.status_code == 200, kept.text


def test_a_refused_token_forgets_only_the_player_it_was(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A 401 for a token another tab ended (signing out) forgot whoever was saved by then:
    a new player signed in meanwhile in that tab was lost for good (a review's find)."""
    page.goto(f"{site}/")
    kept = page.evaluate(
        """async () => {
          const api = await import('/js/api.js');
          localStorage.setItem(api.PLAYER_KEY, JSON.stringify({ id: 'new', name: 'New', token: 'new-token' }));
          api.forgetRefusedPlayer(new api.ApiError(401, { rule: 'unauthorized' }, 'old-token'));
          const afterOld = api.savedPlayer() && api.savedPlayer().id;
          api.forgetRefusedPlayer(new api.ApiError(401, { rule: 'unauthorized' }, 'new-token'));
          return [afterOld, api.savedPlayer()];
        }"""
    )
    assert kept == ["new", None]  # the old token's refusal keeps the new player; its own, not
