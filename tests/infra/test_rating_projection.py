"""The ratings projection: Glicko-2 per rated match, anchors that never move, rebuilds."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from msgspec.structs import replace
from sqlalchemy import select

from domain.commands import Resign
from domain.events import Event, MatchSettled
from domain.match import apply
from domain.rating import Rating, update
from domain.rating_policy import ANCHORS, HOUSE_VERSIONS, PROVISIONAL_DEVIATION, rating_id
from infra.players import Players
from infra.projections import projector
from infra.projections.queries import matches_for_player, stats_for_player
from infra.projections.ratings import history_of, leaderboard, ratings_of
from infra.schema import rated_matches, rating_history, ratings
from infra.sql_event_store import SqlEventStore
from tests.infra.helpers import arcadia_start, both_away, random_match, stream


def _resigned(players: tuple[str, str], loser: int, rated: bool) -> tuple[str, list[Event]]:
    """A match that the seat ``loser`` resigns at once: a settled match in two commands."""
    start = arcadia_start(players, rated=rated)
    state, started = apply(None, start)
    _, settled = apply(state, Resign(seat=loser))
    return start.match_id, [*started, *settled]


async def test_a_match_abandoned_by_both_moves_no_rating(store: SqlEventStore) -> None:
    """The house AI finished it for both players (``abandoned``): no rating moves, no
    game counts, the history shows no entry, and it is neither won nor lost in the
    statistics. The same log as recorded before the field (no ``abandoned``) counts as
    it always did: rated, won and lost."""
    players = ("ann", "bob")
    match_id, events = both_away(players)
    settled = events[-1]
    assert isinstance(settled, MatchSettled) and settled.abandoned
    await store.append(match_id, 0, events)
    runner = projector(store)
    await runner.catch_up()
    found = await ratings_of(store.engine, players)
    for player in players:
        assert (found[player].rating, found[player].games) == (1500.0, 0)
        assert await history_of(store.engine, player) == []
        stats = await stats_for_player(store.engine, player)
        assert stats.matches_played == 0
        assert stats.hands_scored > 0  # its hands were played, by the stand-in, and count
        (listed,) = await matches_for_player(store.engine, player)
        assert (listed.status, listed.abandoned) == ("finished", True)  # not "won" or "lost"
    assert (await _rows(store))["rated_matches"] == []  # nothing left waiting

    old_id = stream()
    old = [replace(e, match_id=old_id) if e is events[0] else e for e in events]
    old[-1] = replace(settled, abandoned=False)  # a settlement from before the field
    await store.append(old_id, 0, old)
    await runner.catch_up()
    found = await ratings_of(store.engine, players)
    winner = players[settled.winner]
    assert found[winner].rating > 1500.0 > found[players[1 - settled.winner]].rating
    assert [h.match_id for h in await history_of(store.engine, winner)] == [old_id]
    assert (await stats_for_player(store.engine, winner)).matches_won == 1
    listed = {m.match_id: m.abandoned for m in await matches_for_player(store.engine, winner)}
    assert listed == {match_id: True, old_id: False}
    before = await _rows(store)
    await runner.rebuild("ratings")
    assert await _rows(store) == before


async def _rows(store: SqlEventStore) -> dict[str, list[tuple[object, ...]]]:
    async with store.engine.connect() as conn:
        return {
            table.name: [
                tuple(row)
                for row in await conn.execute(select(table).order_by(*table.primary_key.columns))
            ]
            for table in (ratings, rating_history, rated_matches)
        }


async def test_rated_results_follow_glicko2_and_anchors_never_move(store: SqlEventStore) -> None:
    plan = [  # (players, loser seat)
        (("ann", "ai:hard"), 1),
        (("ann", "bob"), 1),
        (("bob", "ai:easy"), 0),
        (("ann", "bob"), 0),
    ]
    expected = {"ann": Rating(), "bob": Rating()}
    last_played: dict[str, datetime] = {}
    for players, loser in plan:
        match_id, events = _resigned(players, loser, rated=True)
        await store.append(match_id, 0, events)
        settled_at = (await store.read_stream(match_id))[-1].recorded_at
        sides = [expected.get(p) or ANCHORS[rating_id(p) or p] for p in players]
        for seat, player in enumerate(players):
            if player in expected:
                score = 0.0 if seat == loser else 1.0
                # the deviation widens by the days since the previous match (a first: one)
                since = last_played.get(player)
                days = 1.0 if since is None else (settled_at - since).total_seconds() / 86400
                expected[player] = update(sides[seat], [(sides[1 - seat], score)], elapsed=days)
                last_played[player] = settled_at
    # unrated matches change nothing: a chosen seed is decided elsewhere, rated=False here
    for players in (("ann", "bob"), ("ann", "ai:hard")):
        match_id, events = _resigned(players, 0, rated=False)
        await store.append(match_id, 0, events)
    match_id, state_batches = stream(), random_match(3, None, ("ann", "cy"))[1]
    await store.append(match_id, 0, [e for b in state_batches for e in b])  # old, unrated
    runner = projector(store)
    await runner.catch_up()
    found = await ratings_of(store.engine, ["ann", "bob", "cy", "ai:hard", "ai:random"])
    for player, rating in expected.items():
        assert abs(found[player].rating - rating.rating) < 1e-9
        assert abs(found[player].deviation - rating.deviation) < 1e-9
        assert abs(found[player].volatility - rating.volatility) < 1e-9
    assert (found["ann"].games, found["bob"].games) == (3, 3)
    assert found["ai:hard"].rating == ANCHORS["ai:hard:v2"].rating  # anchored...
    assert found["ai:hard"].games == 1 and found["ai:hard"].anchored  # ...but counted
    assert found["cy"].games == 0 and found["cy"].rating == 1500.0  # never rated: the start
    assert "ai:random" not in found  # no record at all
    history = await history_of(store.engine, "ann")
    assert [h.opponent for h in history] == ["bob", "bob", "ai:hard:v2"]  # newest first
    assert [h.score for h in history] == [0.0, 1.0, 1.0]
    assert history[0].rating == found["ann"].rating
    assert history[-1].rating_before == 1500.0
    assert await history_of(store.engine, "ai:hard:v2") == []  # anchors keep no history
    before = await _rows(store)
    assert before["rated_matches"] == []  # every rated match settled
    await runner.rebuild("ratings")
    assert await _rows(store) == before


async def test_the_leaderboard_lists_established_ratings_by_kind(store: SqlEventStore) -> None:
    accounts = Players(store.engine)
    kinds: dict[str, Literal["person", "bot"]] = {
        "pro": "person",
        "ace": "person",
        "new": "person",
        "bot": "bot",
    }
    for name, kind in kinds.items():
        await accounts.create_player(f"{name}-{store.engine.url.drivername}", name, name, kind)
    plan = [("pro", 12), ("ace", 12), ("bot", 12), ("new", 1)]  # "new" stays provisional
    for name, count in plan:
        for i in range(count):
            player = f"{name}-{store.engine.url.drivername}"
            loser = int(i % 3 > 0) if name == "ace" else i % 2  # ace wins two in three
            match_id, events = _resigned((player, "ai:medium"), loser, rated=True)
            await store.append(match_id, 0, events)
    await projector(store).catch_up()
    people, more = await leaderboard(store.engine, "person", 10, 0)
    assert [row.name for row in people] == ["ace", "pro"] and not more  # "new" is not listed
    assert people[0].record.rating > people[1].record.rating
    assert all(row.record.deviation < PROVISIONAL_DEVIATION for row in people)
    first, more = await leaderboard(store.engine, "person", 1, 0)
    second, last = await leaderboard(store.engine, "person", 1, 1)
    assert (more, last) == (True, False) and [*first, *second] == people  # paged
    bots, _ = await leaderboard(store.engine, "bot", 10, 0)
    # the bot account and every house level's current anchored record, by rating:
    # medium has played (it counts its games); the others show their anchors
    assert {row.kind for row in bots} == {"bot", "ai"}
    house = {row.record.rating_id: row.record for row in bots if row.kind == "ai"}
    current = {level: str(rating_id(f"ai:{level}")) for level in HOUSE_VERSIONS}
    assert sorted(house) == sorted(current.values())
    assert house[current["medium"]].games == 37 and house[current["hard"]].games == 0
    assert all(record.rating == ANCHORS[rid].rating for rid, record in house.items())
    assert [row.record.rating for row in bots] == sorted(
        (row.record.rating for row in bots), reverse=True
    )


async def test_a_fresh_bot_board_lists_the_house_levels_at_their_anchors(
    store: SqlEventStore,
) -> None:
    """Nobody has played yet: a bot author still sees what the house levels are rated."""
    bots, more = await leaderboard(store.engine, "bot", 10, 0)
    levels = ["hard", "medium", "baseline", "easy"]  # by anchor, highest first
    assert [(row.name, row.kind, row.record.rating) for row in bots] == [
        (level, "ai", ANCHORS[str(rating_id(f"ai:{level}"))].rating) for level in levels
    ]
    assert not more and all(row.record.anchored for row in bots)
    page, more = await leaderboard(store.engine, "bot", 2, 1)
    assert [row.name for row in page] == ["medium", "baseline"] and more
    assert await leaderboard(store.engine, "person", 10, 0) == ([], False)
