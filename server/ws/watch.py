"""``WS /v1/matches/{id}/watch``: a spectator's live feed of a match.

The same pump, queue and resume as a seat's socket (``LiveSession``), with the
spectator's view: only what is public to both seats, events redacted as for nobody's
seat. No token is needed; a match from a private table needs its watch code
(``?watch_code=``). Each socket counts as a spectator, on every process (see
``infra/spectators.py``), from the moment it is admitted until it closes.
"""

from __future__ import annotations

from typing import Any

from litestar import Response, WebSocket, get, websocket
from litestar.params import FromPath

from domain.state import MatchState
from domain.table import same_code
from server.match_record import MatchRecord
from server.problems import ServerError
from server.services import services_of
from server.ws.frames import upgrade_required
from server.ws.live import LiveSession, serve


class WatchCodeRequired(ServerError):
    """A match from a private table is watched only with its watch code."""

    rule = "watch_code_required"
    status = 403


def require_watchable(state: MatchState, watch_code: str | None) -> None:
    if state.watch_code is not None and not same_code(watch_code, state.watch_code):
        raise WatchCodeRequired("this match is private: watch it with its watch code")


class WatchSession(LiveSession):
    async def admit(self) -> MatchRecord:
        self.read_after_parameter()
        self.seat = None
        record = await self.services.matches.play_ai(self.match_id)
        require_watchable(record.state, self.socket.query_params.get("watch_code"))
        self.check_start_after(record)
        await self.services.spectators.arrive(self.match_id)
        self.present = True
        return record

    async def depart(self) -> None:
        await self.services.spectators.leave(self.match_id)


@get("/v1/matches/{match_id:str}/watch", include_in_schema=False, sync_to_thread=False)
def watch_over_plain_http() -> Response[bytes]:
    return upgrade_required()


@websocket("/v1/matches/{match_id:str}/watch", name="watch")
async def watch(socket: WebSocket[Any, Any, Any], match_id: FromPath[str]) -> None:
    await socket.accept()
    await serve(WatchSession(socket, services_of(socket.app.state), match_id))
