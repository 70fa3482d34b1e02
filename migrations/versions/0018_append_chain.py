"""PostgreSQL: ``ginrummy_append`` learns chains, so a move and the AI's reply commit as one.

An append may now carry ``"d": true`` (``AppendRequest.after_previous``): it is written
only if the append just before it in the group was newly written, and is otherwise
refused (answered ``["unwritten", actual version]``, a conflict to the caller). The server sends a player's move and the house AI's reply,
decided on the state after that move, as such a pair: one transaction and one flush
for both, and a reply can never land on a state it was not decided on (were the move
refused, a foreign append of the same length could otherwise leave the stream at the
reply's expected version). Everything else is the function of migration 0008, whose
decisions ``infra/append_plan.plan`` still mirrors step for step.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01
"""

import importlib.util
from collections.abc import Sequence
from pathlib import Path

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CREATE = r"""
CREATE OR REPLACE FUNCTION ginrummy_append(p_group jsonb, p_now timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_start bigint;
    v_head bigint;
    v_req jsonb;
    v_stream text;
    v_expected integer;
    v_command text;
    v_hash text;
    v_current integer;
    v_count integer;
    v_first commands%ROWTYPE;
    v_previous_written boolean := false;
    v_written boolean := false;
    v_out jsonb := '[]'::jsonb;
BEGIN
    SELECT position INTO v_start FROM log_head WHERE id = 1 FOR UPDATE;
    v_head := v_start;
    FOR v_req IN SELECT r.value FROM jsonb_array_elements(p_group) WITH ORDINALITY AS r
               ORDER BY r.ordinality LOOP
        v_previous_written := v_written;
        v_written := false;
        v_stream := v_req->>'s';
        v_expected := (v_req->>'v')::integer;
        v_command := v_req->>'c';
        v_hash := v_req->>'h';
        IF coalesce((v_req->>'d')::boolean, false) AND NOT v_previous_written THEN
            SELECT coalesce(max(version), 0) INTO v_current FROM events
            WHERE stream_id = v_stream;
            v_out := v_out || jsonb_build_array(jsonb_build_array('unwritten', v_current));
            CONTINUE;
        END IF;
        IF v_command IS NOT NULL THEN
            SELECT * INTO v_first FROM commands WHERE command_id = v_command;
            IF FOUND THEN
                IF v_first.stream_id <> v_stream THEN
                    v_out := v_out || jsonb_build_array(jsonb_build_array('other_stream'));
                ELSIF v_hash IS NOT NULL AND v_first.command_hash IS DISTINCT FROM v_hash THEN
                    v_out := v_out || jsonb_build_array(jsonb_build_array('other_payload'));
                ELSE
                    v_out := v_out || jsonb_build_array(jsonb_build_array(
                        'dup', v_first.first_version, v_first.last_version,
                        v_first.last_position));
                END IF;
                CONTINUE;
            END IF;
        END IF;
        SELECT coalesce(max(version), 0) INTO v_current FROM events WHERE stream_id = v_stream;
        IF v_current <> v_expected THEN
            v_out := v_out || jsonb_build_array(jsonb_build_array('conflict', v_current));
            CONTINUE;
        END IF;
        INSERT INTO events (position, stream_id, version, type, schema_version, payload,
                            recorded_at, command_id)
        SELECT v_head + e.ordinality, v_stream, v_expected + e.ordinality, e.value->>0,
               (e.value->>1)::integer, e.value->>2, p_now, v_command
        FROM jsonb_array_elements(v_req->'e') WITH ORDINALITY AS e;
        GET DIAGNOSTICS v_count = ROW_COUNT;
        v_head := v_head + v_count;
        IF v_command IS NOT NULL THEN
            INSERT INTO commands (command_id, stream_id, command_hash, first_version,
                                  last_version, last_position, recorded_at)
            VALUES (v_command, v_stream, v_hash, v_expected + 1, v_expected + v_count,
                    v_head, p_now);
        END IF;
        v_written := true;
        v_out := v_out || jsonb_build_array(jsonb_build_array(
            'ok', v_expected + 1, v_expected + v_count, v_head));
    END LOOP;
    IF v_head <> v_start THEN
        UPDATE log_head SET position = v_head WHERE id = 1;
        PERFORM pg_notify('ginrummy_events', v_head::text);
    END IF;
    RETURN jsonb_build_object('start', v_start, 'head', v_head, 'out', v_out)::text;
END
$$
"""


def _function_of_0008() -> str:
    """The function as migration 0008 created it, to put back on downgrade."""
    path = Path(__file__).with_name("0008_append_function.py")
    spec = importlib.util.spec_from_file_location("migration_0008", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    create: str = module.CREATE
    return create.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(CREATE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_function_of_0008())
