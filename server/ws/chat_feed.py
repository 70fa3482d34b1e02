"""The chat half of a match socket: ``chat`` frames on ``live`` and ``watch``.

Chat is a stream of its own (``chat:<match id>``), so it has a watch of its own on the
hub and a task of its own beside the socket's game pump; both share the socket's queue
(a client too slow for either is closed as too slow). A seat is never sent a message
it muted; a spectator gets every message. Frames carry the socket's match version, as
every frame does, and the message its number in the chat, for ``GET …/chat?after=``. A
mute wakes the task as any append does, and sends nothing: no reader is told of it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from domain.chat import stream_of
from server.chat import message_of

if TYPE_CHECKING:
    from server.ws.live import LiveSession

log = logging.getLogger("ginrummy.ws")


async def relay_chat(session: LiveSession) -> None:
    """Send each new message the socket's reader may see, once, in order, for ever.

    A store that fails a read costs the chat that wake-up, never the socket: the game's
    frames go on, and the next message is read again from where the last one ended.
    """
    chat = session.services.chat
    watch = session.services.hub.watch(stream_of(session.match_id))  # first: no post slips by
    # ?chat_after=N, read on connecting; None: from the chat's version then. A number of
    # messages (ChatState.messages), never the stream's version, which mutes move.
    sent = session.chat_after
    woke = True
    try:
        while True:
            if woke:
                try:
                    record = await chat.load(session.match_id, at_least=watch.latest or None)
                except Exception:  # the store's error, translated or not: never the socket's
                    log.warning("reading the chat of %s failed", session.match_id, exc_info=True)
                    woke = await watch.wait()
                    continue
                if sent is None:
                    sent = record.state.messages
                for number, post in record.messages(session.seat, sent):
                    session.enqueue(
                        {
                            "type": "chat",
                            "version": session.version(),
                            "message": message_of(number, post),
                        }
                    )
                sent = max(sent, record.state.messages)
            woke = await watch.wait()
    finally:
        session.services.hub.unwatch(watch)
