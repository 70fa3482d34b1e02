"""The tables, as SQLAlchemy Core metadata shared by the store, the repositories and Alembic.

One definition serves both databases: types are the portable ones (``Text``,
``BigInteger``, ``LargeBinary``), so SQLite and PostgreSQL hold the same rows. The
migrations in ``migrations/versions`` create exactly these tables; a test compares them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# The head of the global log: ONE row, updated inside every append transaction and
# locked until commit. Appends therefore serialise on it, and positions follow commit
# order with no gaps (see docs/event-store.md).
log_head = Table(
    "log_head",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("position", BigInteger, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("position", BigInteger, primary_key=True, autoincrement=False),
    Column("stream_id", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", Text, nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("payload", Text, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    Column("command_id", Text, nullable=True),
    UniqueConstraint("stream_id", "version", name="uq_events_stream_version"),
)

# One row per command that appended: a retried command id finds its first result here.
commands = Table(
    "commands",
    metadata,
    Column("command_id", Text, primary_key=True),
    Column("stream_id", Text, nullable=False),
    Column("command_hash", Text, nullable=True),
    Column("first_version", Integer, nullable=False),
    Column("last_version", Integer, nullable=False),
    Column("last_position", BigInteger, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
)

players = Table(
    "players",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("kind", Text, nullable=False, server_default="person"),  # person | bot
    # the secret server seed of the player's next match, and when it was committed to
    Column("next_seed", Text, nullable=True),
    Column("next_seed_ms", BigInteger, nullable=True),
)

# A player's bearer tokens, each only as its SHA-256: a player may hold several (one per
# rotation until the old one is gone); a revoked token's row is deleted, so a token is
# valid exactly while its row exists and ``expires_ms`` (epoch ms, NULL: never) is ahead.
tokens = Table(
    "tokens",
    metadata,
    Column("token_hash", Text, primary_key=True),
    Column("player_id", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_ms", BigInteger, nullable=True),
    Index("ix_tokens_player", "player_id"),
)

# One-time codes that sign a player in on another device, each only as its SHA-256: at
# most one live code per player (a new one replaces it), deleted as it is redeemed.
sign_in_codes = Table(
    "sign_in_codes",
    metadata,
    Column("code_hash", Text, primary_key=True),
    Column("player_id", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    # The token that made the code: the code works only while that token does, so a
    # sign-out (a rotation, a revocation) ends it, whenever the code was written.
    Column("issuer_hash", Text, nullable=False),
    UniqueConstraint("player_id", name="uq_sign_in_codes_player"),
)

# Fixed-window request counters shared by every server process: one row per (key,
# window), upserted with RETURNING, so a limit is not multiplied by the workers.
rate_limits = Table(
    "rate_limits",
    metadata,
    Column("key", Text, nullable=False),
    Column("window_start", BigInteger, nullable=False),
    Column("hits", Integer, nullable=False),
    PrimaryKeyConstraint("key", "window_start", name="pk_rate_limits"),
)

# No longer written: a key is bound by its action's command id in ``commands``
# (server/action_keys.py). Left for a later migration to drop.
idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("player_id", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("request_hash", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("player_id", "key", name="pk_idempotency_keys"),
)

projection_checkpoints = Table(
    "projection_checkpoints",
    metadata,
    Column("name", Text, primary_key=True),
    Column("position", BigInteger, nullable=False),
)

# Read model: one row per (match, seat), so "my matches" is one indexed query.
matches = Table(
    "matches",
    metadata,
    Column("match_id", Text, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", Text, nullable=False),
    Column("opponent", Text, nullable=False),
    Column("rules_name", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("score", Integer, nullable=False),
    Column("opponent_score", Integer, nullable=False),
    Column("hands_played", Integer, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("winner", Text, nullable=True),
    Column("last_position", BigInteger, nullable=False),
    Column("practice", Integer, nullable=False, server_default="0"),  # 1: chosen seed or custom
    Column("rated", Integer, nullable=False, server_default="0"),  # 1: moves ratings (0021)
    Column("private", Integer, nullable=False, server_default="0"),  # 1: has a watch code (0023)
    Column("abandoned", Integer, nullable=False, server_default="0"),  # 1: both away (0025)
    PrimaryKeyConstraint("match_id", "seat", name="pk_matches"),
    Index("ix_matches_player", "player_id", "started_at"),
    Index("ix_matches_in_play", "status", "started_at"),  # GET /v1/matches/watchable
)

# Read model: per-player totals; the average is points / hands scored (won or lost).
player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", Text, primary_key=True),
    Column("matches_won", Integer, nullable=False),
    Column("matches_lost", Integer, nullable=False),
    Column("hands_won", Integer, nullable=False),
    Column("hands_lost", Integer, nullable=False),
    Column("hands_washed", Integer, nullable=False),
    Column("gins", Integer, nullable=False),
    Column("undercuts_given", Integer, nullable=False),
    Column("undercuts_received", Integer, nullable=False),
    Column("knocks", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("points_against", Integer, nullable=False, server_default="0"),
)

# A small table the stats projection keeps so it knows who sat where in each match.
stats_seats = Table(
    "stats_seats",
    metadata,
    Column("match_id", Text, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", Text, nullable=False),
    PrimaryKeyConstraint("match_id", "seat", name="pk_stats_seats"),
)

# Read model: the lobby, one row per table; public open tables are what GET /v1/tables lists.
lobby_tables = Table(
    "lobby_tables",
    metadata,
    Column("table_id", Text, primary_key=True),
    Column("host", Text, nullable=False),
    Column("rules_name", Text, nullable=False),
    Column("rules", Text, nullable=False),  # the whole rule set, as JSON
    Column("private", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("opened_ms", BigInteger, nullable=False),
    Column("expires_ms", BigInteger, nullable=False),
    Column("guest", Text, nullable=True),
    Column("match_id", Text, nullable=True),
    Column("invitee", Text, nullable=True),
    Column("rematch_of", Text, nullable=True),
    Column("last_position", BigInteger, nullable=False),
    Column("hints", Integer, nullable=False, server_default="1"),
    Column("seed_commitment", Text, nullable=True),  # of the match's server seed
    Column("rated", Integer, nullable=False, server_default="0"),
    Column("clock", Text, nullable=True),  # the match's move clock, as JSON (NULL: none)
    Index("ix_lobby_tables_open", "status", "expires_ms"),
    Index("ix_lobby_tables_invitee", "invitee", "status"),
    Index("ix_lobby_tables_host", "host", "status"),  # a host's tables; a rename (0022)
    Index("ix_lobby_tables_guest", "guest", "status"),  # whom a rename is seen with (0022)
)

# Read model: who blocks whom (domain/blocks.py), one row per block in force, folded from
# the ``blocks:<player>`` streams; the lobby and the chat ask it for a pair of players.
player_blocks = Table(
    "player_blocks",
    metadata,
    Column("blocker", Text, nullable=False),
    Column("blocked", Text, nullable=False),
    Column("blocked_ms", BigInteger, nullable=False),
    PrimaryKeyConstraint("blocker", "blocked", name="pk_player_blocks"),
)

# Who is watching: each server process's count of spectator sockets per match, refreshed
# while it has any. A process that dies stops refreshing and its rows stop counting.
spectators = Table(
    "spectators",
    metadata,
    Column("match_id", Text, nullable=False),
    Column("process_id", Text, nullable=False),
    Column("watchers", Integer, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    PrimaryKeyConstraint("match_id", "process_id", name="pk_spectators"),
    Index("ix_spectators_updated", "updated_ms"),  # swept by age (migration 0017)
)

# A cache of folded match state (msgpack of MatchState) at a version; never the truth.
snapshots = Table(
    "snapshots",
    metadata,
    Column("stream_id", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("state", LargeBinary, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("stream_id", "version", name="pk_snapshots"),
)

# Read model: each rating record's Glicko-2 numbers. A record is a player's id, or a
# house level's version (``ai:hard:v1``, anchored: its numbers never move).
ratings = Table(
    "ratings",
    metadata,
    Column("rating_id", Text, primary_key=True),
    Column("player_id", Text, nullable=False),  # the account, or ``ai:<level>``
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("anchored", Integer, nullable=False),
    Column("last_played", DateTime(timezone=True), nullable=True),  # its last rated match
    Index("ix_ratings_player", "player_id"),
    Index("ix_ratings_rating", "rating"),
)

# Read model: one row per rated match and (non-anchored) record: the rating after it.
rating_history = Table(
    "rating_history",
    metadata,
    Column("rating_id", Text, nullable=False),
    Column("match_id", Text, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("opponent", Text, nullable=False),  # the opponent's rating record
    Column("score", Float, nullable=False),  # 1 won, 0 lost
    Column("rating_before", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
    PrimaryKeyConstraint("rating_id", "match_id", name="pk_rating_history"),
    Index("ix_rating_history_position", "rating_id", "position"),
)

# The rating projection's note of who plays for which record in each rated match, from
# MatchStarted until MatchSettled.
rated_matches = Table(
    "rated_matches",
    metadata,
    Column("match_id", Text, primary_key=True),
    Column("seat0", Text, nullable=False),
    Column("seat1", Text, nullable=False),
)

# When each timed match's seat to act runs out of time (``due_ms``; NULL while no clock
# runs), written after every append at the version it was computed for. Only a hint for
# the sweepers: the match's log decides whether a timeout is really due.
match_deadlines = Table(
    "match_deadlines",
    metadata,
    Column("match_id", Text, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("due_ms", BigInteger, nullable=True),
    Index("ix_match_deadlines_due", "due_ms"),
)

# Who is connected (infra/presence.py): each server process's count of a seat's open
# ``live`` sockets, per (match, seat), refreshed while open; a row with no sockets keeps
# when the last one closed.
seat_presence = Table(
    "seat_presence",
    metadata,
    Column("match_id", Text, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("process_id", Text, nullable=False),
    Column("sockets", Integer, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    PrimaryKeyConstraint("match_id", "seat", "process_id", name="pk_seat_presence"),
    Index("ix_seat_presence_updated", "updated_ms"),  # swept by age (migration 0017)
)

# The same for each player's player streams (which make it present in all its matches).
stream_presence = Table(
    "stream_presence",
    metadata,
    Column("player_id", Text, nullable=False),
    Column("process_id", Text, nullable=False),
    Column("sockets", Integer, nullable=False),
    Column("updated_ms", BigInteger, nullable=False),
    PrimaryKeyConstraint("player_id", "process_id", name="pk_stream_presence"),
    Index("ix_stream_presence_updated", "updated_ms"),
)
