"""Every event the store holds, under one tagged union: a match's and a table's.

Each stream holds one kind (``<match id>`` or ``table:<id>``), but the global log
interleaves them, so whoever reads it (the tailer, the projections) decodes with this.
"""

from __future__ import annotations

import msgspec

from domain.events import AnyEvent, Event
from domain.table import AnyTableEvent, TableEvent

StoredEvent = AnyEvent | AnyTableEvent
Storable = Event | TableEvent  # what an append accepts: any event of either kind

_decoder = msgspec.json.Decoder(StoredEvent)


def decode_stored(data: bytes | str) -> StoredEvent:
    """An event from its JSON; raises msgspec.DecodeError/ValidationError if unknown."""
    return _decoder.decode(data)
