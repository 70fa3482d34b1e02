"""A player stream's open challenges, said again when the player at the other end renames.

The lobby page lists the challenges to and from its player by the other player's name,
and the stream said a challenge once, as it opened: the challenger's rename (or the
challenged player's) showed the old name until the page was reloaded. The stream follows
every rename (``server.renames``: the challenges it said come and go) and sends the
``challenge`` frame of an open challenge of the renamed player again, the table as it is
now; a client takes it as it takes the same frame said again after a reconnect. A read
the database fails is made again after a back-off (``RenameNews``): every match's move
wakes the stream, and retrying at each wake read in a tight loop while it was down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.errors import TableNotOpened
from infra.clock import now_ms
from infra.errors import InfraError
from server.http.tables import table_view
from server.renames import RenameNews
from server.schemas import TableView
from server.services import Services


class ChallengeNames:
    def __init__(self, services: Services, player_id: str, wake: Callable[[], None]) -> None:
        self.services = services
        self.player_id = player_id
        self.shown: dict[str, TableView] = {}  # open challenges, as last said
        # Anyone's (the challenges said come and go) but one's own: the renaming page knows it.
        self.news = RenameNews(services.renames, wake, not_of=player_id)

    def said(self, view: TableView) -> None:
        """The stream said this challenge is open."""
        self.shown[view.table_id] = view

    def closed(self, table_id: str) -> None:
        self.shown.pop(table_id, None)

    async def frames(self) -> list[dict[str, Any]]:
        """A ``challenge`` frame again for each open challenge whose other end was renamed
        since the last look (a read the database fails: after a back-off)."""
        who = self.news.take()
        if not who:
            return []
        frames: list[dict[str, Any]] = []
        for table_id, view in list(self.shown.items()):
            others = {ref.id for ref in (view.host, view.invitee, view.guest) if ref is not None}
            if None not in who and not others & who:
                continue
            try:
                table = await self.services.tables.load(table_id)
                if table.status != "open" or not table.open_at(now_ms()):
                    continue  # its closing is the stream's own news of the table
                fresh = await table_view(self.services, table, self.player_id)
            except TableNotOpened:
                self.closed(table_id)
                continue
            except InfraError:
                self.news.failed(who)  # those sent are not sent again: ``shown`` has them
                return frames
            if (fresh.host, fresh.invitee, fresh.guest) != (view.host, view.invitee, view.guest):
                self.shown[table_id] = fresh
                frames.append({"type": "challenge", "challenge": fresh})
        self.news.answered()
        return frames

    def close(self) -> None:
        self.news.close()
