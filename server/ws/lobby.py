"""``WS /v1/tables/live``: the lobby's list of public tables, kept current live.

On connecting a client gets the whole list (``tables``), then a ``table`` frame for each
public table that opens and a ``table_closed`` frame for each that starts, is
cancelled or expires, from this process and every other one (the fan-out hub hears
them all). As in ``GET /v1/tables``, a table whose host blocks the viewer, or whom the
viewer blocks, is never offered; one already offered whose host the viewer then blocks
(on any device or process) is closed with ``status`` ``blocked``, and unblocking offers
their open tables again. A host's block of the viewer tells the viewer nothing: their
table stays listed until it closes (a join is refused). A table whose time runs out
closes when any process records its expiry (within ``GINRUMMY_TABLE_SWEEP_S``); the list
never offers a table past its time.
A listed table's host who renames (on any process: ``server.renames``) sends its
``table`` frame again, with the new name: the list showed the old one until reloaded.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
from litestar import Response, WebSocket, get, websocket

from domain.blocks import stream_of
from domain.errors import TableNotOpened
from infra.clock import now_ms
from infra.errors import InfraError
from infra.projections.lobby import TABLE_STREAM_PREFIX
from server.fanout import Backoff, Quiet
from server.http.tables import public_table_views, table_view
from server.renames import RenameNews
from server.schemas import PlayerRef, TableView
from server.services import Services
from server.ws.frames import relay, upgrade_required

_encoder = msgspec.json.Encoder()


async def lobby_frames(services: Services, viewer: str) -> AsyncIterator[dict[str, Any]]:
    """The list, then every change to it, for ever."""
    hose = services.hub.firehose()
    own_blocks = stream_of(viewer)
    listed: dict[str, PlayerRef] = {}  # table id -> its host as last sent
    hosts = HostNames(services, viewer, listed, hose.poke)
    blocks_due = False  # the viewer's block list moved: their list is looked at again
    blocks_retry = Backoff()  # that look, when the database failed it
    try:
        views = await public_table_views(services, viewer, None, 200)
        listed.update((view.table_id, view.host) for view in views)
        yield {"type": "tables", "tables": views}
        quiet = Quiet(services.settings.stream_ping_s)
        while True:
            retries = (blocks_retry.seconds_left(), hosts.news.seconds_to_next())
            waits = [quiet.left(), *(r for r in retries if r is not None)]
            moved = await hose.wait(timeout=min(waits))
            for stream_id, version in moved.items():
                if stream_id == own_blocks:
                    blocks_due = True  # looked at below, with a failed read made again
                    continue
                if not stream_id.startswith(TABLE_STREAM_PREFIX):
                    continue
                try:
                    table = await services.tables.load(
                        stream_id.removeprefix(TABLE_STREAM_PREFIX), at_least=version
                    )
                except (TableNotOpened, InfraError):
                    continue
                if table.private or table.invitee is not None:
                    continue  # never listed: its news is for its players alone
                if table.open_at(now_ms()) and table.table_id not in listed:
                    # Asked only of a table about to be offered: every lobby socket asks it
                    # for every public table's news, and a closing one was never offered.
                    if await services.blocks.between(viewer, table.host):
                        continue  # either blocks the other: not offered (as in the list)
                    view = await table_view(services, table, viewer)
                    listed[table.table_id] = view.host
                    yield {"type": "table", "table": view}
                    quiet.sent()
                elif not table.open_at(now_ms()) and table.table_id in listed:
                    del listed[table.table_id]
                    status = table.status if table.status != "open" else "expired"
                    yield {"type": "table_closed", "table_id": table.table_id, "status": status}
                    quiet.sent()
            if blocks_due or blocks_retry.take():
                blocks_due = False
                try:
                    async for frame in after_own_blocks(services, viewer, listed):
                        yield frame
                        quiet.sent()
                except InfraError:  # the socket stays: looked at again after a back-off
                    blocks_retry.failed()
                else:
                    blocks_retry.answered()
            for frame in await hosts.frames():
                yield frame
                quiet.sent()
            if quiet.due():  # every match's moves wake this feed too: not quiet
                yield {"type": "ping"}
                quiet.sent()
    finally:
        hosts.close()
        services.hub.close_firehose(hose)


class HostNames:
    """The list's hosts who rename: each listed table of theirs is sent again, its host
    named anew. Hosts come and go, so it follows anyone's renames (``server.renames``).
    Every match's move wakes the list too: a read the database fails waits for a back-off
    (``RenameNews``), not for the next wake."""

    def __init__(
        self,
        services: Services,
        viewer: str,
        listed: dict[str, PlayerRef],
        wake: Callable[[], None],
    ) -> None:
        self.services = services
        self.viewer = viewer
        self.listed = listed  # the list's: table id -> its host as last sent
        self.news = RenameNews(services.renames, wake)

    async def frames(self) -> list[dict[str, Any]]:
        """A ``table`` frame again for each listed table whose host was renamed since the
        last look (None among them: any may have been)."""
        renamed = self.news.take()
        if not renamed:
            return []
        try:
            fresh = await renamed_hosts(self.services, self.viewer, self.listed, renamed)
        except InfraError:
            self.news.failed(renamed)
            return []
        self.news.answered()
        for view in fresh:
            self.listed[view.table_id] = view.host
        return [{"type": "table", "table": view} for view in fresh]

    def close(self) -> None:
        self.news.close()


async def after_own_blocks(
    services: Services, viewer: str, listed: dict[str, PlayerRef]
) -> AsyncIterator[dict[str, Any]]:
    """The viewer blocked or unblocked someone: tables of a host they now block go, and
    open tables of a host they no longer block come (as the list would have them)."""
    views = await public_table_views(services, viewer, None, 200)
    offered = {view.table_id for view in views}
    for table_id, host in list(listed.items()):
        if table_id not in offered and await services.blocks.blocks(viewer, host.id):
            del listed[table_id]
            yield {"type": "table_closed", "table_id": table_id, "status": "blocked"}
    for view in views:
        if view.table_id not in listed:
            listed[view.table_id] = view.host
            yield {"type": "table", "table": view}


async def renamed_hosts(
    services: Services, viewer: str, listed: dict[str, PlayerRef], hosts: set[str | None]
) -> list[TableView]:
    """The listed tables whose host goes by another name than the one last sent, as they
    are now: those of the ``hosts`` renamed, or (None among them: some renames may have
    been missed) every one, read as the list is."""
    if None in hosts:
        views = await public_table_views(services, viewer, None, 200)
        fresh = [view for view in views if view.table_id in listed]
    else:
        fresh = []
        for table_id, host in list(listed.items()):
            if host.id in hosts:
                try:
                    # As cached: its news (which this socket has had) keeps it fresh, and
                    # every lobby socket of the process asks at once, for one rename.
                    table = await services.tables.load(table_id, at_least=1)
                except TableNotOpened:
                    continue  # never opened after all: nothing to say of it
                if table.open_at(now_ms()):  # a closing one is said by its own news
                    fresh.append(await table_view(services, table, viewer))
    return [view for view in fresh if view.host != listed[view.table_id]]


@get("/v1/tables/live", include_in_schema=False, sync_to_thread=False)
def lobby_over_plain_http() -> Response[bytes]:
    return upgrade_required()


@websocket("/v1/tables/live", name="lobby-live")
async def lobby_live(socket: WebSocket[Any, Any, Any]) -> None:
    await relay(socket, lobby_frames)
