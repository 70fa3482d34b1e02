"""Replay a match from its stored events: the state after any event, and a readable log.

The log is the match, so a replay folds the stored events with the domain's ``evolve``
(no separate replay logic to drift). The text shows every card, both hands included:
it is an operator's and a finished match's view, not a seat's; whoever serves it to a
player must do so only after the match is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from domain.errors import quoted
from domain.events import (
    Dealt,
    Discarded,
    Drew,
    Event,
    HandScored,
    HandWashed,
    Knocked,
    LaidOff,
    MatchClaimed,
    MatchSettled,
    MatchStarted,
    TurnTimedOut,
    UpCardPassed,
    UpCardTaken,
)
from domain.match import evolve, fold
from domain.state import MatchState
from infra.errors import StreamNotFound
from infra.event_store import EventStore, RecordedEvent
from infra.players import Players
from infra.sql_event_store import SqlEventStore


async def load_match(store: EventStore, match_id: str) -> list[RecordedEvent]:
    """All of a match's events in order; StreamNotFound if it has none."""
    recorded = await store.read_stream(match_id)
    if not recorded:
        raise StreamNotFound(f"no match {quoted(match_id)}")
    return recorded


async def state_at(store: EventStore, match_id: str, at: int | None = None) -> MatchState:
    """The match's state after event number ``at`` (1-based; the last event if None)."""
    events = [r.match_event for r in await load_match(store, match_id)]
    return fold(events[: _clamp(at, len(events))])


async def render_replay(
    store: EventStore, match_id: str, at: int | None = None, names: Mapping[str, str] | None = None
) -> str:
    """The match hand by hand as text, up to event number ``at`` (everything if None)."""
    events = [r.match_event for r in await load_match(store, match_id)]
    return render(events, at, names)


async def player_names(store: SqlEventStore, ids: Iterable[str]) -> dict[str, str]:
    """Display names for a match's player ids, from the players table.

    The events name players by id only (a name can change; the id cannot), so a text
    meant for people looks the names up when it is rendered. AI seats have no row:
    ``ai:hard`` reads as "the hard AI". An id with no row keeps its id.
    """
    table = Players(store.engine)
    names: dict[str, str] = {}
    for player in ids:
        if player.startswith("ai:"):
            names[player] = f"the {player[3:]} AI"
        elif (row := await table.get_player(player)) is not None:
            names[player] = row.name
    return names


def render(
    events: Sequence[Event], at: int | None = None, names: Mapping[str, str] | None = None
) -> str:
    """The text of ``render_replay``; ``names`` maps player ids to display names."""
    names = names or {}
    stop = _clamp(at, len(events))
    lines: list[str] = []
    state: MatchState | None = None
    for number, event in enumerate(events[:stop], start=1):
        before = state
        state = evolve(state, event)
        lines.extend(_describe(number, event, before, state, names))
    assert state is not None
    lines.append("")
    if stop < len(events):
        lines.append(f"Stopped after event {stop} of {len(events)}.")
        lines.extend(_position(state, names))
    else:
        lines.append(f"End of the log: {len(events)} events.")
    return "\n".join(lines) + "\n"


def _clamp(at: int | None, total: int) -> int:
    if at is None:
        return total
    if at < 1:
        raise ValueError("--at counts events from 1")
    return min(at, total)


def _name(state: MatchState, seat: int, names: Mapping[str, str]) -> str:
    player = state.players[seat]
    return f"{names.get(player, player)} (seat {seat})"


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def _melds(melds: Sequence[Sequence[str]]) -> str:
    return " ".join(f"[{_cards(m)}]" for m in melds) or "none"


def _describe(
    n: int, event: Event, before: MatchState | None, after: MatchState, names: Mapping[str, str]
) -> list[str]:
    """One or more lines for one event; ``n`` is its event number (what --at takes)."""
    tag = f"  {n:>4}."
    if isinstance(event, MatchStarted):
        rules = event.rules
        return [
            f"Match {event.match_id} (event {n}):"
            f" {_name(after, 0, names)} vs {_name(after, 1, names)}",
            f"Rules: {rules.name} (to {rules.target}, knock at {rules.knock_limit} or less,"
            f" gin bonus {rules.gin_bonus}, undercut bonus {rules.undercut_bonus})",
            f"Seed commitment: {event.seed_commitment}",
            *[
                f"Player id of {names[player]}: {player}"
                for player in event.players
                if names.get(player, player) != player and not player.startswith("ai:")
            ],
        ]
    if isinstance(event, Dealt):
        hand = after.hand
        assert hand is not None
        return [
            "",
            f"Hand {event.hand_number} (event {n}): dealer {_name(after, event.dealer, names)}, "
            f"up card {event.up_card}, knock limit {event.knock_limit}",
            f"         {_name(after, 0, names)}: {_cards(hand.hands[0])}",
            f"         {_name(after, 1, names)}: {_cards(hand.hands[1])}",
        ]
    if isinstance(event, UpCardTaken):
        return [f"{tag} {_name(after, event.seat, names)} takes the up card {event.card}"]
    if isinstance(event, UpCardPassed):
        assert before is not None and before.hand is not None
        return [
            f"{tag} {_name(after, event.seat, names)} passes the up card {before.hand.pile[-1]}"
        ]
    if isinstance(event, Drew):
        source = "the stock" if event.source == "stock" else "the discard pile"
        return [f"{tag} {_name(after, event.seat, names)} draws {event.card} from {source}"]
    if isinstance(event, Discarded):
        return [f"{tag} {_name(after, event.seat, names)} discards {event.card}"]
    if isinstance(event, Knocked):
        action = {"knock": "knocks", "gin": "goes gin", "big_gin": "goes big gin"}[event.kind]
        discard = f", discarding {event.discard}" if event.discard else ""
        return [
            f"{tag} {_name(after, event.seat, names)} {action}{discard}: melds {_melds(event.melds)};"
            f" deadwood {_cards(event.deadwood)} ({event.deadwood_points})"
        ]
    if isinstance(event, LaidOff):
        return [
            f"{tag} {_name(after, event.seat, names)} lays off {event.card} on meld {event.meld + 1}"
        ]
    if isinstance(event, HandScored):
        return [
            f"{tag} {event.outcome}: {_name(after, event.winner, names)} scores {event.points}"
            f" (deadwood {event.knocker_deadwood} vs {event.defender_deadwood});"
            f" defender melds {_melds(event.defender_melds)}",
            f"         score {event.scores[0]}-{event.scores[1]},"
            f" hands won {event.boxes[0]}-{event.boxes[1]}",
        ]
    if isinstance(event, HandWashed):
        if event.reason == "no_progress":
            limit = after.rules.pile_draw_limit
            return [f"{tag} the hand is washed: {limit} face-up cards taken and nobody knocked"]
        return [f"{tag} the hand is washed: two stock cards left and nobody knocked"]
    if isinstance(event, MatchSettled):
        return [
            "",
            f"{tag} match over: {_name(after, event.winner, names)} wins;"
            f" hand points {event.hand_points[0]}-{event.hand_points[1]},"
            f" box points {event.box_points[0]}-{event.box_points[1]},"
            f" bonus {event.bonus} ({event.bonus_kind}),"
            f" totals {event.totals[0]}-{event.totals[1]}",
            f"         seed {event.seed}",
            *(
                ["         abandoned: both players were away, the house AI played both; not rated"]
                if event.abandoned
                else []
            ),
        ]
    if isinstance(event, TurnTimedOut):
        late = _name(after, event.seat, names)
        if event.between_hands:
            return [f"{tag} {late} did not say ready in time: the server deals on"]
        return [f"{tag} {late} ran out of time: the house easy AI plays the turn"]
    if isinstance(event, MatchClaimed):
        why = "three timeouts in a row" if event.reason == "timeouts" else "absence"
        return [f"{tag} {_name(after, event.seat, names)} claims the match ({why})"]
    return [f"{tag} {type(event).__name__}"]


def _position(state: MatchState, names: Mapping[str, str]) -> list[str]:
    """Where the match stands after the last event shown."""
    if state.hand is None and state.settlement is None:  # between MatchStarted and Dealt
        return [
            f"Phase: before the first deal; {_name(state, 0, names)} against {_name(state, 1, names)}"
        ]
    lines = [
        f"Phase: {state.phase}; to act: {', '.join(_name(state, s, names) for s in state.to_act())}",
        f"Score {state.scores[0]}-{state.scores[1]} after {state.hands_played}"
        f" hand{'' if state.hands_played == 1 else 's'}",
    ]
    hand = state.hand
    if hand is not None and state.phase not in ("hand_over", "match_over"):
        lines += [
            f"  {_name(state, 0, names)}: {_cards(hand.hands[0])}",
            f"  {_name(state, 1, names)}: {_cards(hand.hands[1])}",
            f"  stock {len(hand.stock)} cards; discard pile top "
            f"{hand.pile[-1] if hand.pile else '-'}",
        ]
    return lines
