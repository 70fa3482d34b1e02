"""Two people at a table, over a real server: the lobby, the seat race, a whole match.

Each seat is its own player with its own token and socket. Everything either seat
receives (HTTP answers and socket frames) is checked against the complete log once
the match is over, by the same independent oracle as the matches against the AI.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from infra.store import open_store
from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player, ServerProcess, wait_for
from tests.e2e.secrecy import Recorder, states_by_version
from tests.e2e.tables import QUICK_RULES, follow, join, open_table, pick, play_both_seats
from tests.e2e.test_openapi_conformance import Checker

# The tests that need no server of their own share one (sqlite_site, or each_backend_site
# for those run on both backends, whose SQLite server is the same): each makes its own
# players and reads only their tables, challenges and matches; the tests that list the whole
# lobby keep a server each.


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_two_people_meet_in_the_lobby_and_play_a_whole_match(
    server: ServerProcess,
) -> None:
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Guest")
    try:
        table = await open_table(host)
        assert table["status"] == "open" and table["host"] == {
            "id": host.id,
            "name": "Host",
            "kind": "person",
            "rating": {"rating": 1500, "deviation": 350, "provisional": True},  # a newcomer's
        }
        assert table["private"] is False and table["rated"] is False
        listed = (await guest.client.get("/v1/tables")).json()["tables"]
        assert [t["table_id"] for t in listed] == [table["table_id"]]

        joined = await join(guest, table["table_id"])
        assert joined.status_code == 200, joined.text
        body = joined.json()
        match_id = body["table"]["match_id"]
        assert body["table"]["status"] == "started"
        assert body["table"]["guest"] == {
            "id": guest.id,
            "name": "Guest",
            "kind": "person",
            "rating": {"rating": 1500, "deviation": 350, "provisional": True},
        }
        assert (body["match"]["match_id"], body["match"]["seat"]) == (match_id, 1)
        assert (await guest.client.get("/v1/tables")).json()["tables"] == []
        seen_by_host = await host.client.get(f"/v1/tables/{table['table_id']}")
        assert seen_by_host.json()["match_id"] == match_id
        assert (await host.view(match_id))["seat"] == 0

        http_seen = (Recorder(), Recorder())
        ws_seen = (Recorder(), Recorder())
        sockets = [
            asyncio.create_task(follow(server.ws_url, p, match_id, ws_seen[seat]))
            for seat, p in enumerate((host, guest))
        ]
        await wait_for(lambda: all(r.messages for r in ws_seen))  # both snapshots first
        final = await play_both_seats((host, guest), match_id, http_seen)
        await asyncio.wait_for(asyncio.gather(*sockets), 30)

        settlement = final["settlement"]
        assert settlement is not None and settlement["resigned"] is None
        assert max(settlement["hand_points"]) >= QUICK_RULES["target"]
        log = await host.events(match_id)
        assert log["complete"] is True
        kinds = [e["event"]["type"] for e in log["events"]]
        assert kinds.count("hand_acknowledged") == kinds.count("dealt") - 1, (
            "every later hand was dealt only after one seat said it was ready and the other"
            " seat's next_hand dealt it"
        )
        states = states_by_version(log["events"])
        for seat in (0, 1):
            checked = http_seen[seat].assert_no_leaks(states, seat)
            checked += ws_seen[seat].assert_no_leaks(states, seat)
            # Every event came over the socket and the views came besides. The deal is
            # random, so the floor follows the match's length: a fixed 40 failed on a
            # match decided in one short hand.
            assert checked > final["version"]
            versions = [m["version"] for _, m in ws_seen[seat].messages if m["type"] == "event"]
            snapshot = ws_seen[seat].messages[0][0]
            assert versions == list(range(snapshot + 1, final["version"] + 1)), (
                "each socket delivered every event after its snapshot, once, in order"
            )
        matches = (await guest.client.get("/v1/matches?status=finished")).json()["matches"]
        assert [
            (m["match_id"], m["opponent"], m["opponent_kind"], m["opponent_name"], m["level"])
            for m in matches
        ] == [(match_id, host.id, "person", "Host", None)]
    finally:
        await host.close()
        await guest.close()


async def test_of_two_guests_racing_for_the_seat_exactly_one_is_seated(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site  # its own players, tables and matches
    host = await Player.create(server.url, "Host")
    guests = [await Player.create(server.url, f"Guest {n}") for n in range(4)]
    try:
        for _ in range(3):
            table = await open_table(host)
            answers = await asyncio.gather(*(join(g, table["table_id"]) for g in guests))
            statuses = sorted(a.status_code for a in answers)
            assert statuses == [200, 409, 409, 409], [a.text for a in answers]
            losers = [a.json() for a in answers if a.status_code == 409]
            assert {p["rule"] for p in losers} == {"table_full"}
            assert {p["type"] for p in losers} == {"/problems/table-full"}
            winner = next(a.json() for a in answers if a.status_code == 200)
            final = (await host.client.get(f"/v1/tables/{table['table_id']}")).json()
            assert final["guest"]["id"] == winner["table"]["guest"]["id"]
            assert final["match_id"] == winner["match"]["match_id"]
    finally:
        for p in (host, *guests):
            await p.close()


async def test_refusals_at_a_table_change_nothing(server: ServerProcess) -> None:
    host = await Player.create(server.url, "Host")
    other = await Player.create(server.url, "Other")
    try:
        table = await open_table(host)
        table_id = table["table_id"]

        own = await join(host, table_id)
        assert (own.status_code, own.json()["rule"]) == (409, "own_table")
        stranger_cancel = await other.client.post(f"/v1/tables/{table_id}/cancel")
        assert (stranger_cancel.status_code, stranger_cancel.json()["rule"]) == (
            403,
            "not_the_host",
        )
        missing = await join(other, "no-such-table")
        assert (missing.status_code, missing.json()["rule"]) == (404, "table_not_found")
        assert (await host.client.get(f"/v1/tables/{table_id}")).json()["status"] == "open"

        cancelled = await host.client.post(f"/v1/tables/{table_id}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        late = await join(other, table_id)
        assert (late.status_code, late.json()["rule"]) == (409, "table_cancelled")
        again = await host.client.post(f"/v1/tables/{table_id}/cancel")
        assert (again.status_code, again.json()["rule"]) == (409, "table_cancelled")
        assert (await other.client.get("/v1/tables")).json()["tables"] == []

        bad = await host.client.post("/v1/tables", json={"rules": {"target": 0}})
        assert bad.status_code == 422
        short = await host.client.post("/v1/tables", json={"expires_in_s": 1})
        assert short.status_code == 422
        anonymous = await httpx.AsyncClient(base_url=server.url).get("/v1/tables")
        assert anonymous.status_code == 401
        assert (await other.client.get("/v1/tables")).json()["tables"] == []
    finally:
        await host.close()
        await other.close()


async def test_a_private_table_is_unlisted_and_joined_only_with_its_code(
    server: ServerProcess,
) -> None:
    host = await Player.create(server.url, "Host")
    stranger = await Player.create(server.url, "Stranger")
    friend = await Player.create(server.url, "Friend")
    try:
        table = await open_table(host, private=True)
        table_id, code = table["table_id"], table["invite_code"]
        assert table["private"] is True
        assert len(code) >= 22 and len(table["watch_code"]) >= 22  # 128 bits each
        assert code != table["watch_code"]

        assert (await stranger.client.get("/v1/tables")).json()["tables"] == []
        hidden = await stranger.client.get(f"/v1/tables/{table_id}")
        assert (hidden.status_code, hidden.json()["rule"]) == (404, "table_not_found")
        for attempt in ({}, {"invite_code": "guess"}, {"invite_code": table["watch_code"]}):
            refused = await join(stranger, table_id, **attempt)
            assert (refused.status_code, refused.json()["rule"]) == (403, "invite_code_required")

        shown = await friend.client.get(f"/v1/tables/{table_id}", params={"invite_code": code})
        assert shown.status_code == 200
        assert shown.json()["invite_code"] is None  # a visitor is not shown the codes
        # ...nor is a friend with the link and no token yet (who invites, and to what, is
        # read before choosing a name); without the code, or with a wrong one, no table
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as anyone:
            link = await anyone.get(f"/v1/tables/{table_id}", params={"invite_code": code})
            assert link.status_code == 200, link.text
            assert link.json()["host"]["name"] == "Host"
            assert link.json()["invite_code"] is None and link.json()["watch_code"] is None
            for params in ({}, {"invite_code": "guess"}, {"invite_code": table["watch_code"]}):
                unseen = await anyone.get(f"/v1/tables/{table_id}", params=params)
                assert (unseen.status_code, unseen.json()["rule"]) == (404, "table_not_found")
        joined = await join(friend, table_id, invite_code=code)
        assert joined.status_code == 200, joined.text
        assert joined.json()["table"]["watch_code"] == table["watch_code"]
        # Its players read the watch code with the match too (another browser of theirs
        # has no table answer); a stranger and a spectator are told nothing of it.
        match_id = joined.json()["table"]["match_id"]
        for player in (host, friend):
            assert (await player.view(match_id))["watch_code"] == table["watch_code"]
        stranger_view = await stranger.client.get(f"/v1/matches/{match_id}")
        assert stranger_view.status_code == 403
        assert table["watch_code"] not in stranger_view.text
        watched = await stranger.client.get(
            f"/v1/matches/{match_id}/spectator", params={"watch_code": table["watch_code"]}
        )
        assert watched.status_code == 200 and table["watch_code"] not in watched.text
        public = await open_table(stranger)
        public_match = (await join(host, public["table_id"])).json()["table"]["match_id"]
        assert (await host.view(public_match))["watch_code"] is None
    finally:
        for p in (host, stranger, friend):
            await p.close()


async def test_a_player_may_resign_and_nothing_is_recorded_after(
    sqlite_site: ServerProcess,
) -> None:
    host = await Player.create(sqlite_site.url, "Host")
    guest = await Player.create(sqlite_site.url, "Guest")
    stranger = await Player.create(sqlite_site.url, "Stranger")
    try:
        table = await open_table(host, rules="arcadia")  # a standard preset: it counts
        match_id = (await join(guest, table["table_id"])).json()["match"]["match_id"]
        intruder = await stranger.act(match_id, {"type": "resign"})
        assert (intruder.status_code, intruder.json()["rule"]) == (403, "not_your_match")

        before = await host.view(match_id)
        waiting = 1 - before["view"]["to_act"][0]  # resign off turn: allowed
        resigner = (host, guest)[waiting]
        answer = await resigner.act(match_id, {"type": "resign"})
        assert answer.status_code == 200, answer.text
        settled = answer.json()["view"]["settlement"]
        assert (settled["winner"], settled["resigned"]) == (1 - waiting, waiting)
        assert [e["event"]["type"] for e in answer.json()["events"]] == [
            "resigned",
            "match_settled",
        ]
        for player in (host, guest):
            late = await player.act(match_id, {"type": "resign"})
            assert (late.status_code, late.json()["rule"]) == (422, "match_over")
        log = await host.events(match_id)
        assert log["events"][-1]["event"]["type"] == "match_settled"

        # Against the house AI too: a resigned match is a loss in the statistics.
        ai_match = await host.new_match(rules="arcadia")
        resigned = await host.act(ai_match["match_id"], {"type": "resign"})
        assert resigned.status_code == 200
        stats = (await host.client.get(f"/v1/players/{host.id}/stats")).json()
        assert (stats["matches_played"], stats["matches_lost"]) == (2, 2 - (waiting == 1))
    finally:
        for p in (host, guest, stranger):
            await p.close()


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_two_processes_expire_a_table_once_and_never_list_it_after(
    database_url: str, tmp_path: Path
) -> None:
    quick = {"GINRUMMY_TABLE_TTL_S": "1", "GINRUMMY_TABLE_SWEEP_S": "0.2"}
    first = ServerProcess(database_url, tmp_path, **quick).start()
    second = ServerProcess(database_url, tmp_path, **quick).start()
    host = await Player.create(first.url, "Host")
    guest = await Player.create(second.url, "Guest")
    try:
        tables = [await open_table(host) for _ in range(3)]
        guest.client.base_url = httpx.URL(second.url)
        listed = (await guest.client.get("/v1/tables")).json()["tables"]
        assert {t["table_id"] for t in listed} == {t["table_id"] for t in tables}
        await asyncio.sleep(1.2)
        assert (await guest.client.get("/v1/tables")).json()["tables"] == []
        late = await join(guest, tables[0]["table_id"])
        assert (late.status_code, late.json()["rule"]) == (409, "table_expired")
        await asyncio.sleep(1.5)  # several sweeps of both processes
        store = await open_store(database_url)
        try:
            for table in tables:
                logged = await store.read_stream(f"table:{table['table_id']}")
                assert [r.type for r in logged] == ["table_opened", "table_expired"]
        finally:
            await store.close()
        shown = (await host.client.get(f"/v1/tables/{tables[1]['table_id']}")).json()
        assert shown["status"] == "expired"
    finally:
        await host.close()
        await guest.close()
        first.stop()
        second.stop()


async def test_a_challenge_is_for_its_invitee_alone_and_refusals_change_nothing(
    server: ServerProcess,
) -> None:
    host = await Player.create(server.url, "Host")
    invitee = await Player.create(server.url, "Invitee")
    other = await Player.create(server.url, "Other")
    try:
        unknown = await host.client.post("/v1/challenges", json={"to": "nobody"})
        assert (unknown.status_code, unknown.json()["rule"]) == (404, "player_not_found")
        unknown = await host.client.post("/v1/challenges", json={"to": "ai:grandmaster"})
        assert (unknown.status_code, unknown.json()["rule"]) == (404, "player_not_found")
        assert unknown.json()["detail"] == (  # the levels there are, as /v1/house-matches says
            "no house AI level 'grandmaster'; levels: random, easy, medium, hard, baseline"
        )
        myself = await host.client.post("/v1/challenges", json={"to": host.id})
        assert (myself.status_code, myself.json()["rule"]) == (409, "own_table")

        sent = (await host.client.post("/v1/challenges", json={"to": invitee.id})).json()
        path = f"/v1/challenges/{sent['table_id']}"
        assert sent["invitee"]["id"] == invitee.id and sent["status"] == "open"
        assert (await other.client.get("/v1/tables")).json()["tables"] == []  # not a seek
        for player in (host, invitee):
            listed = (await player.client.get("/v1/challenges")).json()["challenges"]
            assert [c["table_id"] for c in listed] == [sent["table_id"]]
        assert (await other.client.get("/v1/challenges")).json()["challenges"] == []

        stolen = await other.client.post(f"{path}/accept")
        assert (stolen.status_code, stolen.json()["rule"]) == (404, "table_not_found")
        nothing = await other.client.post("/v1/challenges/nothing-here/accept")
        # in a challenge's words, and the same for one that is not theirs as for none
        assert stolen.json()["detail"] == f"no challenge {sent['table_id']!r}"
        assert nothing.json()["detail"] == "no challenge 'nothing-here'"
        not_yours = await host.client.post(f"{path}/decline")
        assert (not_yours.status_code, not_yours.json()["rule"]) == (403, "not_invited")
        not_host = await invitee.client.post(f"{path}/cancel")
        assert (not_host.status_code, not_host.json()["rule"]) == (403, "not_the_host")
        assert "decline it instead" in not_host.json()["detail"], not_host.json()
        assert (await host.client.get(f"/v1/tables/{sent['table_id']}")).json()["status"] == "open"

        declined = await invitee.client.post(f"{path}/decline")
        assert declined.status_code == 200 and declined.json()["status"] == "declined"
        late = await invitee.client.post(f"{path}/accept")
        assert (late.status_code, late.json()["rule"]) == (409, "challenge_declined")
        assert (await invitee.client.get("/v1/challenges")).json()["challenges"] == []

        seek = (await host.client.post("/v1/challenges", json={"to": None})).json()
        assert seek["invitee"] is None
        listed = (await other.client.get("/v1/tables")).json()["tables"]
        assert [t["table_id"] for t in listed] == [seek["table_id"]]  # an open seek is public
        taken = await other.client.post(f"/v1/challenges/{seek['table_id']}/accept")
        assert taken.status_code == 200 and taken.json()["match"]["seat"] == 1
        not_over = await other.client.post(
            f"/v1/matches/{taken.json()['match']['match_id']}/rematch"
        )
        assert (not_over.status_code, not_over.json()["rule"]) == (409, "match_not_finished")
    finally:
        for p in (host, invitee, other):
            await p.close()


async def test_a_move_and_a_resignation_at_once_leave_nothing_after_the_settlement(
    each_backend_site: ServerProcess,
) -> None:
    server = each_backend_site  # its own players, tables and matches
    host = await Player.create(server.url, "Host")
    guest = await Player.create(server.url, "Guest")
    try:
        for _ in range(8):
            table = await open_table(host)
            match_id = (await join(guest, table["table_id"])).json()["match"]["match_id"]
            view = (await host.view(match_id))["view"]
            mover, resigner = (host, guest) if view["to_act"] == [0] else (guest, host)
            legal = (await mover.view(match_id))["view"]["legal"]
            move, resign = await asyncio.gather(
                mover.act(match_id, {"type": legal[0]["type"]}),
                resigner.act(match_id, {"type": "resign"}),
            )
            assert resign.status_code == 200, resign.text
            assert move.status_code in (200, 422), move.text
            if move.status_code == 422:
                assert move.json()["rule"] == "match_over"
            kinds = [e["event"]["type"] for e in (await host.events(match_id))["events"]]
            assert kinds[-2:] == ["resigned", "match_settled"], kinds
            assert kinds.count("match_settled") == 1
    finally:
        await host.close()
        await guest.close()


# Found by review (and failing before the fixes): a private rematch, a table id in a
# match URL, a double click on "accept rematch".


async def _settled_private_match(host: Player, guest: Player) -> tuple[str, dict[str, Any]]:
    table = await open_table(host, private=True)
    joined = await join(guest, table["table_id"], invite_code=table["invite_code"])
    assert joined.status_code == 200, joined.text
    match = joined.json()["match"]
    resigned = await guest.act(match["match_id"], {"type": "resign"}, match["version"])
    assert resigned.status_code == 200, resigned.text
    return match["match_id"], table


async def test_the_rematch_of_a_private_match_stays_private(sqlite_site: ServerProcess) -> None:
    host = await Player.create(sqlite_site.url, "Host")
    guest = await Player.create(sqlite_site.url, "Guest")
    try:
        match_id, _ = await _settled_private_match(host, guest)
        await host.client.post(f"/v1/matches/{match_id}/rematch")
        accepted = (await guest.client.post(f"/v1/matches/{match_id}/rematch")).json()
        assert accepted["status"] == "started"
        async with httpx.AsyncClient(base_url=sqlite_site.url) as stranger:
            seen = await stranger.get(f"/v1/matches/{accepted['match_id']}/spectator")
        assert seen.status_code == 403, (
            f"a stranger watches the rematch of a private match without a code: {seen.status_code}"
        )
    finally:
        await host.close()
        await guest.close()


async def test_a_table_id_in_a_match_url_is_a_404_not_a_500(sqlite_site: ServerProcess) -> None:
    host = await Player.create(sqlite_site.url, "Host")
    try:
        table = await open_table(host)
        async with httpx.AsyncClient(base_url=sqlite_site.url) as anyone:
            seen = await anyone.get(f"/v1/matches/table:{table['table_id']}/spectator")
        assert seen.status_code == 404, seen.text
        mine = await host.client.get(f"/v1/matches/table:{table['table_id']}")
        assert mine.status_code == 404, mine.text
    finally:
        await host.close()


async def test_accepting_a_rematch_twice_at_once_is_not_a_409(sqlite_site: ServerProcess) -> None:
    """'Offering twice returns the offer already standing' (TableService.rematch)."""
    host = await Player.create(sqlite_site.url, "Host")
    guest = await Player.create(sqlite_site.url, "Guest")
    try:
        match_id, _ = await _settled_private_match(host, guest)
        await host.client.post(f"/v1/matches/{match_id}/rematch")
        answers = await asyncio.gather(
            *[guest.client.post(f"/v1/matches/{match_id}/rematch") for _ in range(3)]
        )
        assert [a.status_code for a in answers] == [200, 200, 200], [a.text for a in answers]
    finally:
        await host.close()
        await guest.close()


async def test_accepting_a_challenge_again_answers_the_match_it_started(
    sqlite_site: ServerProcess,
) -> None:
    """A bot whose accept timed out retries it: the answer is the match it already sits
    in (it was a 409 table_full, "both seats are taken", as if someone else had it)."""
    host = await Player.create(sqlite_site.url, "Host")
    guest = await Player.create(sqlite_site.url, "Guest")
    try:
        sent = await host.client.post("/v1/challenges", json={"to": guest.id})
        assert sent.status_code == 201, sent.text
        path = f"/v1/challenges/{sent.json()['table_id']}/accept"
        first, again = [await guest.client.post(path) for _ in range(2)]
        assert (first.status_code, again.status_code) == (200, 200), again.text
        assert again.json()["match"]["match_id"] == first.json()["match"]["match_id"]
        assert again.json()["table"] == first.json()["table"]
        joined = await join(guest, sent.json()["table_id"])  # the table's own route too
        assert joined.status_code == 200 and joined.json()["table"] == first.json()["table"]
        table = await open_table(host)  # a public table: anyone else is still refused
        assert (await join(guest, table["table_id"])).status_code == 200
        third = await Player.create(sqlite_site.url, "Third")
        late = await join(third, table["table_id"])
        assert (late.status_code, late.json()["rule"]) == (409, "table_full")
        await third.close()
        # Once its match has started, the host cannot cancel it nor the guest decline it:
        # refused as started, saying what to do, not as if someone else held the seat.
        challenge = f"/v1/challenges/{sent.json()['table_id']}"
        for player, action in ((guest, "decline"), (host, "cancel")):
            refused = await player.client.post(f"{challenge}/{action}")
            problem = refused.json()
            assert (refused.status_code, problem["rule"]) == (409, "table_started"), action
            assert problem["type"] == "/problems/table-started"
        cancelled = await host.client.post(f"/v1/tables/{table['table_id']}/cancel")
        assert cancelled.json()["rule"] == "table_started"
        assert "resign" in cancelled.json()["detail"]
    finally:
        await host.close()
        await guest.close()


async def test_both_seats_ready_at_once_is_not_a_stale_version(sqlite_site: ServerProcess) -> None:
    """Two people who click "next hand" together, each on the version it saw."""
    host = await Player.create(sqlite_site.url, "Host")
    guest = await Player.create(sqlite_site.url, "Guest")
    rng = random.Random(5)
    try:
        table = await open_table(host, rules={"target": 500})
        match_id = (await join(guest, table["table_id"])).json()["match"]["match_id"]
        seats = (host, guest)
        for _ in range(2000):
            answer = await host.view(match_id)
            if answer["view"]["phase"] == "hand_over":
                break
            acting = seats[answer["view"]["to_act"][0]]
            mine = await acting.view(match_id)
            reply = await acting.act(match_id, pick(mine["view"], rng), mine["version"])
            assert reply.status_code == 200, reply.text
        version = answer["version"]
        both = await asyncio.gather(
            *(p.act(match_id, {"type": "next_hand"}, version=version) for p in seats)
        )
        assert [b.status_code for b in both] == [200, 200], [b.text for b in both]
        after = await host.view(match_id)
        assert after["view"]["phase"] == "up_card" and after["view"]["hand_number"] == 2
        again = await host.act(match_id, {"type": "next_hand"}, version=version)
        assert (again.status_code, again.json()["rule"]) == (409, "stale_version")  # a new hand
    finally:
        await host.close()
        await guest.close()


# Found by a security review: one host opened 60 public tables in a minute and filled the
# lobby; another sent 60 challenges to one player. A host has a few tables open at once,
# a sender one challenge to the same player and ten in all; the refusals change nothing.


async def _seed_commitment(player: Player) -> str:
    me = await player.client.get("/v1/me")
    assert me.status_code == 200, me.text
    return str(me.json()["seed_commitment"])


def _refused(answer: httpx.Response, rule: str) -> str:
    assert answer.status_code == 409, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem = answer.json()
    assert (problem["rule"], problem["type"]) == (rule, f"/problems/{rule.replace('_', '-')}")
    return str(problem["detail"])


async def test_a_host_keeps_three_tables_open_and_a_fourth_is_refused_changing_nothing(
    server: ServerProcess,
) -> None:
    host = await Player.create(server.url, "Host")
    other = await Player.create(server.url, "Other")
    try:
        public = await open_table(host)
        private = await open_table(host, private=True)
        seek = await host.client.post("/v1/challenges", json={"to": None})  # a public table
        assert seek.status_code == 201, seek.text
        lobby = (await other.client.get("/v1/tables")).json()["tables"]
        commitment = await _seed_commitment(host)

        for fourth in (
            host.client.post("/v1/tables", json={"rules": QUICK_RULES}),
            host.client.post("/v1/tables", json={"private": True}),
            host.client.post("/v1/challenges", json={"to": None}),
        ):
            detail = _refused(await fourth, "too_many_open_tables")
            assert "3" in detail and "cancel" in detail, detail
        assert (await other.client.get("/v1/tables")).json()["tables"] == lobby
        assert {t["table_id"] for t in lobby} == {public["table_id"], seek.json()["table_id"]}
        assert await _seed_commitment(host) == commitment, "a refusal used up the host's seed"

        # A challenge is not a table: the host may still challenge someone.
        challenge = await host.client.post("/v1/challenges", json={"to": other.id})
        assert challenge.status_code == 201, challenge.text
        # Another host is not held back by this one.
        assert (await open_table(other))["status"] == "open"

        # A place frees when a table closes: cancelled, or joined.
        cancelled = await host.client.post(f"/v1/tables/{private['table_id']}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        again = await open_table(host)
        _refused(await host.client.post("/v1/tables", json={}), "too_many_open_tables")
        assert (await join(other, again["table_id"])).status_code == 200
        assert (await open_table(host))["status"] == "open"
    finally:
        await host.close()
        await other.close()


async def test_opens_sent_at_once_cannot_pass_the_cap_together(server: ServerProcess) -> None:
    host = await Player.create(server.url, "Host")
    other = await Player.create(server.url, "Other")
    try:
        answers = await asyncio.gather(
            *(host.client.post("/v1/tables", json={"rules": QUICK_RULES}) for _ in range(12))
        )
        codes = sorted(a.status_code for a in answers)
        assert codes == [201] * 3 + [409] * 9, [a.text for a in answers]
        listed = (await other.client.get("/v1/tables")).json()["tables"]
        assert sorted(t["table_id"] for t in listed) == sorted(
            a.json()["table_id"] for a in answers if a.status_code == 201
        )
    finally:
        await host.close()
        await other.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_expired_table_no_longer_counts(database_url: str, tmp_path: Path) -> None:
    quick = ServerProcess(database_url, tmp_path, GINRUMMY_TABLE_TTL_S="1").start()
    host = await Player.create(quick.url, "Host")
    try:
        for _ in range(3):
            await open_table(host)
        _refused(await host.client.post("/v1/tables", json={}), "too_many_open_tables")
        await asyncio.sleep(1.2)  # past their time, recorded or not
        assert (await open_table(host))["status"] == "open"
    finally:
        await host.close()
        quick.stop()


async def test_one_challenge_to_the_same_player_and_ten_in_all_refusals_change_nothing(
    sqlite_site: ServerProcess,
) -> None:
    sender = await Player.create(sqlite_site.url, "Sender")
    victim = await Player.create(sqlite_site.url, "Victim")
    others = [await Player.create(sqlite_site.url, f"Other {n}") for n in range(10)]
    try:
        first = await sender.client.post("/v1/challenges", json={"to": victim.id})
        assert first.status_code == 201, first.text
        first_id = first.json()["table_id"]
        commitment = await _seed_commitment(sender)
        for _ in range(3):
            again = await sender.client.post("/v1/challenges", json={"to": victim.id})
            detail = _refused(again, "already_challenged")
            assert first_id in detail and f"/v1/challenges/{first_id}/cancel" in detail, detail
        listed = (await victim.client.get("/v1/challenges")).json()["challenges"]
        assert [c["table_id"] for c in listed] == [first_id]
        assert await _seed_commitment(sender) == commitment

        # Another sender is not held back by this one's challenge to the same player.
        third_party = await others[0].client.post("/v1/challenges", json={"to": victim.id})
        assert third_party.status_code == 201, third_party.text
        # Declined, it frees its place: the sender may ask once more.
        declined = await victim.client.post(f"/v1/challenges/{first_id}/decline")
        assert declined.status_code == 200, declined.text
        second = await sender.client.post("/v1/challenges", json={"to": victim.id})
        assert second.status_code == 201, second.text

        # Ten open in all, to ten players; the eleventh player is refused.
        for other in others[:9]:
            sent = await sender.client.post("/v1/challenges", json={"to": other.id})
            assert sent.status_code == 201, sent.text
        mine = (await sender.client.get("/v1/challenges")).json()["challenges"]
        assert len([c for c in mine if c["host"]["id"] == sender.id]) == 10
        detail = _refused(
            await sender.client.post("/v1/challenges", json={"to": others[9].id}),
            "too_many_open_challenges",
        )
        assert "10" in detail and "cancel" in detail, detail
        assert (await others[9].client.get("/v1/challenges")).json()["challenges"] == []
        # The house AI accepts at once: its challenge never waits, so it is not refused.
        house = await sender.client.post("/v1/challenges", json={"to": "ai:easy"})
        assert house.status_code == 201 and house.json()["status"] == "started", house.text
        # Withdrawing one frees a place.
        withdrawn = await sender.client.post(f"/v1/challenges/{second.json()['table_id']}/cancel")
        assert withdrawn.status_code == 200, withdrawn.text
        late = await sender.client.post("/v1/challenges", json={"to": others[9].id})
        assert late.status_code == 201, late.text
    finally:
        for p in (sender, victim, *others):
            await p.close()


async def test_a_bot_challenged_by_many_accepts_them_all(sqlite_site: ServerProcess) -> None:
    """The caps count what a player sent, never what it was sent."""
    async with httpx.AsyncClient(base_url=sqlite_site.url, timeout=30) as client:
        made = await client.post("/v1/players", json={"name": "Busy bot", "kind": "bot"})
        assert made.status_code == 201, made.text
    bot = Player(
        httpx.AsyncClient(
            base_url=sqlite_site.url,
            timeout=30,
            headers={"Authorization": f"Bearer {made.json()['token']}"},
        ),
        made.json()["token"],
        made.json()["id"],
    )
    senders = [await Player.create(sqlite_site.url, f"Fan {n}") for n in range(12)]
    try:
        for sender in senders:
            sent = await sender.client.post("/v1/challenges", json={"to": bot.id})
            assert sent.status_code == 201, sent.text
        waiting = (await bot.client.get("/v1/challenges")).json()["challenges"]
        assert len(waiting) == 12
        for challenge in waiting:
            accepted = await bot.client.post(f"/v1/challenges/{challenge['table_id']}/accept")
            assert accepted.status_code == 200, accepted.text
        # and with twelve matches running, it may still open its own tables and challenges
        assert (await open_table(bot))["status"] == "open"
        sent = await bot.client.post("/v1/challenges", json={"to": senders[0].id})
        assert sent.status_code == 201, sent.text
    finally:
        for p in (bot, *senders):
            await p.close()


async def test_a_host_lists_its_own_waiting_tables_private_ones_too(
    server: ServerProcess,
) -> None:
    """``GET /v1/tables?mine=true``: a page on another browser finds the host's private
    tables (and their codes) here; nobody else sees them, and a started or cancelled
    table, or a challenge, is not listed."""
    host = await Player.create(server.url, "Host")
    other = await Player.create(server.url, "Other")
    try:
        public = await open_table(host)
        private = await open_table(host, private=True)
        started = await open_table(host)
        assert (await join(other, started["table_id"])).status_code == 200
        challenge = await host.client.post(
            "/v1/challenges", json={"to": other.id, "rules": {"target": 50}}
        )
        assert challenge.status_code == 201, challenge.text
        mine = await host.client.get("/v1/tables", params={"mine": "true"})
        assert mine.status_code == 200, mine.text
        Checker().check(mine, "/v1/tables")
        listed = mine.json()["tables"]
        assert [t["table_id"] for t in listed] == [private["table_id"], public["table_id"]]
        assert listed[0]["invite_code"] == private["invite_code"]
        assert listed[0]["watch_code"] == private["watch_code"]
        assert (await other.client.get("/v1/tables?mine=true")).json()["tables"] == []
        assert [t["table_id"] for t in (await other.client.get("/v1/tables")).json()["tables"]] == [
            public["table_id"]
        ]
        cancelled = await host.client.post(f"/v1/tables/{private['table_id']}/cancel")
        assert cancelled.status_code == 200, cancelled.text
        after = (await host.client.get("/v1/tables?mine=true")).json()["tables"]
        assert [t["table_id"] for t in after] == [public["table_id"]]
    finally:
        await host.close()
        await other.close()
