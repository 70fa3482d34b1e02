"""A match socket's ``seats`` frame: the seats' names, once as it starts, then on a rename.

The page names the seats from ``GET /v1/matches/{id}``'s ``seats`` as it opens, and no
frame told it of a rename: the opponent's page, and every spectator's, showed the old
name until reloaded. A socket follows the renames of its match's players
(``server.renames``); woken, it reads the seats as GET's answer has them and sends them
if a name differs from what it last sent. It sends them once as it starts too, after its
snapshot or the events after ``after``: a rename made between the page's GET and the
socket's start woke no socket, and a socket that resumes at the newest version sends
nothing else to say it. A read the database fails is made again after a back-off, as
the socket's other reads are. The frame names players, never a card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from infra.errors import InfraError
from server.house_ai import is_house_ai
from server.renames import RenameNews
from server.services import Services


class SeatNames:
    def __init__(
        self, services: Services, players: Sequence[str], wake: Callable[[], None]
    ) -> None:
        self.services = services
        self.players = list(players)
        # The house AI is never renamed: a match of two house levels follows nobody.
        people = [player for player in self.players if not is_house_ai(player)]
        self.news = RenameNews(services.renames, wake, people)
        self.news.add(None)  # the first look, as the socket starts: every seat's name
        self.sent: list[tuple[str, str]] | None = None  # (name, kind) of each seat, last sent

    async def frames(self, version: int) -> list[dict[str, Any]]:
        """A ``seats`` frame the first time, then if a seat was renamed since the names
        were last sent."""
        renamed = self.news.take()
        if not renamed:
            return []
        try:
            seats = await self.services.player_refs(self.players)
        except InfraError:
            self.news.failed(renamed)
            return []
        self.news.answered()
        names: list[tuple[str, str]] = [(seat.name, seat.kind) for seat in seats]
        if names == self.sent:
            return []  # a wake that told nothing new (the NOTIFY of a rename told already)
        self.sent = names
        return [{"type": "seats", "version": version, "seats": seats}]

    def close(self) -> None:
        self.news.close()
