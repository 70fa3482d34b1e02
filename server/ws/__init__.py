"""The live WebSocket feed: one socket per seat, fed from the store's log."""
