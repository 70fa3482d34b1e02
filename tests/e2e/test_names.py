"""Display names on a real server (SQLite and PostgreSQL): two players seen together (the
seats of a match in play, the two ends of a challenge) never go by names that pass for
each other, however the clash would come (a rename, a seat, a challenge, a rematch
offer); every refusal is a 409 ``name_taken`` that changes nothing. Players who never
meet may share a name. Then across two server processes on one PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import BACKENDS, server_for
from tests.e2e.harness import Player, ServerProcess
from tests.e2e.tables import join, open_table
from tests.e2e.test_blocks import challenge_ids, close, players, problem

CYRILLIC_A = "\u0410"
# How long a step waits for a name another holds before it is refused (503 ``busy``):
# shorter than the default 10 s, so the test of that refusal does not sit through it.
# Uncontended steps hold names for milliseconds, and no test here races on ``site``.
NAME_LOCK_WAIT_S = 2.0


@pytest.fixture(scope="module", params=BACKENDS)
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One server per backend for the whole file: every test makes players of its own,
    named for the test, as players who never meet may share names."""
    folder = tmp_path_factory.mktemp(f"names-{request.param}")
    wait = {"GINRUMMY_NAME_LOCK_WAIT_S": str(NAME_LOCK_WAIT_S)}
    with server_for(request.param, folder, **wait) as process:
        yield process


async def rename(player: Player, name: str) -> httpx.Response:
    return await player.client.patch(f"/v1/players/{player.id}", json={"name": name})


async def name_of(player: Player, whom: str) -> str:
    answer = await player.client.get(f"/v1/players/{whom}")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["name"])


async def seat_names(player: Player, match_id: str) -> list[str]:
    return [seat["name"] for seat in (await player.view(match_id))["seats"]]


async def resign(player: Player, match_id: str) -> None:
    answer = await player.act(match_id, {"type": "resign"})
    assert answer.status_code == 200, answer.text


async def test_a_rename_to_the_opponents_name_in_play_is_refused_and_the_old_name_stays(
    site: ServerProcess,
) -> None:
    ada, bob = await players(site.url, "Ada Renamed", "Bob Renamed")
    try:
        table = await open_table(ada)
        joined = await join(bob, table["table_id"])
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]

        for lookalike in ("Ada Renamed", "ada renamed", " AdaRenamed ", f"{CYRILLIC_A}da Renamed"):
            detail = problem(await rename(bob, lookalike), 409, "name_taken")
            assert ada.id in detail
        problem(await rename(ada, "BOB RENAMED"), 409, "name_taken")
        assert await name_of(ada, bob.id) == "Bob Renamed"
        assert await name_of(bob, ada.id) == "Ada Renamed"
        assert await seat_names(ada, match_id) == ["Ada Renamed", "Bob Renamed"]
        # bad input is refused as before, and changes nothing either
        bad = await rename(bob, "Ada\u202e")
        assert bad.status_code == 422, bad.text
        assert await name_of(bob, bob.id) == "Bob Renamed"

        renamed = await rename(bob, "Bob the Second")  # any other name is fine
        assert renamed.status_code == 200, renamed.text
        assert await seat_names(bob, match_id) == ["Ada Renamed", "Bob the Second"]

        await resign(bob, match_id)  # once the match is over they are no longer seen together
        assert (await rename(bob, "Ada Renamed")).status_code == 200
    finally:
        await close(ada, bob)


async def test_a_seat_with_a_host_of_the_same_name_is_refused_and_stays_free(
    site: ServerProcess,
) -> None:
    host, namesake, other = await players(site.url, "Seat Host", "seat host", "Seat Other")
    try:
        table = await open_table(host)
        problem(await join(namesake, table["table_id"]), 409, "name_taken")
        answer = await host.client.get(f"/v1/tables/{table['table_id']}")
        assert answer.json()["status"] == "open"
        assert (await join(other, table["table_id"])).status_code == 200
    finally:
        await close(host, namesake, other)


async def test_a_challenge_between_names_alike_is_not_sent_and_an_open_one_holds_the_names(
    site: ServerProcess,
) -> None:
    eve, namesake, bob = await players(site.url, "Eve Challenge", "EVE CHALLENGE", "Bo Challenge")
    try:
        problem(
            await eve.client.post("/v1/challenges", json={"to": namesake.id}), 409, "name_taken"
        )
        assert await challenge_ids(eve) == []
        assert await challenge_ids(namesake) == []

        sent = await eve.client.post("/v1/challenges", json={"to": bob.id})
        assert sent.status_code == 201, sent.text
        # while it is open, neither end may take the other's name, whoever sent it
        problem(await rename(bob, "Eve Challenge"), 409, "name_taken")
        problem(await rename(eve, "Bo Challenge"), 409, "name_taken")
        accepted = await bob.client.post(f"/v1/challenges/{sent.json()['table_id']}/accept")
        assert accepted.status_code == 200, accepted.text
        match_id = accepted.json()["match"]["match_id"]
        assert await seat_names(bob, match_id) == ["Eve Challenge", "Bo Challenge"]
    finally:
        await close(eve, namesake, bob)


async def test_a_challenge_hidden_by_a_block_holds_no_name_and_tells_nothing(
    site: ServerProcess,
) -> None:
    """A challenge from a player one blocks has left one's list: a rename refused for it
    told that it was still open (and kept a name for a challenge never seen). Accepted by
    its id all the same, it is refused then, when the names would meet."""
    ada, bob = await players(site.url, "Ada Hidden", "Bob Hidden")
    try:
        sent = await bob.client.post("/v1/challenges", json={"to": ada.id})
        assert sent.status_code == 201, sent.text
        assert (await ada.client.post("/v1/me/blocks", json={"player_id": bob.id})).is_success
        assert await challenge_ids(ada) == []  # hidden from her list

        renamed = await rename(ada, "bob hidden")
        assert renamed.status_code == 200, renamed.text
        problem(
            await ada.client.post(f"/v1/challenges/{sent.json()['table_id']}/accept"),
            409,
            "name_taken",
        )
        assert await challenge_ids(bob) == [sent.json()["table_id"]]  # still open, untold
    finally:
        await close(ada, bob)


async def test_a_rematch_offer_to_a_player_renamed_to_ones_name_is_refused(
    site: ServerProcess,
) -> None:
    ada, bob = await players(site.url, "Ada Rematch", "Bob Rematch")
    try:
        table = await open_table(ada)
        match_id = (await join(bob, table["table_id"])).json()["match"]["match_id"]
        await resign(ada, match_id)
        assert (await rename(bob, "ada rematch")).status_code == 200  # no longer seen together
        problem(await ada.client.post(f"/v1/matches/{match_id}/rematch"), 409, "name_taken")
        problem(await bob.client.post(f"/v1/matches/{match_id}/rematch"), 409, "name_taken")
        assert await challenge_ids(ada) == []
    finally:
        await close(ada, bob)


async def test_players_who_never_meet_may_share_a_name(site: ServerProcess) -> None:
    """Guests cannot sign in again, so a name is not theirs for good: two may go by one."""
    first, second = await players(site.url, "Shared Name", "shared name")
    try:
        assert first.id != second.id
        assert (await rename(first, "Shared Name")).status_code == 200
    finally:
        await close(first, second)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_a_rename_racing_a_seat_on_another_process_never_seats_two_names_alike(
    database_url: str, tmp_path: Path
) -> None:
    """A guest renames itself to the host's name on one process while it takes the seat
    at the host's table on another: one of the two wins, never both (each holds both
    names still while it checks them and records what it does)."""
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    everyone: list[Player] = []
    try:
        outcomes = []
        for trial in range(12):
            host = await Player.create(first.url, f"Racer {trial}")
            guest = await Player.create(second.url, f"Guest {trial}")
            everyone += [host, guest]
            table = await open_table(host)
            async with httpx.AsyncClient(base_url=first.url, headers=guest.client.headers) as there:
                renamed, seated = await asyncio.gather(
                    there.patch(f"/v1/players/{guest.id}", json={"name": f"racer {trial}"}),
                    join(guest, table["table_id"]),
                )
            outcomes.append((renamed.status_code, seated.status_code))
            assert sorted(outcomes[-1]) == [200, 409], (renamed.text, seated.text)
            if seated.status_code == 200:
                match_id = seated.json()["match"]["match_id"]
                assert await seat_names(host, match_id) == [f"Racer {trial}", f"Guest {trial}"]
            else:
                assert await name_of(host, guest.id) == f"racer {trial}"
    finally:
        await close(*everyone)
        first.stop()
        second.stop()


async def test_a_name_lock_on_the_house_ai_holds_back_no_challenge_or_rename(
    site: ServerProcess,
) -> None:
    """The house AI's name is one no player may take, so it is never compared: nothing
    holds it. Held (as every challenge to it and every rename of a player facing it held
    it), it made one queue of every such step on every process, one player's burst of
    challenges to "ai:easy" holding back everyone else's; here a lock on it held by
    another session (as another process's step would) must hold back neither."""
    if not site.database_url.startswith("postgres"):
        return  # SQLite serves one process: no other session can hold a name
    import asyncpg

    from infra.database import asyncpg_dsn
    from infra.players import _name_lock_key

    ada = await Player.create(site.url, "Ada Versus House")
    held = await asyncpg.connect(asyncpg_dsn(site.database_url))
    try:
        await held.execute("SELECT pg_advisory_lock($1)", _name_lock_key("ai:easy"))
        challenged = await asyncio.wait_for(
            ada.client.post("/v1/challenges", json={"to": "ai:easy"}), 10
        )
        assert challenged.status_code == 201, challenged.text
        assert challenged.json()["match_id"]
        renamed = await asyncio.wait_for(rename(ada, "Ada Still Versus House"), 10)
        assert renamed.status_code == 200, renamed.text
    finally:
        await held.close()
        await close(ada)


async def test_a_rename_held_back_too_long_is_refused_busy_and_changes_nothing(
    site: ServerProcess,
) -> None:
    """Every rename holds one name (``RENAMES``) across processes; another process stuck
    while holding it held back every rename, and each request hung. After the wait
    (``GINRUMMY_NAME_LOCK_WAIT_S``: 10 s by default, ``NAME_LOCK_WAIT_S`` here) a rename
    is a 503 ``busy`` with ``Retry-After``, the name unchanged; once the name is free the
    same request succeeds."""
    if not site.database_url.startswith("postgres"):
        return  # SQLite serves one process: no other session can hold a name
    import asyncpg

    from infra.database import asyncpg_dsn
    from infra.players import _name_lock_key
    from server.names import RENAMES

    ada = await Player.create(site.url, "Ada Held Back")
    held = await asyncpg.connect(asyncpg_dsn(site.database_url))
    try:
        await held.execute("SELECT pg_advisory_lock($1)", _name_lock_key(RENAMES))
        refused = await asyncio.wait_for(rename(ada, "Ada Moved On"), NAME_LOCK_WAIT_S + 20)
        assert refused.status_code == 503, refused.text
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["rule"] == "busy" and refused.headers["retry-after"] == "1"
        assert await name_of(ada, ada.id) == "Ada Held Back"
        await held.execute("SELECT pg_advisory_unlock($1)", _name_lock_key(RENAMES))
        renamed = await asyncio.wait_for(rename(ada, "Ada Moved On"), 10)
        assert renamed.status_code == 200, renamed.text
        assert await name_of(ada, ada.id) == "Ada Moved On"
    finally:
        await held.close()
        await close(ada)


async def test_a_rename_holds_no_name_of_the_players_it_is_seen_with(site: ServerProcess) -> None:
    """A rename held the name of every player it was seen with, one advisory lock each in
    one transaction: a player sent thousands of challenges (one per guest, each open up
    to a day) took thousands of locks to rename, enough to fill PostgreSQL's lock table,
    and any one of those players' steps held the rename back. It holds its own name and
    the one every rename shares, whoever is seen with it; here another session holds a
    challenger's name (as another process's step would), and the rename does not wait."""
    if not site.database_url.startswith("postgres"):
        return  # SQLite serves one process: no other session can hold a name
    import asyncpg

    from infra.database import asyncpg_dsn
    from infra.players import _name_lock_key

    victim, sender = await players(site.url, "Vic Renames", "Sam Challenges")
    held = await asyncpg.connect(asyncpg_dsn(site.database_url))
    try:
        sent = await sender.client.post("/v1/challenges", json={"to": victim.id})
        assert sent.status_code == 201, sent.text
        await held.execute("SELECT pg_advisory_lock($1)", _name_lock_key(sender.id))
        renamed = await asyncio.wait_for(rename(victim, "Vic Renamed"), 10)
        assert renamed.status_code == 200, renamed.text
        # the check itself is as before: the challenger's name is still refused
        problem(await asyncio.wait_for(rename(victim, "sam challenges"), 10), 409, "name_taken")
    finally:
        await held.close()
        await close(victim, sender)


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
async def test_two_players_seen_together_renaming_to_one_name_on_two_processes_never_both_pass(
    database_url: str, tmp_path: Path
) -> None:
    """Each rename checks the other's name as it is: without a lock they share, both
    would read the old name and both pass."""
    first = ServerProcess(database_url, tmp_path).start()
    second = ServerProcess(database_url, tmp_path).start()
    everyone: list[Player] = []
    try:
        for trial in range(8):
            ada = await Player.create(first.url, f"Ada {trial}")
            bob = await Player.create(second.url, f"Bob {trial}")
            everyone += [ada, bob]
            table = await open_table(ada)
            assert (await join(bob, table["table_id"])).status_code == 200
            renamed = await asyncio.gather(
                rename(ada, f"Same {trial}"), rename(bob, f"same {trial}")
            )
            assert sorted(r.status_code for r in renamed) == [200, 409], [r.text for r in renamed]
    finally:
        await close(*everyone)
        first.stop()
        second.stop()
