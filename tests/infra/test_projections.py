"""Projections: incremental equals rebuilt, counts are right, and a kill applies nothing twice."""

from __future__ import annotations

import asyncio
import random
import sys
from collections import Counter
from pathlib import Path

import msgspec
from sqlalchemy import select

from domain.events import Event, HandScored, HandWashed, MatchSettled, MatchStarted
from infra.projections import matches_for_player, projector, stats_for_player
from infra.projections.stats import COUNTERS
from infra.schema import matches, player_stats, stats_seats
from infra.sql_event_store import SqlEventStore
from tests.infra.helpers import random_match, stream

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["ann", "bob", "cy"]


async def _snapshot(store: SqlEventStore) -> dict[str, list[tuple[object, ...]]]:
    async with store.engine.connect() as conn:
        return {
            table.name: [
                tuple(row)
                for row in await conn.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in (matches, player_stats, stats_seats)
        }


def _matches(count: int, seed: int) -> list[tuple[str, tuple[str, str], list[list[Event]]]]:
    rng = random.Random(seed)
    played = []
    for i in range(count):
        human = rng.choice(PLAYERS)
        players = (human, f"ai:{rng.choice(['easy', 'medium'])}")
        match_id = stream()
        _, batches = random_match(seed * 100 + i, match_id, players)
        played.append((match_id, players, batches))
    return played


async def _interleave(store: SqlEventStore, played, rng: random.Random, on_step=None) -> None:
    """Append the matches interleaved, as concurrent games would be, a few commands at a time."""
    cursors = {match_id: 0 for match_id, _, _ in played}
    versions = dict.fromkeys(cursors, 0)
    pending = [(m, b) for m, _, b in played]
    while pending:
        match_id, batches = rng.choice(pending)
        start = cursors[match_id]
        chunk = batches[start : start + rng.randint(1, 40)]
        events = [e for b in chunk for e in b]
        result = await store.append(match_id, versions[match_id], events)
        versions[match_id] = result.last_version
        cursors[match_id] += len(chunk)
        if cursors[match_id] == len(batches):
            pending.remove((match_id, batches))
        if on_step is not None:
            await on_step()


def _expected_stats(played) -> dict[str, Counter[str]]:
    """Statistics counted straight from the events, the way docs/rules.md words them."""
    stats: dict[str, Counter[str]] = {}
    for _, players, batches in played:
        for p in players:
            stats.setdefault(p, Counter())
        for event in (e for b in batches for e in b):
            if isinstance(event, HandScored):
                win, lose = players[event.winner], players[1 - event.winner]
                knocker, defender = players[event.knocker], players[1 - event.knocker]
                stats[win]["hands_won"] += 1
                stats[win]["points"] += event.points
                stats[lose]["hands_lost"] += 1
                stats[lose]["points_against"] += event.points
                if event.outcome in ("gin", "big_gin"):
                    stats[knocker]["gins"] += 1
                else:
                    stats[knocker]["knocks"] += 1
                if event.outcome == "undercut":
                    stats[knocker]["undercuts_received"] += 1
                    stats[defender]["undercuts_given"] += 1
            elif isinstance(event, HandWashed):
                for p in players:
                    stats[p]["hands_washed"] += 1
            elif isinstance(event, MatchSettled):
                stats[players[event.winner]]["matches_won"] += 1
                stats[players[1 - event.winner]]["matches_lost"] += 1
    return stats


async def test_incremental_projection_is_right_and_equals_rebuild(store: SqlEventStore) -> None:
    rng = random.Random(11)
    played = _matches(6, seed=3)
    runner = projector(store)
    runner.batch_size = 37  # many small batches, checkpoints in odd places

    async def sometimes_catch_up() -> None:
        if rng.random() < 0.3:
            await runner.catch_up()

    await _interleave(store, played, rng, sometimes_catch_up)
    await runner.catch_up()
    last = await store.last_position()
    assert await runner.checkpoint("matches") == await runner.checkpoint("player_stats") == last
    incremental = await _snapshot(store)

    for player, expected in _expected_stats(played).items():
        stats = await stats_for_player(store.engine, player)
        assert {c: getattr(stats, c) for c in COUNTERS} == {c: expected[c] for c in COUNTERS}
        if stats.hands_scored:
            assert stats.average_points_per_hand == stats.points / stats.hands_scored

    runner.batch_size = 500
    assert await runner.rebuild("matches") == last
    assert await runner.rebuild("player_stats") == last
    assert await _snapshot(store) == incremental
    assert await runner.catch_up() == 0  # rebuild left the checkpoints at the head


async def test_a_practice_match_is_listed_as_such_and_counts_in_no_statistics(
    store: SqlEventStore,
) -> None:
    practice_id, fair_id = stream(), stream()
    _, batches = random_match(8, practice_id, ("ann", "ai:easy"), practice=True)
    await store.append(practice_id, 0, [e for b in batches for e in b])
    runner = projector(store)
    await runner.catch_up()
    stats = await stats_for_player(store.engine, "ann")
    assert {c: getattr(stats, c) for c in COUNTERS} == dict.fromkeys(COUNTERS, 0)
    _, batches = random_match(8, fair_id, ("ann", "ai:easy"))
    await store.append(fair_id, 0, [e for b in batches for e in b])
    await runner.catch_up()
    assert (await stats_for_player(store.engine, "ann")).matches_played == 1
    listed = {m.match_id: m.practice for m in await matches_for_player(store.engine, "ann")}
    assert listed == {practice_id: True, fair_id: False}


async def test_a_players_match_list(store: SqlEventStore) -> None:
    finished_id, active_id = stream(), stream()
    final, batches = random_match(5, finished_id, ("ann", "ai:hard"))
    await store.append(finished_id, 0, [e for b in batches for e in b])
    _, other = random_match(6, active_id, ("ann", "ai:easy"))
    started = other[0]
    assert isinstance(started[0], MatchStarted)
    await store.append(active_id, 0, started)
    await projector(store).catch_up()

    listed = {m.match_id: m for m in await matches_for_player(store.engine, "ann")}
    assert set(listed) == {finished_id, active_id}
    done = listed[finished_id]
    assert final.settlement is not None
    assert (done.status, done.opponent, done.seat) == ("finished", "ai:hard", 0)
    assert (done.score, done.opponent_score) == final.settlement.totals
    assert done.winner == final.players[final.settlement.winner]
    assert done.winner_seat == final.settlement.winner
    assert done.hands_played == final.hands_played and done.finished_at is not None
    assert done.rules_name == final.rules.name
    live = listed[active_id]
    assert (live.status, live.score, live.winner, live.finished_at) == ("active", 0, None, None)
    assert [m.match_id for m in await matches_for_player(store.engine, "ann", "active")] == [
        active_id
    ]
    assert [m.match_id for m in await matches_for_player(store.engine, "ai:hard")] == [finished_id]


_HANG_AFTER_APPLY = """
import asyncio, sys
from infra.projections import projector
from infra.store import open_store

async def main(url):
    store = await open_store(url, migrate=False)
    runner = projector(store)
    async def hang(stage):
        print("applied", flush=True)
        await asyncio.sleep(120)
    runner.fault_hook = hang
    await runner.catch_up()

asyncio.run(main(sys.argv[1]))
"""


async def test_a_projector_killed_before_its_checkpoint_applies_nothing_twice(
    store: SqlEventStore, db_url: str
) -> None:
    rng = random.Random(5)
    played = _matches(4, seed=9)
    await _interleave(store, played[:2], rng)
    runner = projector(store)
    await runner.catch_up()
    applied_before = await runner.checkpoint("matches")
    await _interleave(store, played[2:], rng)
    before_kill = await _snapshot(store)

    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _HANG_AFTER_APPLY,
        db_url,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 30)
    assert line.strip() == b"applied"  # it wrote the read model; checkpoint not yet moved
    child.kill()
    await child.wait()

    assert await _snapshot(store) == before_kill
    assert await runner.checkpoint("matches") == applied_before
    await runner.catch_up()
    after = await _snapshot(store)
    await runner.rebuild("matches")
    await runner.rebuild("player_stats")
    assert await _snapshot(store) == after
    stats = {p: await stats_for_player(store.engine, p) for p in PLAYERS}
    assert sum(s.matches_won + s.matches_lost for s in stats.values()) == len(played)


async def test_the_rebuild_command_rebuilds_from_position_zero(
    store: SqlEventStore, db_url: str
) -> None:
    match_id = stream()
    final, batches = random_match(12, match_id, ("ann", "ai:easy"))
    await store.append(match_id, 0, [e for b in batches for e in b])
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "infra.projections",
        "rebuild",
        "--url",
        db_url,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(child.communicate(), 60)
    assert child.returncode == 0
    total = await store.last_position()
    assert f"matches: rebuilt from {total} events" in out.decode()
    assert f"player_stats: rebuilt from {total} events" in out.decode()
    listed = await matches_for_player(store.engine, "ann")
    assert [(m.match_id, m.status) for m in listed] == [(match_id, "finished")]
    assert final.settlement is not None
    stats = await stats_for_player(store.engine, "ann")
    assert stats.matches_won == (1 if final.settlement.winner == 0 else 0)


async def test_each_seat_lists_the_hand_scores_from_its_own_side(store: SqlEventStore) -> None:
    """After each scored or washed hand: a seat's score is its own, the opponent's theirs."""
    match_id = stream()
    final, batches = random_match(7, match_id, ("ann", "ai:easy"))
    assert final.hands_played >= 2
    started = batches[0][0]
    assert isinstance(started, MatchStarted)  # hosted: its host's row watches from seat 0
    batches[0][0] = msgspec.structs.replace(started, host="hal")
    version, hands, scores = 0, 0, (0, 0)
    runner = projector(store)
    for batch in batches:
        ends = [e for e in batch if isinstance(e, (HandScored, HandWashed))]
        if any(isinstance(e, MatchSettled) for e in batch):
            break
        result = await store.append(match_id, version, batch)
        version = result.last_version
        if not ends:
            continue
        hands += len(ends)
        for end in ends:
            if isinstance(end, HandScored):
                scores = end.scores
        await runner.catch_up()
        ann = {m.match_id: m for m in await matches_for_player(store.engine, "ann")}[match_id]
        ai = {m.match_id: m for m in await matches_for_player(store.engine, "ai:easy")}[match_id]
        assert (ann.seat, ann.score, ann.opponent_score, ann.hands_played) == (0, *scores, hands)
        assert (ai.seat, ai.score, ai.opponent_score, ai.hands_played) == (
            1,
            scores[1],
            scores[0],
            hands,
        )
        hal = {m.match_id: m for m in await matches_for_player(store.engine, "hal")}[match_id]
        assert (hal.score, hal.opponent_score, hal.hands_played) == (*scores, hands)
    assert hands >= 1
