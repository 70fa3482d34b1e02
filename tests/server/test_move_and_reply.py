"""A player's move and the house AI's reply commit together, and only when they may."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain.commands import AnySeatCommand, Discard, DrawStock, PassUpCard
from domain.rules import Clock, make_rules
from domain.views import player_view
from infra.sql_event_store import SqlEventStore
from server import ai_thinking, house_ai
from server.match_service import MatchService


def _pick(legal: Sequence[AnySeatCommand]) -> AnySeatCommand:
    """Pass, draw from the stock, discard: a turn that soon hands the move to the AI."""
    for kind in (PassUpCard, DrawStock, Discard):
        for command in legal:
            if type(command) is kind:
                return command
    return legal[0]


async def _move(service: MatchService, match_id: str) -> tuple[int, AnySeatCommand]:
    """Play the person's next move; the version it was played at, and the move."""
    record = await service.load(match_id)
    command = _pick(player_view(record.state, 0).legal)
    await service.act(match_id, "p1", lambda seat: command, None)
    return record.state.version, command


async def test_a_move_and_the_ai_reply_are_one_commit(store: SqlEventStore) -> None:
    service = MatchService(store)
    match_id = await service.start(("p1", "ai:medium"), make_rules("classic"), "chain-1")
    replied = 0
    for _ in range(8):
        version, _move_played = await _move(service, match_id)
        after = await store.read_stream(match_id, after_version=version)
        if any((e.command_id or "").startswith("ai:") for e in after):
            replied += 1
            assert len({e.recorded_at for e in after}) == 1  # one commit
            positions = [e.position for e in after]
            assert positions == list(range(positions[0], positions[-1] + 1))
    assert replied >= 3
    fresh = MatchService(store)  # the cache agrees with the log
    assert (await fresh.load(match_id)).state == (await service.load(match_id)).state


async def test_a_timed_match_records_the_reply_after_the_move(store: SqlEventStore) -> None:
    """A clock charges each seat up to its event's time: the AI's thinking is its own."""
    service = MatchService(store)
    clock = Clock(per_move_ms=600_000)
    match_id = await service.start(("p1", "ai:medium"), make_rules("classic"), "c", clock=clock)
    replied = 0
    for _ in range(6):
        version, _move_played = await _move(service, match_id)
        after = await store.read_stream(match_id, after_version=version)
        mine = [e for e in after if not (e.command_id or "").startswith("ai:")]
        replies = [e for e in after if (e.command_id or "").startswith("ai:")]
        assert mine
        if replies:
            replied += 1
            assert replies[0].recorded_at > mine[-1].recorded_at  # two commits, in order
    assert replied
    assert (await MatchService(store).load(match_id)).state == (await service.load(match_id)).state


async def test_a_reply_that_fails_to_decide_leaves_the_move_and_the_ai_to_act(
    store: SqlEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = MatchService(store)
    match_id = await service.start(("p1", "ai:medium"), make_rules("classic"), "chain-3")
    real = ai_thinking.decide_counting

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("the AI fell over")

    record = await service.load(match_id)
    while not isinstance(command := _pick(player_view(record.state, 0).legal), Discard):
        await _move(service, match_id)  # up to the person's first discard, played for real
        record = await service.load(match_id)
    monkeypatch.setattr(ai_thinking, "decide_counting", broken)
    with pytest.raises(RuntimeError):
        await service.act(match_id, "p1", lambda seat: command, None)
    stored = await store.read_stream(match_id, after_version=record.state.version)
    assert [e.command_id for e in stored] and all(
        not (e.command_id or "").startswith("ai:") for e in stored
    )  # the move is in; the AI is left to act
    monkeypatch.setattr(ai_thinking, "decide_counting", real)
    left = await MatchService(store).load(match_id)
    assert house_ai.ai_seat_to_act(left.state) == 1
    await MatchService(store).view(match_id, "p1")  # any entry point lets the AI catch up
    caught_up = await MatchService(store).load(match_id)
    assert caught_up.state.version > left.state.version
    assert house_ai.ai_seat_to_act(caught_up.state) is None
