"""The house AI's seats: who they are, and their decisions thought out off the event loop.

A house AI is a player id ``ai:<level>``, in either seat. Its decision at a version is
fixed by the match seed and that version (``ai_seed``), and its moves from a version
are appended under one command id (``ai_command_id``), so a retry or a second process
decides the same moves and the store keeps them once.
"""

from __future__ import annotations

import hashlib
import logging

from domain.ai import LEVELS
from domain.commands import AnySeatCommand
from domain.errors import quoted
from domain.events import Event
from domain.match import apply
from domain.state import MatchState
from domain.views import player_view
from server.ai_thinking import AiThinker

AI_PREFIX = "ai:"

log = logging.getLogger("ginrummy.ai")


def is_house_ai(player: str) -> bool:
    return player.startswith(AI_PREFIX)


def unknown_level(player: str) -> str | None:
    """Why ``ai:<level>`` is no house AI, listing the levels there are; None if it is one."""
    level = player.removeprefix(AI_PREFIX)
    if level in LEVELS:
        return None
    return f"no house AI level {quoted(level)}; levels: {', '.join(LEVELS)}"


def ai_seat_to_act(state: MatchState) -> int | None:
    """The first seat the server must play now (a house AI's), or None."""
    return next((seat for seat in state.to_act() if is_house_ai(state.players[seat])), None)


def ai_command_id(state: MatchState) -> str:
    """The command id of the AI's moves from ``state``: a retry decides the same and dedupes."""
    return f"{AI_PREFIX}{state.match_id}:{state.version}"


def ai_seed(match_seed: str, version: int) -> str:
    """The AI's seed for one decision: fixed by the match seed and version, so replays agree."""
    return hashlib.sha256(f"ai:{match_seed}:{version}".encode()).hexdigest()


class HouseAi:
    """Decides the house AI seats' moves; its thinking is capped at ``time_cap_ms``."""

    def __init__(self, thinker: AiThinker, time_cap_ms: float | None) -> None:
        self.thinker = thinker
        self.time_cap_ms = time_cap_ms

    async def moves(self, state: MatchState) -> list[Event]:
        """The house AI seats' events from ``state`` until nobody else must act."""
        pending: list[Event] = []
        while (seat := ai_seat_to_act(state)) is not None:
            state, events = apply(state, await self.command(state, seat))
            pending.extend(events)
        return pending

    async def command(self, state: MatchState, seat: int) -> AnySeatCommand:
        """The house AI's next decision for ``seat``, from that seat's view alone."""
        view = player_view(state, seat, advice=True)  # the house is the engine
        level = state.players[seat].removeprefix(AI_PREFIX)
        command, capped = await self.thinker.decide(
            level, view, ai_seed(state.seed, state.version), self.time_cap_ms
        )
        if capped:
            log.warning(
                "AI %s reached its %s ms time cap in match %s at version %s; "
                "it decided on less work than usual",
                level,
                self.time_cap_ms,
                state.match_id,
                state.version,
            )
        return command
