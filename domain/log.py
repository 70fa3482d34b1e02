"""Every event the store holds, under one tagged union: a match's, a table's, a chat's,
a block list's.

Each stream holds one kind (``<match id>``, ``table:<id>``, ``chat:<match id>`` or
``blocks:<player id>``), but the global log interleaves them, so whoever reads it (the
tailer, the projections) decodes with this.
"""

from __future__ import annotations

import msgspec

from domain.blocks import AnyBlockEvent, BlockEvent
from domain.chat import AnyChatEvent, ChatEvent
from domain.events import AnyEvent, Event
from domain.table import AnyTableEvent, TableEvent

StoredEvent = AnyEvent | AnyTableEvent | AnyChatEvent | AnyBlockEvent
# what an append accepts: an event of any kind
Storable = Event | TableEvent | ChatEvent | BlockEvent

_decoder = msgspec.json.Decoder(StoredEvent)


def decode_stored(data: bytes | str) -> StoredEvent:
    """An event from its JSON; raises msgspec.DecodeError/ValidationError if unknown."""
    return _decoder.decode(data)
