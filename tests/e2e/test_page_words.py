"""The page's sentences for events (words.js), in real Chromium against a real server.

Every event type the API documents (`VersionedEvent.event` in openapi/openapi.json, the
events the AsyncAPI document's frames carry) has a sentence of its own: the narration
once showed raw names such as "hand_acknowledged" after every hand. A match's end puts
the winner's total first, and a resigned match says it was resigned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.e2e.test_page import (  # noqa: F401 (fixtures)
    api_view,
    browser,
    page,
    settle,
    site,
)
from tests.e2e.test_page_layout import new_match, open_match, sign_in
from tests.e2e.test_page_watch_score import seated

OPENAPI = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = OPENAPI["components"]["schemas"]
CARD_FIELDS = {"card", "up_card", "discard"}
SEAT_FIELDS = {"seat", "dealer", "winner", "knocker", "resigned"}


def sample(schema: dict[str, Any], name: str = "") -> Any:
    """A plausible value of ``schema``: cards where a card goes, seat 1 where a seat does."""
    if "$ref" in schema:
        return sample(SCHEMAS[schema["$ref"].rsplit("/", 1)[1]], name)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("oneOf", "anyOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"]
            return sample(options[0], name)
    kind = schema.get("type")
    if kind == "object":
        return {
            field: sample(sub, field)
            for field, sub in schema.get("properties", {}).items()
            if field in schema.get("required", [])
        }
    if kind == "array":
        if "prefixItems" in schema:
            return [sample(item, name) for item in schema["prefixItems"]]
        item = schema.get("items", {})
        if name in ("melds", "knocker_melds", "defender_melds"):
            return [["7H", "8H", "9H"]]
        return [sample(item, "card")]
    if kind == "integer":
        return 1 if name in SEAT_FIELDS else 7
    if kind == "boolean":
        return False
    if kind == "string":
        return "7H" if name in CARD_FIELDS or name == "card" else "x"
    return None


def event_types() -> dict[str, dict[str, Any]]:
    """Each documented event type, with a sample event of it."""
    events = {}
    for option in SCHEMAS["VersionedEvent"]["properties"]["event"]["oneOf"]:
        event = sample(option)
        events[event["type"]] = event
    return events


def test_every_documented_event_has_a_sentence(site: str, page: Page) -> None:  # noqa: F811
    events = event_types()
    assert {"hand_acknowledged", "resigned", "match_settled", "dealt"} <= set(events)
    page.goto(f"{site}/#/rules")
    page.wait_for_selector("body[data-screen=rules]")
    told: dict[str, list[str]] = page.evaluate(
        """async (events) => {
          const { narrate } = await import('/js/words.js');
          const out = {};
          for (const [type, event] of Object.entries(events)) {
            out[type] = [narrate(event, ['Ann', 'Bob'], 0), narrate(event, ['Ann', 'Bob'], null)];
          }
          out.unknown = [narrate({ type: 'some_new_event', seat: 0 }, ['Ann', 'Bob'], 0)];
          return out;
        }""",
        events,
    )
    for kind, sentences in told.items():
        for sentence in sentences:
            assert sentence and sentence[0].isupper() and sentence.endswith("."), (kind, sentence)
            for raw in ("_", "undefined", "null", "NaN", "[object"):
                assert raw not in sentence, (kind, sentence)
    assert told["hand_acknowledged"] == [
        "Bob is ready for the next hand.",
        "Bob is ready for the next hand.",
    ]
    assert told["resigned"][0] == "Bob resigned."


def test_the_seat_reading_says_you_inside_a_sentence_in_lower_case(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """Told to the seat it names (the samples' seats are 1), "You" begins a sentence and
    "you" goes inside one: the dealer's page read "Hand 2 dealt by You; …"."""
    page.goto(f"{site}/#/rules")
    page.wait_for_selector("body[data-screen=rules]")
    told: dict[str, str] = page.evaluate(
        """async (events) => {
          const { narrate } = await import('/js/words.js');
          const out = {};
          for (const [type, event] of Object.entries(events)) out[type] = narrate(event, ['Ann', 'Bob'], 1);
          return out;
        }""",
        event_types(),
    )
    for kind, sentence in told.items():
        assert "You" not in sentence[1:], (kind, sentence)
    assert told["dealt"].startswith("Hand 7 dealt by you;"), told["dealt"]


def test_a_resigned_match_says_so_with_the_winners_total_first(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    player, match_id = new_match(site, "Rhea", "words-resign")
    sign_in(page, site, player)
    open_match(page, site, match_id)
    page.click("[data-testid=resign]")
    page.click("[data-testid=resign-confirm]")
    page.wait_for_selector("body[data-phase=match_over]")
    page.wait_for_selector("[data-testid=settlement]")
    settle(page)
    totals = api_view(site, player["token"], match_id)["settlement"]["totals"]
    assert totals[1] > totals[0]  # the computer won: a loser's first total reads wrongly
    assert page.inner_text("#narration") == (
        f"Computer (easy) won the match (you resigned), {totals[1]} to {totals[0]}."
    )
    assert "The match was resigned: you resigned." in page.inner_text(
        "[data-testid=settlement-resigned]"
    )


def test_a_problem_whose_detail_says_its_title_again_is_said_once(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """The server's own refusal of a chat message that is only control characters, as the
    page words it: it read "The message is empty: the message is empty once control
    characters are removed"."""
    ada, _, match_id = seated(site, "Ada Says", "Bob Hears")
    refused = ada.post(f"/v1/matches/{match_id}/chat", json={"text": "\u202e\u200b"})
    assert refused.status_code == 422, refused.text
    page.goto(f"{site}/")
    said = page.evaluate(
        """async (problem) => {
          const { problemText } = await import('/js/ui.js');
          const { ApiError } = await import('/js/api.js');
          return problemText(new ApiError(422, problem));
        }""",
        refused.json(),
    )
    assert said == "The message is empty once control characters are removed"


def test_a_lost_database_is_said_without_the_drivers_words(
    site: str,  # noqa: F811
    page: Page,  # noqa: F811
) -> None:
    """A 503 as a server answered it once its database session was terminated
    (``pg_terminate_backend``, two processes on one PostgreSQL): the page said the
    driver's own words to the player, "…: the database connection failed: cannot switch
    to state 11; another operation (2) is in progress"."""
    page.goto(f"{site}/")
    said = page.evaluate(
        """async (problem) => {
          const { problemText } = await import('/js/ui.js');
          const { ApiError } = await import('/js/api.js');
          return problemText(new ApiError(503, problem));
        }""",
        {
            "type": "/problems/store-unavailable",
            "title": "The database is unavailable; retry",
            "status": 503,
            "detail": "the database connection failed: cannot switch to state 11; "
            "another operation (2) is in progress",
            "rule": "store_unavailable",
        },
    )
    assert said == "The server lost its database for a moment: try again."
