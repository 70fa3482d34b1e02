"""A route that reads no body refuses one that says something, rather than ignoring it.

Found on a club night: Bob accepted a challenge with ``{"client_seed": "bob-seed"}`` in
the body (where every other call that takes a client seed has it) and got a 200, but
``accept`` reads its seed from the query only: his seat's seed was drawn by the server
(``by: "server"``) while he believed the deal was partly his. The same held for a
rematch offer, and any other body on a route that takes none was dropped unread.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table


def refused_for_its_body(response: Any, naming: str) -> None:
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["rule"] == "invalid_request", problem
    assert naming in problem["detail"], problem


# The tests that need no server of their own share one (sqlite_site): each test makes
# players, tables and matches of its own and reads only those.


async def test_a_client_seed_in_the_body_of_an_accept_is_refused_not_dropped(
    sqlite_site: ServerProcess,
) -> None:
    cleo = await Player.create(sqlite_site.url, "Cleo")
    bob = await Player.create(sqlite_site.url, "Bob")
    try:
        sent = await cleo.client.post("/v1/challenges", json={"to": bob.id})
        assert sent.status_code == 201, sent.text
        accept = f"/v1/challenges/{sent.json()['table_id']}/accept"

        refused = await bob.client.post(accept, json={"client_seed": "bob-seed"})
        refused_for_its_body(refused, "client_seed")
        assert "?client_seed=" in refused.json()["detail"]
        open_now = (await bob.client.get("/v1/challenges")).json()["challenges"]
        assert [c["status"] for c in open_now] == ["open"]  # nothing changed

        accepted = await bob.client.post(accept, params={"client_seed": "bob-seed"})
        assert accepted.status_code == 200, accepted.text
        match_id = accepted.json()["match"]["match_id"]
        started = (await bob.events(match_id))["events"][0]["event"]
        assert started["client_seeds"][1]["seed"] == "bob-seed"
        assert started["client_seeds"][1]["by"] == bob.id
    finally:
        await cleo.close()
        await bob.close()


async def test_a_rematch_offer_or_a_claim_with_a_body_is_refused_and_changes_nothing(
    sqlite_site: ServerProcess,
) -> None:
    cleo = await Player.create(sqlite_site.url, "Cleo")
    finn = await Player.create(sqlite_site.url, "Finn")
    try:
        table = await open_table(cleo)
        joined = await join(finn, table["table_id"])
        match_id = joined.json()["match"]["match_id"]
        claim = await cleo.client.post(f"/v1/matches/{match_id}/claim", json={"reason": "away"})
        refused_for_its_body(claim, "no body")
        resigned = await finn.act(match_id, {"type": "resign"})
        assert resigned.status_code == 200, resigned.text

        rematch = f"/v1/matches/{match_id}/rematch"
        offer = await finn.client.post(rematch, json={"client_seed": "finn-seed"})
        refused_for_its_body(offer, "client_seed")
        assert (await cleo.client.get(rematch)).json()["rule"] == "no_rematch"  # no offer
    finally:
        await cleo.close()
        await finn.close()


async def test_no_body_or_an_empty_object_is_still_taken(sqlite_site: ServerProcess) -> None:
    """What generic clients send on a POST with nothing to say keeps working."""
    cleo = await Player.create(sqlite_site.url, "Cleo")
    try:
        for body in ({"json": {}}, {"content": b" {  } "}, {}):
            table = await open_table(cleo)
            cancelled = await cleo.client.post(
                f"/v1/tables/{table['table_id']}/cancel",
                headers={"content-type": "application/json"},
                **body,
            )
            assert cancelled.status_code == 200, (body, cancelled.text)
            assert cancelled.json()["status"] == "cancelled"
        rotated = await cleo.client.post("/v1/me/tokens/rotate", content=b"")
        assert rotated.status_code == 200, rotated.text
    finally:
        await cleo.close()
