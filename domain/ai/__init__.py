"""AI opponents: one pure function from a seat's view to one of its legal commands.

Every level sees exactly the ``PlayerView`` a human in that seat would get, never the
match state, so an AI cannot peek at the opponent's hand or the stock; and every
level is deterministic for a given (level, view, seed), so a match replays.
"""

from domain.ai.choose import LEVELS, Level, choose

__all__ = ["LEVELS", "Level", "choose"]
