"""Every event the store holds, under one tagged union: a match's, a table's, a chat's.

Each stream holds one kind (``<match id>``, ``table:<id>`` or ``chat:<match id>``), but the global log
interleaves them, so whoever reads it (the tailer, the projections) decodes with this.
"""

from __future__ import annotations

import msgspec

from domain.chat import AnyChatEvent, ChatEvent
from domain.events import AnyEvent, Event
from domain.table import AnyTableEvent, TableEvent

StoredEvent = AnyEvent | AnyTableEvent | AnyChatEvent
Storable = Event | TableEvent | ChatEvent  # what an append accepts: an event of any kind

_decoder = msgspec.json.Decoder(StoredEvent)


def decode_stored(data: bytes | str) -> StoredEvent:
    """An event from its JSON; raises msgspec.DecodeError/ValidationError if unknown."""
    return _decoder.decode(data)
