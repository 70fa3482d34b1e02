"""Ratings on a real server: rated and practice matches, tables, the leaderboards, 404s."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table


async def _rating(player: Player, who: str) -> dict[str, Any]:
    response = await player.client.get(f"/v1/players/{who}/rating")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


CARD = re.compile(r"^[A2-9TJQK][CDHS]$")


def _cards_in(answer: Any) -> set[str]:
    """Every string in a JSON answer that is a card."""
    if isinstance(answer, dict):
        return set().union(*(_cards_in(v) for v in answer.values())) if answer else set()
    if isinstance(answer, list):
        return set().union(*(_cards_in(v) for v in answer)) if answer else set()
    return {answer} if isinstance(answer, str) and CARD.match(answer) else set()


async def _resign(player: Player, match_id: str) -> None:
    response = await player.act(match_id, {"type": "resign"})
    assert response.status_code == 200, response.text
    assert response.json()["view"]["phase"] == "match_over"


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_a_rated_match_moves_the_rating_and_a_practice_match_does_not(
    server: ServerProcess,
) -> None:
    player = await Player.create(server.url, "rated")
    try:
        me = (await player.client.get("/v1/me")).json()
        assert me["rating"] == {"rating": 1500, "deviation": 350, "provisional": True}
        made = await player.client.post("/v1/players", json={"name": "rated at once"})
        assert made.json()["rating"] == me["rating"]  # a new player is told it as it is made
        # a chosen seed is practice: unrated, and rated: true is refused with a reason
        refused = await player.client.post("/v1/matches", json={"seed": "s", "rated": True})
        assert (refused.status_code, refused.json()["rule"]) == (422, "not_ratable")
        custom = {"rules": {"preset": "arcadia", "target": 10}, "rated": True}
        refused = await player.client.post("/v1/matches", json=custom)
        assert (refused.status_code, refused.json()["rule"]) == (422, "not_ratable")
        assert (await player.client.get("/v1/matches")).json()["matches"] == []  # nothing made
        practice = await player.new_match(level="hard", seed="chosen", rules="arcadia")
        assert practice["rated"] is False
        await _resign(player, practice["match_id"])
        assert (await _rating(player, player.id))["games"] == 0  # no rating moved
        stats = (await player.client.get(f"/v1/players/{player.id}/stats")).json()
        assert stats["matches_played"] == 0  # and no statistic
        hard = await _rating(player, "ai:hard")
        assert (hard["record"], hard["games"], hard["anchored"]) == ("ai:hard:v2", 0, True)
        # a match against the house under a preset, no seed: rated, seats carry ratings
        rated = await player.new_match(level="hard", rules="arcadia")
        assert rated["rated"] is True
        seats = rated["seats"]
        assert seats[0]["rating"]["provisional"] and not seats[1]["rating"]["provisional"]
        assert seats[1]["rating"]["rating"] == round(hard["rating"])
        await _resign(player, rated["match_id"])
        mine = await _rating(player, player.id)
        stats = (await player.client.get(f"/v1/players/{player.id}/stats")).json()
        assert (stats["matches_played"], stats["matches_won"]) == (1, 0)
        assert mine["games"] == 1 and mine["rating"] < 1500 and mine["deviation"] < 350
        assert mine["provisional"] and not mine["anchored"]
        (change,) = mine["history"]
        assert change["match_id"] == rated["match_id"]
        assert (change["opponent"], change["won"]) == ("ai:hard:v2", False)
        # the opponent as seats name it: the level, not its record's version
        assert change["opponent_player"]["id"] == "ai:hard"
        assert change["opponent_player"]["kind"] == "ai"
        assert (change["rating_before"], change["rating"]) == (1500.0, mine["rating"])
        after = await _rating(player, "ai:hard")
        assert (after["rating"], after["games"]) == (hard["rating"], 1)  # anchored, counted
        me = (await player.client.get("/v1/me")).json()
        assert me["rating"]["rating"] == round(mine["rating"])
        # provisional: kept off the people's board; the house is on the bots' board
        people = (await player.client.get("/v1/leaderboard")).json()
        assert people["kind"] == "person" and people["entries"] == []
        bots = (await player.client.get("/v1/leaderboard", params={"kind": "bot"})).json()
        names = [entry["player"]["id"] for entry in bots["entries"]]
        # every house level, by its anchor; only hard has played (and counts the match)
        assert names == ["ai:hard", "ai:medium", "ai:baseline", "ai:easy"]
        assert [entry["rank"] for entry in bots["entries"]] == [1, 2, 3, 4]
        assert bots["entries"][0]["games"] == 1 and bots["more"] is False
        assert {entry["games"] for entry in bots["entries"][1:]} == {0}
        # the boards and a player's profile, rating and totals are public, as the live
        # matches are (anyone may make a guest player): a visitor reads the same
        async with httpx.AsyncClient(base_url=server.url) as visitor:
            for path, params in (
                ("/v1/leaderboard", {"kind": "bot"}),
                (f"/v1/players/{player.id}", {}),
                (f"/v1/players/{player.id}/rating", {}),
                (f"/v1/players/{player.id}/stats", {}),
                ("/v1/players/ai:hard/rating", {}),
            ):
                anonymous = await visitor.get(path, params=params)
                signed_in = await player.client.get(path, params=params)
                assert anonymous.status_code == 200, (path, anonymous.text)
                assert anonymous.json() == signed_in.json(), path
        # random plays any legal move: a match against it is never rated
        refused = await player.client.post("/v1/matches", json={"level": "random", "rated": True})
        assert (refused.status_code, refused.json()["rule"]) == (422, "not_ratable")
        assert "random" in refused.json()["detail"]
        against_random = await player.new_match(level="random", rules="arcadia")
        assert against_random["rated"] is False
        assert against_random["seats"][1]["id"] == "ai:random"
        await _resign(player, against_random["match_id"])
        assert (await _rating(player, player.id))["games"] == 1  # the rated match's alone
        unknown = await player.client.get("/v1/players/nobody/rating")
        assert (unknown.status_code, unknown.json()["rule"]) == (404, "player_not_found")
        unrated = await player.client.get("/v1/players/ai:random/rating")
        assert unrated.status_code == 404
        # a house seat's id is read as a player too, as seats and the boards name it
        house = (await player.client.get("/v1/players/ai:hard")).json()
        assert (house["id"], house["name"], house["kind"]) == ("ai:hard", "hard", "ai")
        assert house["rating"]["rating"] == round(hard["rating"])
        random_seat = (await player.client.get("/v1/players/ai:random")).json()
        assert (random_seat["kind"], random_seat["rating"]) == ("ai", None)
        unknown = await player.client.get("/v1/players/ai:grandmaster")
        assert (unknown.status_code, unknown.json()["rule"]) == (404, "player_not_found")
        assert "levels: random, easy" in unknown.json()["detail"]
        stats = await player.client.get("/v1/players/ai:hard/stats")
        assert stats.status_code == 404 and "/v1/players/ai:hard/rating" in stats.json()["detail"]
    finally:
        await player.close()


async def test_a_rated_table_rates_both_people_and_custom_rules_are_unrated(
    server: ServerProcess,
) -> None:
    host, guest = await Player.create(server.url, "host"), await Player.create(server.url, "guest")
    try:
        custom = await open_table(host)  # the helpers' quick rules: a custom target
        assert custom["rated"] is False
        refused = await host.client.post(
            "/v1/tables", json={"rules": {"preset": "arcadia", "target": 25}, "rated": True}
        )
        assert (refused.status_code, refused.json()["rule"]) == (422, "not_ratable")
        table = await open_table(host, rules="classic")
        assert table["rated"] is True
        assert table["host"]["rating"]["provisional"] is True
        listed = (await guest.client.get("/v1/tables")).json()["tables"]
        assert {t["table_id"]: t["rated"] for t in listed} == {
            custom["table_id"]: False,
            table["table_id"]: True,
        }
        joined = await join(guest, table["table_id"])
        assert joined.status_code == 200, joined.text
        match = joined.json()["match"]
        assert match["rated"] is True
        # mid-match, nothing a rating answer holds is a card (no hand, no stock, no pile)
        assert _cards_in(match["view"]["hand"])  # the check finds cards where there are some
        for path, params in (
            (f"/v1/players/{guest.id}/rating", {}),
            (f"/v1/players/{host.id}/rating", {}),
            ("/v1/leaderboard", {"kind": "person"}),
            ("/v1/players", {"name": "gue"}),
            ("/v1/me", {}),
        ):
            answer = await host.client.get(path, params=params)
            assert answer.status_code == 200, answer.text
            assert _cards_in(answer.json()) == set(), path
        await _resign(guest, match["match_id"])
        winner, loser = await _rating(host, host.id), await _rating(host, guest.id)
        assert winner["rating"] > 1500 > loser["rating"]
        assert winner["rating"] - 1500 == pytest.approx(1500 - loser["rating"], abs=0.01)
        assert winner["history"][0]["opponent"] == guest.id
        opponent = winner["history"][0]["opponent_player"]
        assert (opponent["id"], opponent["name"], opponent["kind"]) == (guest.id, "guest", "person")
        assert opponent["rating"]["rating"] == round(loser["rating"])  # as it is now
        # a declined rating stays unrated; a challenge shows both players' ratings
        challenge = await host.client.post(
            "/v1/challenges", json={"to": guest.id, "rules": "arcadia", "rated": False}
        )
        assert challenge.status_code == 201, challenge.text
        assert challenge.json()["rated"] is False
        (listed_challenge,) = (await guest.client.get("/v1/challenges")).json()["challenges"]
        assert listed_challenge["invitee"]["rating"]["rating"] == round(loser["rating"])
        found = (await host.client.get("/v1/players", params={"name": "gue"})).json()
        assert found["players"][0]["rating"]["rating"] == round(loser["rating"])
    finally:
        await host.close()
        await guest.close()
