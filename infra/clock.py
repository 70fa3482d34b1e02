"""The services' one wall clock.

The domain never reads a clock: time arrives inside its commands, and this is where the
services that build those commands, and the stores that stamp rows, take it from.
"""

import time


def now_ms() -> int:
    """Milliseconds since the Unix epoch, the unit every command, event and row uses."""
    return int(time.time() * 1000)
