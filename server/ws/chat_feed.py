"""The chat half of a match socket: ``chat`` frames on ``live`` and ``watch``.

Chat is a stream of its own (``chat:<match id>``), so it has a watch of its own on the
hub and a task of its own beside the socket's game pump; both share the socket's queue
(a client too slow for either is closed as too slow). A seat is never sent a message
it muted; a spectator gets every message. Frames carry the socket's match version, as
every frame does, and the message its number in the chat, for ``GET …/chat?after=``. A
mute wakes the task as any append does, and sends nothing: no reader is told of it.

The chat is read once as the socket opens (``LiveSession.run``), its watch already set, so
the position "from now" is the store's then and no message slips between it and the
task: a read that fails there refuses the socket, which has said nothing yet. A read
that fails later is made again after a back-off, as the game pump's is, until the
database answers: the message that woke it is owed, not left for the next one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from server.chat import ChatRecord, message_of
from server.fanout import Backoff
from server.repeated_failures import RepeatedFailures, skipped_note

if TYPE_CHECKING:
    from server.ws.live import LiveSession

log = logging.getLogger("ginrummy.ws")

_read_failures = RepeatedFailures()  # every socket meets an outage at once: one line a while


def send_messages(session: LiveSession, record: ChatRecord, after: int) -> int:
    """Queue the messages of ``record`` after number ``after`` that the socket's reader
    may see; the number the socket is then past."""
    for number, post in record.messages(session.seat, after):
        session.enqueue(
            {"type": "chat", "version": session.version(), "message": message_of(number, post)}
        )
    return max(after, record.state.messages)


async def relay_chat(session: LiveSession, opening: ChatRecord) -> None:
    """Send each message the socket's reader may see, once, in order, for ever: those
    after ``?chat_after=N`` in ``opening`` (the chat as read when the socket opened),
    then each new one. Without ``?chat_after=``, the new ones are those after
    ``opening``. A failed read costs the socket nothing: the game's frames go on, and
    the chat is read again after a back-off (0.5 s, doubling to 10 s) until it answers."""
    chat, watch = session.services.chat, session.chat_watch
    after = session.chat_after
    sent = opening.state.messages if after is None else send_messages(session, opening, after)
    retry = Backoff()
    while True:
        woke = await watch.wait(timeout=retry.seconds_left())
        if not (woke or retry.take()):
            continue
        try:
            record = await chat.load(session.match_id, at_least=watch.latest or None)
        except Exception as error:  # the store's error, translated or not: never the socket's
            retry.failed()
            if (skipped := _read_failures.due("read")) is not None:
                log.warning(
                    "a live socket's read of the chat of %s failed; it is read again until "
                    "it answers: %s%s",
                    session.match_id,
                    error,
                    skipped_note(skipped),
                )
            continue
        retry.answered()
        sent = send_messages(session, record, sent)
