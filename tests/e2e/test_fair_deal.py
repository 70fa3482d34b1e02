"""A deal nobody can choose, on a real server: commitments first, then seeds, then proof.

The server's commitment is shown (and recorded) before any client seed is accepted;
docs/fair-deal.md's own verifier program, run as a subprocess on a real finished
match's log, recomputes every deck, salt and the first dealer, and fails when one
card or one seed character is changed; ``ginrummy verify`` agrees. Seeded and custom
matches are practice everywhere they are listed and count in no statistics; the engine's
advice (the best discard) appears only in matches with hints; bad client seeds change nothing.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec

from domain.commands import StartMatch
from domain.deck import seed_commitment
from domain.events import HandScored, encode_event
from domain.rules import PRESETS
from tests.domain.test_fair_deal import played_out
from tests.e2e.harness import GINRUMMY, ROOT, Player, ServerProcess, as_action, play_out
from tests.e2e.tables import join, open_table

DOC = ROOT / "docs" / "fair-deal.md"
STANDARD = "arcadia"


# The tests that need no server of their own share one (sqlite_site): each makes players of
# its own, and reads only their matches, tables, seeds and stats.


def documented_verifier(tmp_path: Path) -> Path:
    """The program docs/fair-deal.md tells a reader to save, exactly as written there."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"^cat > verify_deal.py <<'EOF'\n(.*?)^EOF$", text, flags=re.M | re.S)
    assert found, "docs/fair-deal.md shows its verifier program"
    path = tmp_path / "verify_deal.py"
    path.write_text(found.group(1), encoding="utf-8")
    return path


def run_verifier(
    program: Path, events: list[dict[str, Any]], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    saved = tmp_path / "events.json"
    saved.write_text(json.dumps(events), encoding="utf-8")
    # -I: isolated, so it cannot import this project even by accident
    return subprocess.run(
        [sys.executable, "-I", str(program), str(saved)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )


def ginrummy_verify(
    *args: str, database_url: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GINRUMMY_DATABASE_URL"}
    if database_url is not None:
        env["GINRUMMY_DATABASE_URL"] = database_url
    return subprocess.run(
        [str(GINRUMMY), "verify", *args], capture_output=True, text=True, timeout=60, env=env
    )


async def me(player: Player) -> dict[str, Any]:
    response = await player.client.get("/v1/me")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def started_event(log: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = log["events"][0]["event"]
    assert first["type"] == "match_started"
    return first


async def test_the_commitment_comes_before_the_seed_and_the_log_proves_the_deal(
    each_backend_site: ServerProcess, tmp_path: Path
) -> None:
    server = each_backend_site  # its own player, and only that player's matches
    database_url = server.database_url
    created = await server_player(server)
    player, shown = created
    try:
        committed = shown["seed_commitment"]
        assert re.fullmatch(r"[0-9a-f]{64}", committed)
        assert (await me(player))["seed_commitment"] == committed  # held until used
        match = await player.new_match(rules=STANDARD, client_seed="my-own.seed_1")
        assert match["view"]["practice"] is False and match["view"]["hints"] is False
        after = await me(player)
        assert after["seed_commitment"] != committed, "a fresh server seed for the next match"
        assert after["seed_committed_at"] >= shown["seed_committed_at"]
        # while the match runs the seed is secret, the commitment and client seeds public
        running = started_event(await player.events(match["match_id"]))
        assert running["seed"] is None
        assert running["seed_commitment"] == committed
        assert running["client_seeds"][0] == {
            "seed": "my-own.seed_1",
            "by": player.id,
            "at_ms": running["client_seeds"][0]["at_ms"],
        }
        assert (
            running["client_seeds"][1]["by"] == "house" and running["client_seeds"][1]["seed"] == ""
        )
        for given in running["client_seeds"]:
            assert given["at_ms"] >= running["seed_committed_ms"], "no seed before the commitment"

        seen = [json.dumps(match), json.dumps(running), json.dumps(after)]
        seen.append((await player.client.get(f"/v1/matches/{match['match_id']}/spectator")).text)
        seen += await play_recording(player, match)
        log = (await player.events(match["match_id"]))["events"]
        settled = log[-1]["event"]
        assert settled["type"] == "match_settled"
        assert seed_commitment(settled["seed"]) == committed
        leaked = [text[:200] for text in seen if settled["seed"] in text]
        assert not leaked, "the server seed appeared before the match was settled"

        program = documented_verifier(tmp_path)
        proved = run_verifier(program, log, tmp_path)
        hands = sum(e["event"]["type"] == "dealt" for e in log)
        assert proved.returncode == 0, proved.stdout + proved.stderr
        assert proved.stdout.startswith(f"fair deal verified: {hands} hands"), proved.stdout

        # one card of a revealed deck changed
        scored = next(i for i, e in enumerate(log) if e["event"]["type"] == "hand_scored")
        one_card = copy.deepcopy(log)
        deck = one_card[scored]["event"]["deck"]
        deck[3] = "AS" if deck[3] != "AS" else "2S"
        failed = run_verifier(program, one_card, tmp_path)
        assert failed.returncode == 1 and "hand_scored deck or salt" in failed.stdout

        # one character of the server seed, or of a client seed, changed
        for where, field in ((len(log) - 1, "seed"), (0, "client_seeds")):
            tampered = copy.deepcopy(log)
            event = tampered[where]["event"]
            if field == "seed":
                event["seed"] = ("0" if event["seed"][0] != "0" else "1") + event["seed"][1:]
            else:
                event["client_seeds"][0]["seed"] = "my-own.seed_2"
            failed = run_verifier(program, tampered, tmp_path)
            assert failed.returncode == 1 and "FAILED" in failed.stdout, field

        # the CLI agrees, from a saved log and from the server's database
        saved = tmp_path / "events.json"
        saved.write_text(json.dumps(log), encoding="utf-8")
        ok = ginrummy_verify("--events", str(saved), "--commitment", committed)
        assert ok.returncode == 0 and ok.stdout.startswith("fair deal verified"), ok.stdout
        saved.write_text(json.dumps(one_card), encoding="utf-8")
        bad = ginrummy_verify("--events", str(saved))
        assert bad.returncode == 1 and "revealed deck" in bad.stdout, bad.stdout
        wrong = ginrummy_verify("--events", str(tmp_path / "events.json"), "--commitment", "0" * 64)
        assert wrong.returncode == 1
        from_db = ginrummy_verify(match["match_id"], database_url=database_url)
        assert from_db.returncode == 0, from_db.stdout + from_db.stderr
    finally:
        await player.close()


async def play_recording(player: Player, match: dict[str, Any]) -> list[str]:
    """Play to the end as ``play_out`` does; every answer before the last, as sent."""
    rng = random.Random(7)
    texts: list[str] = []
    view, version = match["view"], match["version"]
    while view["phase"] != "match_over":
        legal = view["legal"]
        ending = [a for a in legal if a["type"] in ("gin", "big_gin", "knock")]
        response = await player.act(
            match["match_id"], as_action(ending[0] if ending else rng.choice(legal)), version
        )
        assert response.status_code == 200, response.text
        view, version = response.json()["view"], response.json()["version"]
        if view["phase"] != "match_over":
            texts.append(response.text)
            if len(texts) % 10 == 0:  # the log and the view as they stand mid-match
                texts.append(
                    (await player.client.get(f"/v1/matches/{match['match_id']}/events")).text
                )
                texts.append((await player.client.get(f"/v1/matches/{match['match_id']}")).text)
    return texts


async def server_player(server: ServerProcess) -> tuple[Player, dict[str, Any]]:
    """A player made by hand, to keep POST /v1/players' answer (its commitment)."""
    client = httpx.AsyncClient(base_url=server.url, timeout=30)
    response = await client.post("/v1/players", json={"name": "Fair"})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    client.headers["Authorization"] = f"Bearer {body['token']}"
    return Player(client, body["token"], body["id"]), body


async def test_a_seat_that_gives_no_seed_gets_one_the_log_marks_as_the_servers(
    sqlite_site: ServerProcess,
) -> None:
    player = await Player.create(sqlite_site.url)
    try:
        match = await player.new_match(rules=STANDARD)
        given = started_event(await player.events(match["match_id"]))["client_seeds"][0]
        assert given["by"] == "server" and re.fullmatch(r"[0-9a-f]{32}", given["seed"])
    finally:
        await player.close()


async def test_at_a_table_each_seat_adds_its_seed_after_the_commitment(
    sqlite_site: ServerProcess,
) -> None:
    host, guest = (
        await Player.create(sqlite_site.url, "Host"),
        await Player.create(sqlite_site.url, "Guest"),
    )
    try:
        committed = (await me(host))["seed_commitment"]
        table = await open_table(host, rules=STANDARD, client_seed="host-seed")
        assert table["seed_commitment"] == committed, "the guest sees it before joining"
        assert table["practice"] is False and table["hints"] is False
        listed = (await guest.client.get("/v1/tables")).json()["tables"]
        assert [t["seed_commitment"] for t in listed if t["table_id"] == table["table_id"]] == [
            committed
        ]
        joined = await join(guest, table["table_id"], client_seed="guest-seed")
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["table"]["match_id"]
        started = started_event(await guest.events(match_id))
        assert started["seed_commitment"] == committed
        seeds = started["client_seeds"]
        assert [(s["seed"], s["by"]) for s in seeds] == [
            ("host-seed", host.id),
            ("guest-seed", guest.id),
        ]
        assert started["seed_committed_ms"] <= seeds[0]["at_ms"] <= seeds[1]["at_ms"]
        assert (await me(host))["seed_commitment"] != committed
        seen = [json.dumps(table), json.dumps(listed), joined.text]
        seen.append((await host.client.get(f"/v1/tables/{table['table_id']}")).text)
        seen.append((await host.client.get("/v1/me")).text)
        resigned = await host.act(match_id, {"type": "resign"})
        assert resigned.status_code == 200, resigned.text
        revealed = (await guest.events(match_id))["events"][-1]["event"]["seed"]
        assert seed_commitment(revealed) == committed
        assert not [t for t in seen if revealed in t], "the table never showed its server seed"

        # a challenge accepted with a seed in the query
        challenge = await host.client.post(
            "/v1/challenges", json={"to": guest.id, "rules": STANDARD, "client_seed": "c-1"}
        )
        assert challenge.status_code == 201, challenge.text
        accepted = await guest.client.post(
            f"/v1/challenges/{challenge.json()['table_id']}/accept", params={"client_seed": "c-2"}
        )
        assert accepted.status_code == 200, accepted.text
        started = started_event(await guest.events(accepted.json()["table"]["match_id"]))
        assert [s["seed"] for s in started["client_seeds"]] == ["c-1", "c-2"]
    finally:
        await host.close()
        await guest.close()


async def test_bad_client_seeds_are_clear_problems_that_change_nothing(
    sqlite_site: ServerProcess,
) -> None:
    player, other = (
        await Player.create(sqlite_site.url),
        await Player.create(sqlite_site.url, "Other"),
    )
    try:
        before = (await me(player))["seed_commitment"]
        for seed in ("x" * 65, 12345, "", "has:colon", "with space", None):
            body: dict[str, Any] = {"level": "easy", "rules": STANDARD, "client_seed": seed}
            if seed is None:
                continue  # null is "no seed": allowed
            for path in ("/v1/matches", "/v1/tables", "/v1/challenges"):
                if path == "/v1/challenges":
                    body = {"to": other.id, "client_seed": seed}
                elif path == "/v1/tables":
                    body = {"rules": STANDARD, "client_seed": seed}
                refused = await player.client.post(path, json=body)
                assert refused.status_code == 422, (path, seed, refused.text)
                problem = refused.json()
                assert problem["rule"] == "invalid_request"
                assert problem["detail"].startswith("client_seed"), problem
        both = await player.client.post(
            "/v1/matches", json={"rules": STANDARD, "seed": "chosen", "client_seed": "mine"}
        )
        assert (both.status_code, both.json()["rule"]) == (422, "invalid_client_seed")
        assert (await me(player))["seed_commitment"] == before, "no server seed was used up"
        assert (await player.client.get("/v1/matches")).json()["matches"] == []
        assert (await other.client.get("/v1/challenges")).json()["challenges"] == []

        table = await open_table(other, rules=STANDARD)
        refused = await join(player, table["table_id"], client_seed="x" * 65)
        assert refused.status_code == 422 and "client_seed" in refused.json()["detail"]
        assert (await other.client.get(f"/v1/tables/{table['table_id']}")).json()[
            "status"
        ] == "open"
        challenge = await other.client.post("/v1/challenges", json={"to": player.id})
        refused = await player.client.post(
            f"/v1/challenges/{challenge.json()['table_id']}/accept", params={"client_seed": "a:b"}
        )
        assert refused.status_code == 422, refused.text
        assert refused.json()["rule"] == "invalid_request"
        assert len((await player.client.get("/v1/challenges")).json()["challenges"]) == 1
    finally:
        await player.close()
        await other.close()


async def test_a_seeded_or_custom_match_is_practice_everywhere_and_counts_nowhere(
    sqlite_site: ServerProcess,
) -> None:
    player = await Player.create(sqlite_site.url)
    try:
        seeded = await player.new_match(rules=STANDARD, seed="known-decks")
        assert seeded["view"]["practice"] is True
        await play_out(player, seeded)
        custom = await player.new_match(rules={"preset": "arcadia", "target": 10})
        assert custom["view"]["practice"] is True
        await play_out(player, custom)
        spectator = f"/v1/matches/{seeded['match_id']}/spectator"
        unseen = await player.client.get(spectator)  # a guessed seed would show every card
        assert unseen.status_code == 403 and unseen.json()["rule"] == "watch_code_required"
        watched = await player.client.get(spectator, params={"watch_code": seeded["watch_code"]})
        assert watched.status_code == 200, watched.text
        assert watched.json()["view"]["practice"] is True
        listed = (await player.client.get("/v1/matches")).json()["matches"]
        assert {m["match_id"]: m["practice"] for m in listed} == {
            seeded["match_id"]: True,
            custom["match_id"]: True,
        }
        stats = (await player.client.get(f"/v1/players/{player.id}/stats")).json()
        assert stats["matches_played"] == 0 and stats["hands_won"] + stats["hands_lost"] == 0

        fair = await player.new_match(rules=STANDARD)
        assert fair["view"]["practice"] is False
        await play_out(player, fair)
        stats = (await player.client.get(f"/v1/players/{player.id}/stats")).json()
        assert stats["matches_played"] == 1
        finished = (await player.client.get("/v1/matches?status=finished")).json()["matches"]
        assert {m["match_id"]: m["practice"] for m in finished}[fair["match_id"]] is False
    finally:
        await player.close()


async def test_the_best_discard_only_in_a_match_with_hints(sqlite_site: ServerProcess) -> None:
    player = await Player.create(sqlite_site.url)
    try:
        for hints in (False, True):
            # a chosen deal: on a random one the AI may knock before the first discard of
            # seat 0 (a layoff phase this loop cannot play; failed once in CI)
            match = await player.new_match(rules=STANDARD, hints=hints, seed="advice")
            view = match["view"]
            while not (view["phase"] == "discard" and 0 in view["to_act"]):
                legal = [c for c in view["legal"] if c["type"] in ("pass_up_card", "draw_stock")]
                action = {"type": legal[0]["type"]} if legal else {"type": "take_up_card"}
                answer = await player.act(match["match_id"], action)
                assert answer.status_code == 200, answer.text
                view = answer.json()["view"]
            assert view["hints"] is hints
            assert (view["best_discard"] is not None) is hints
    finally:
        await player.close()


async def test_a_refused_table_or_challenge_uses_up_no_server_seed(
    sqlite_site: ServerProcess,
) -> None:
    """A refusal changes nothing: a challenge to oneself (409 ``own_table``), whatever
    ``rated`` says, leaves the host's committed server seed unused and opens nothing."""
    player = await Player.create(sqlite_site.url)
    try:
        before = (await me(player))["seed_commitment"]
        for body in (
            {"to": player.id},
            {"to": player.id, "rated": False},
            {"to": player.id, "rated": True},  # the same refusal, not "cannot be rated"
        ):
            refused = await player.client.post("/v1/challenges", json=body)
            assert (refused.status_code, refused.json()["rule"]) == (409, "own_table"), body
        assert (await me(player))["seed_commitment"] == before, "no server seed was used up"
        assert (await player.client.get("/v1/challenges")).json()["challenges"] == []
    finally:
        await player.close()


def test_a_saved_log_the_verifier_cannot_read_is_one_line_not_a_traceback(
    tmp_path: Path,
) -> None:
    """``ginrummy verify --events`` on a file that is not a saved log says so in one line
    and exits 1 (not proved fair), as it does for a match it cannot find."""
    saved = {
        "not-json.json": "[",
        "not-events.json": '{"events": "x"}',
        "strings.json": '["a", "b"]',
        "unknown-event.json": '[{"event": {"type": "no_such_event"}}]',
    }
    paths = []
    for name, text in saved.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    for path in [*paths, str(tmp_path / "missing.json")]:
        done = ginrummy_verify("--events", path)
        assert done.returncode == 1, (path, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("ginrummy verify: invalid_events: "), done.stderr
        assert done.stderr.count("\n") == 1, done.stderr


async def test_each_seat_of_a_rematch_may_add_its_own_seed(sqlite_site: ServerProcess) -> None:
    """A rematch is a table like any other: the one who offers gives a client seed with
    the offer, the one who accepts with the acceptance, so neither has to trust the
    server for the rematch's deal either. A bad seed is refused and offers nothing."""
    host, guest = (
        await Player.create(sqlite_site.url),
        await Player.create(sqlite_site.url, "Guest"),
    )
    try:
        table = await open_table(host, rules=STANDARD)
        joined = await join(guest, table["table_id"])
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]
        resigned = await host.client.post(
            f"/v1/matches/{match_id}/actions", json={"action": {"type": "resign"}}
        )
        assert resigned.status_code == 200, resigned.text
        rematch = f"/v1/matches/{match_id}/rematch"
        refused = await host.client.post(rematch, params={"client_seed": "a:b"})
        assert (refused.status_code, refused.json()["rule"]) == (422, "invalid_request")
        assert (await host.client.get(rematch)).status_code == 404, "no offer was made"
        offered = await host.client.post(rematch, params={"client_seed": "host-seed"})
        assert offered.status_code == 200, offered.text
        accepted = await guest.client.post(rematch, params={"client_seed": "guest-seed"})
        assert accepted.status_code == 200, accepted.text
        again = accepted.json()["match_id"]
        started = started_event(await host.events(again))
        assert [(s["seed"], s["by"]) for s in started["client_seeds"]] == [
            ("host-seed", host.id),
            ("guest-seed", guest.id),
        ]
    finally:
        await host.close()
        await guest.close()


def test_verify_says_a_match_no_player_seeded_is_not_provable_not_failed(tmp_path: Path) -> None:
    """A house match between two AIs, or a practice match: the decks match the server's
    seed, but nobody else's seed is in them, so the CLI says so instead of FAILED."""
    start = StartMatch(match_id="m", players=("a", "b"), rules=PRESETS["arcadia"], seed="s")
    _, log = played_out(start)
    saved = tmp_path / "events.json"
    saved.write_text("[" + ",".join(encode_event(e).decode() for e in log) + "]")
    said = ginrummy_verify("--events", str(saved))
    assert said.returncode == 1
    assert said.stdout.startswith("NOT PROVABLE: no player gave a seed"), said.stdout
    assert "FAILED" not in said.stdout
    scored = next(i for i, e in enumerate(log) if isinstance(e, HandScored))
    event = log[scored]
    assert isinstance(event, HandScored)
    changed = [*log]
    changed[scored] = msgspec.structs.replace(
        event, deck=(event.deck[1], event.deck[0], *event.deck[2:])
    )
    saved.write_text("[" + ",".join(encode_event(e).decode() for e in changed) + "]")
    tampered = ginrummy_verify("--events", str(saved))
    assert tampered.returncode == 1 and "FAILED: hand" in tampered.stdout, tampered.stdout
