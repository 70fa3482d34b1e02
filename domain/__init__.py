"""The Gin Rummy rules engine: pure functions over immutable values, no I/O.

Dependencies point one way (server → infra → domain); this package imports only the
standard library and msgspec.
"""
