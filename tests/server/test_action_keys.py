"""A keyed action in one process: nothing written of its own, and its key held while it acts."""

from __future__ import annotations

import difflib
from types import SimpleNamespace
from typing import Any, cast

import msgspec
import pytest
from sqlalchemy import event

from domain.commands import AnySeatCommand
from domain.rules import make_rules
from domain.state import MatchState
from domain.views import PlayerView, player_view
from infra.sql_event_store import SqlEventStore
from server import action_keys
from server.ai_thinking import AiThinker
from server.keys_in_flight import KeysInFlight
from server.match_service import MatchService
from server.problems import IdempotencyKeyReused
from server.schemas import ActionRequest
from server.services import Services
from tests.e2e.harness import as_action


async def test_a_keyed_action_writes_nothing_of_its_own(store: SqlEventStore) -> None:
    """Issue 22: the key is bound by the append that acts, not by a claim written before
    it. Two matches dealt alike get the same moves, one keyed and one not, statement by
    statement alike, but for one read of the key's binding before the house AI thinks
    out a reply (hidden information: see the test below), and only then."""
    service = MatchService(store)
    services = cast(
        Services, SimpleNamespace(matches=service, store=store, keys_in_flight=KeysInFlight())
    )
    rules = make_rules("classic", target=10000)
    keyed = await service.start(("p1", "ai:easy"), rules, "alike", match_id="alike-keyed")
    plain = await service.start(("p1", "ai:easy"), rules, "alike", match_id="alike-plain")
    executed: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        executed.append(statement)

    event.listen(store.engine.sync_engine, "before_cursor_execute", record)
    replies = 0
    try:
        for move in range(12):
            state = (await service.load(keyed)).state
            legal = player_view(state, 0).legal
            assert player_view((await service.load(plain)).state, 0).legal == legal, "dealt alike"
            action = as_action(msgspec.to_builtins(legal[0]))
            request = msgspec.convert({"action": action, "version": state.version}, ActionRequest)
            statements: dict[str, list[str]] = {}
            for match_id, key in ((keyed, f"key-{move}"), (plain, None)):
                executed.clear()
                await action_keys.act(services, match_id, "p1", request, key)
                statements[match_id] = list(executed)
            replied = (await service.load(plain)).state.version > state.version + 1
            extra = _added(statements[plain], statements[keyed])
            reads = [s for s in extra if s.lstrip().startswith("SELECT")]
            assert len(reads) == (1 if replied else 0), (move, extra)
            assert all("FROM commands" in s for s in reads), reads
            assert [s for s in extra if s not in reads] in ([], ["BEGIN"]), (move, extra)
            replies += replied
        assert 0 < replies < 12, "both kinds of move were made: with and without a reply"
        assert len(services.keys_in_flight) == 0, "every key is let go once its action is done"
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", record)


def _added(plain: list[str], keyed: list[str]) -> list[str]:
    """The statements ``keyed`` ran beyond ``plain``'s; none of ``plain``'s may be missing."""
    extra: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=plain, b=keyed).get_opcodes():
        assert tag in ("equal", "insert"), (tag, plain[i1:i2], keyed[j1:j2])
        if tag == "insert":
            extra.extend(keyed[j1:j2])
    return extra


def test_a_key_is_held_for_one_request_at_a_time_and_let_go_after() -> None:
    keys = KeysInFlight()
    with keys.hold("p", "k", "h1") as first:
        assert first
        with keys.hold("p", "k", "h2") as other:
            assert not other, "another request with a key in flight is refused"
        with keys.hold("p", "k", "h1") as copy:
            assert copy, "a copy of the request in flight goes on (the log answers it)"
        with keys.hold("q", "k", "h2") as elsewhere:
            assert elsewhere, "a key is its player's own"
        with keys.hold("p", "k", "h2") as still:
            assert not still, "the copy's end does not let go of the first's hold"
    assert len(keys) == 0
    with keys.hold("p", "k", "h2") as later:
        assert later, "once done, the key is free in this process (the log keeps the binding)"
    try:
        with keys.hold("p", "k", "h3"):
            raise RuntimeError("refused")
    except RuntimeError:
        pass
    assert len(keys) == 0, "a request that fails lets go of its key"


class CountingThinker(AiThinker):
    """The real thinker, counting its decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    async def decide(
        self, level: str, view: PlayerView, seed: str, cap_ms: float | None
    ) -> tuple[AnySeatCommand, bool]:
        self.decisions += 1
        return await super().decide(level, view, seed, cap_ms)


async def test_a_key_bound_in_another_match_stops_the_request_before_the_ai_thinks(
    store: SqlEventStore,
) -> None:
    """Hidden information: a request refused as a reuse changes nothing, so it may be
    sent again and again with any move. If the house AI thinks out its reply first, the
    answer's timing tells how the AI, on its hidden hand, weighs each hypothetical move
    (the claim this replaced refused such a request before anything was decided)."""
    thinker = CountingThinker()
    service = MatchService(store, thinker=thinker)
    services = cast(
        Services, SimpleNamespace(matches=service, store=store, keys_in_flight=KeysInFlight())
    )
    rules = make_rules("classic", target=10000)
    first = await service.start(("p1", "ai:easy"), rules, "probe-1", match_id="probe-first")
    probed = await service.start(("p1", "ai:easy"), rules, "probe-2", match_id="probe-other")

    def request_for(match_id: str, state: MatchState) -> ActionRequest:
        legal = [msgspec.to_builtins(a) for a in player_view(state, 0).legal]
        assert {"type": "pass_up_card", "seat": 0} in legal, "the AI's turn comes next"
        action = as_action({"type": "pass_up_card", "seat": 0})
        return msgspec.convert({"action": action, "version": state.version}, ActionRequest)

    state = (await service.load(first)).state
    await action_keys.act(services, first, "p1", request_for(first, state), "K")
    before = (await service.load(probed)).state
    thinker.decisions = 0
    with pytest.raises(IdempotencyKeyReused):
        await action_keys.act(services, probed, "p1", request_for(probed, before), "K")
    assert (await service.load(probed)).state.version == before.version
    assert thinker.decisions == 0, "the AI thought out a reply to a move that was refused"
