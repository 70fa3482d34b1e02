"""At debug level the log holds no secret of a match or a table: no seed, deck or salt,
no stock card, no invite or watch code.

Found by a red-team pass: on SQLite (the default store) aiosqlite logs every statement
it runs at debug, with its parameters, so each appended event's payload reached the
log whole: the server seed in ``match_started``, every deck and salt in ``dealt``, each
stock draw's card, and a private table's codes. Whoever reads the log (an operator, a
log service) saw every hand as it was dealt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import BACKENDS
from tests.e2e.harness import Player, ServerProcess, as_action
from tests.e2e.tables import join, open_table


async def _a_few_moves_then_resign(players: tuple[Player, Player], match_id: str) -> None:
    for _ in range(4):
        for player in players:
            view = (await player.view(match_id))["view"]
            stock = [c for c in view["legal"] if c["type"] in ("draw_stock", "pass_up_card")]
            moves = stock or [c for c in view["legal"] if c["type"] == "discard"]
            if moves:
                answer = await player.act(match_id, as_action(moves[0]), view["version"])
                assert answer.status_code == 200, answer.text
    resigned = await players[0].act(match_id, {"type": "resign"})
    assert resigned.status_code == 200, resigned.text


@pytest.mark.parametrize("database_url", BACKENDS, indirect=True)
async def test_no_seed_deck_salt_or_code_reaches_the_log_at_debug(
    database_url: str, tmp_path: Path
) -> None:
    server = ServerProcess(database_url, tmp_path, GINRUMMY_LOG_LEVEL="debug").start()
    try:
        host = await Player.create(server.url, "Host")
        guest = await Player.create(server.url, "Guest")
        table = await open_table(host, private=True)
        joined = await join(guest, table["table_id"], invite_code=table["invite_code"])
        assert joined.status_code == 200, joined.text
        match_id = joined.json()["match"]["match_id"]
        await _a_few_moves_then_resign((host, guest), match_id)
        log = (await host.events(match_id))["events"]
        await host.close()
        await guest.close()
    finally:
        server.stop()
    text = server.log_path.read_text()
    assert "DEBUG" in text, "debug logging is on"
    events = [item["event"] for item in log]
    secrets = {events[0]["seed"], table["invite_code"], table["watch_code"]}
    for event in events:
        if event["type"] == "dealt":
            secrets |= {event["salt"], json.dumps(event["deck"], separators=(",", ":"))}
        if event["type"] == "drew" and event["source"] == "stock":
            secrets.add(json.dumps(event, separators=(",", ":")))
    assert len(secrets) > 5, "the match drew from the stock"
    leaked = sorted(s for s in secrets if s in text)
    assert not leaked, f"secrets in the debug log: {leaked}"
