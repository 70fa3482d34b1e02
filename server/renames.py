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

A follower keeps what it was told in a ``RenameNews`` until it reads the names: a read the
database fails waits for a back-off, as every match's move wakes the lobby's sockets and
the player streams, and retrying at each wake read in a tight loop while it was down.
"""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable

from infra.look_again import LookAgain
from server.fanout import Backoff

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


class RenameNews:
    """A follower's renames (``Renames.follow``): the players renamed since it last read
    their names (None: anyone may have been), ``wake`` called at each, and when to read
    again after the database failed a read (``Backoff``). ``players``: whose renames to
    follow (None: anyone's); ``not_of``: a player whose own renames are not news here."""

    def __init__(
        self,
        renames: Renames,
        wake: Callable[[], None],
        players: Iterable[str] | None = None,
        not_of: str | None = None,
    ) -> None:
        self._renamed: set[str | None] = set()
        self._retry = Backoff()
        self._wake = wake
        self._not_of = not_of
        self._stop = renames.follow(self._told, players)

    def _told(self, player_id: str | None) -> None:
        if player_id is None or player_id != self._not_of:
            self.add(player_id)
            self._wake()

    def add(self, player_id: str | None) -> None:
        """A rename to read (None: read every name again), without a wake."""
        self._renamed.add(player_id)

    def take(self) -> set[str | None]:
        """Whom to read the names of now, forgotten here: empty when nobody was renamed, or
        while a failed read's back-off runs (the news waits for it, however many wakes)."""
        if self._retry.scheduled and not self._retry.take():
            return set()
        renamed, self._renamed = self._renamed, set()
        return renamed

    def failed(self, renamed: set[str | None]) -> None:
        """The read of what ``take`` gave failed: kept, and read again after the back-off."""
        self._renamed |= renamed
        self._retry.failed()

    def answered(self) -> None:
        """The read answered: a later failure waits the first delay again."""
        self._retry.answered()

    def seconds_to_next(self) -> float | None:
        """Until a failed read is due again (0 if it is; None: none failed)."""
        return self._retry.seconds_left()

    def close(self) -> None:
        """No more renames: the follower is gone."""
        self._stop()
