"""Renames: whatever shows a player's name hears when it changes, on every process.

A page showing a name (a seat's or a spectator's match socket, the lobby's list) kept the
name it opened with until reloaded. Now the process that made a rename tells its own
followers at once (``told``), and on PostgreSQL every process hears the NOTIFY that the
rename's transaction sent (``infra.players.RENAME_CHANNEL``, through the log tailer's
LISTEN session: ``heard``). The renaming process hears its own NOTIFY too and skips it
(its payload names the process, ``origin``): its followers were told already, and each
wake is a read per follower (every lobby socket, every spectator of the player's match).

Only the player's id travels: each follower reads the names itself, so a wake that is
lost, repeated or late never shows a wrong name. ``None`` (the LISTEN session was down and
may have missed some) wakes every follower, to read all the names it shows again: at
most once per ``LOOK_AGAIN_GAP_S`` (as ``infra.presence`` does), as each wake is a read,
and a session dropped as soon as it is made reconnects many times a second.
"""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable

from infra.look_again import LookAgain

log = logging.getLogger("ginrummy.renames")

Wake = Callable[[str | None], None]  # the renamed player, or None: any may have been
Stop = Callable[[], None]

# Wakes every follower after a LISTEN reconnect at most this often (infra/look_again.py).
LOOK_AGAIN_GAP_S = 1.0


class Renames:
    def __init__(self) -> None:
        self.origin = uuid.uuid4().hex  # this process, in its renames' NOTIFY payloads
        self._of: defaultdict[str, set[Wake]] = defaultdict(set)
        self._any: set[Wake] = set()
        self._look_again = LookAgain(self._wake_every_follower, LOOK_AGAIN_GAP_S)

    def follow(self, wake: Wake, players: Iterable[str] | None = None) -> Stop:
        """Call ``wake`` for each rename of one of ``players`` (None: of anyone, for a
        view whose players change, as the lobby's list); the function returned stops it."""
        keys = None if players is None else set(players)
        if keys is None:
            self._any.add(wake)
        for key in keys or ():
            self._of[key].add(wake)

        def stop() -> None:
            self._any.discard(wake)
            for key in keys or ():
                wakes = self._of.get(key)
                if wakes is not None:
                    wakes.discard(wake)
                    if not wakes:
                        del self._of[key]

        return stop

    def told(self, player_id: str) -> None:
        """This process renamed the player."""
        self._wake({*self._of.get(player_id, ()), *self._any}, player_id)

    def heard(self, payload: str | None) -> None:
        """A NOTIFY on ``RENAME_CHANNEL`` (``"<origin> <player id>"``; a bare player id
        from a process of an older release), or None: some may be lost."""
        if payload is None:
            self._look_again.ask()
            return
        origin, _, player_id = payload.rpartition(" ")
        if player_id and origin != self.origin:  # this process's own: told already
            self.told(player_id)

    def close(self) -> None:
        """At shutdown: a look put off to the end of the gap is not made."""
        self._look_again.close()

    def _wake_every_follower(self) -> None:
        self._wake({wake for wakes in self._of.values() for wake in wakes} | self._any, None)

    def followers(self) -> int:
        return len({wake for wakes in self._of.values() for wake in wakes} | self._any)

    @staticmethod
    def _wake(wakes: set[Wake], player_id: str | None) -> None:
        for wake in wakes:
            try:
                wake(player_id)
            except Exception:  # one broken follower must not keep the news from the others
                log.exception("a follower of renames failed")
