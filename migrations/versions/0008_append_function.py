"""PostgreSQL: one function that appends a whole group, so an append is one round trip.

Until now each append group took six to eight statements (BEGIN, lock the head, read
versions, read command ids, insert events, insert commands, move the head, COMMIT),
each a round trip and each built by SQLAlchemy in Python. ``ginrummy_append`` does the
same steps inside the server, in the same order and with the same decisions as
``infra/append_plan.plan``: it locks ``log_head`` first, then, for each append in
arrival order, checks the command id and the stream version (each statement of a
PL/pgSQL function takes a fresh snapshot, so it sees everything committed before the
lock was granted and the group's own earlier rows), inserts the events at the next
positions, records the command, and finally moves the head and queues the NOTIFY.
SQLite has no functions of this kind; it keeps the statement-by-statement path.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The group is a JSON array of {"s": stream, "v": expected version, "c": command id or
# null, "h": hash or null, "e": [[type, schema_version, payload], ...]}. The answer is
# {"start": head before, "head": head after, "out": [one entry per append]} where an
# entry is ["ok", first, last, position], ["dup", first, last, position],
# ["conflict", actual version], ["other_stream"] or ["other_payload"].
CREATE = r"""
CREATE FUNCTION ginrummy_append(p_group jsonb, p_now timestamptz) RETURNS text
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
    v_out jsonb := '[]'::jsonb;
BEGIN
    SELECT position INTO v_start FROM log_head WHERE id = 1 FOR UPDATE;
    v_head := v_start;
    FOR v_req IN SELECT r.value FROM jsonb_array_elements(p_group) WITH ORDINALITY AS r
               ORDER BY r.ordinality LOOP
        v_stream := v_req->>'s';
        v_expected := (v_req->>'v')::integer;
        v_command := v_req->>'c';
        v_hash := v_req->>'h';
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


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(CREATE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS ginrummy_append(jsonb, timestamptz)")
