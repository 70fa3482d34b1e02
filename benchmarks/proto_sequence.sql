-- A prototype of the event log without the one `log_head` row (issue 22 item 5), for
-- benchmarks/scaleout.py only; the product's log is migrations 0001 and 0008.
--
-- Positions come from a sequence, so concurrent transactions (of one process or of
-- many) no longer wait for each other's commit and can share a disk flush. Positions
-- are then handed out at insert time, not at commit, so "everything after the last
-- position read" could skip a slow transaction's rows. Readers therefore follow the
-- pair (tx, position), tx being the writing transaction's id, and never pass the
-- oldest transaction still running: every row whose tx is below
-- pg_snapshot_xmin(pg_current_snapshot()) is final (committed or rolled back), and any
-- transaction still to write gets a larger id. Delivery order is (tx, position): one
-- total order every reader sees alike, with no skip and no duplicate, but positions
-- are neither gap-free nor in delivery order.
--
-- Per stream, versions must be delivered in order too. A transaction takes its id
-- first thing; if a stream's last version was written by a younger transaction (a
-- larger id, committed while this one ran), this one's rows would be delivered before
-- it, so the append answers ["later"] and the driver retries it in a new transaction.
--
-- p_notify: NOTIFY inside the transaction, as the product does. PostgreSQL takes a
-- cluster-wide lock for a notifying commit and holds it through the commit's flush,
-- so with it the commits serialise again; without it the driver sends the wake-up
-- after the commit from a session with synchronous_commit off (a lost wake-up costs
-- only latency: the reader's poll is the backstop).

CREATE SEQUENCE proto_position;

CREATE TABLE proto_events (
    position bigint PRIMARY KEY,
    tx xid8 NOT NULL,
    stream_id text NOT NULL,
    version integer NOT NULL,
    type text NOT NULL,
    schema_version integer NOT NULL,
    payload text NOT NULL,
    recorded_at timestamptz NOT NULL,
    command_id text,
    UNIQUE (stream_id, version)
);
CREATE INDEX proto_events_tx_position ON proto_events (tx, position);

CREATE TABLE proto_commands (
    command_id text PRIMARY KEY,
    stream_id text NOT NULL,
    command_hash text,
    first_version integer NOT NULL,
    last_version integer NOT NULL,
    last_position bigint NOT NULL,
    recorded_at timestamptz NOT NULL
);

-- The same group document and answer as ginrummy_append (migration 0008), plus the
-- outcome ["later"]; "start"/"head" become the lowest and highest position written.
CREATE FUNCTION proto_append(p_group jsonb, p_now timestamptz, p_notify boolean)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_tx xid8 := pg_current_xact_id();  -- taken before any stream is read
    v_req jsonb;
    v_stream text;
    v_expected integer;
    v_command text;
    v_hash text;
    v_current integer;
    v_last_tx xid8;
    v_low bigint;
    v_high bigint;
    v_min bigint;
    v_max bigint;
    v_count integer;
    v_first proto_commands%ROWTYPE;
    v_out jsonb := '[]'::jsonb;
BEGIN
    FOR v_req IN SELECT r.value FROM jsonb_array_elements(p_group) WITH ORDINALITY AS r
               ORDER BY r.ordinality LOOP
        v_stream := v_req->>'s';
        v_expected := (v_req->>'v')::integer;
        v_command := v_req->>'c';
        v_hash := v_req->>'h';
        IF v_command IS NOT NULL THEN
            SELECT * INTO v_first FROM proto_commands WHERE command_id = v_command;
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
        SELECT version, tx INTO v_current, v_last_tx FROM proto_events
        WHERE stream_id = v_stream ORDER BY version DESC LIMIT 1;
        v_current := coalesce(v_current, 0);
        IF v_current <> v_expected THEN
            v_out := v_out || jsonb_build_array(jsonb_build_array('conflict', v_current));
            CONTINUE;
        END IF;
        IF v_last_tx IS NOT NULL AND v_last_tx > v_tx THEN
            v_out := v_out || jsonb_build_array(jsonb_build_array('later'));
            CONTINUE;
        END IF;
        WITH inserted AS (
            INSERT INTO proto_events (position, tx, stream_id, version, type, schema_version,
                                      payload, recorded_at, command_id)
            SELECT nextval('proto_position'), v_tx, v_stream, v_expected + e.ordinality,
                   e.value->>0, (e.value->>1)::integer, e.value->>2, p_now, v_command
            FROM jsonb_array_elements(v_req->'e') WITH ORDINALITY AS e
            ORDER BY e.ordinality
            RETURNING position
        )
        SELECT min(position), max(position), count(*) INTO v_low, v_high, v_count FROM inserted;
        v_min := least(v_min, v_low);
        v_max := greatest(v_max, v_high);
        IF v_command IS NOT NULL THEN
            INSERT INTO proto_commands (command_id, stream_id, command_hash, first_version,
                                        last_version, last_position, recorded_at)
            VALUES (v_command, v_stream, v_hash, v_expected + 1, v_expected + v_count,
                    v_high, p_now);
        END IF;
        v_out := v_out || jsonb_build_array(jsonb_build_array(
            'ok', v_expected + 1, v_expected + v_count, v_high));
    END LOOP;
    IF p_notify AND v_max IS NOT NULL THEN
        PERFORM pg_notify('proto_events', v_max::text);
    END IF;
    RETURN jsonb_build_object('start', coalesce(v_min - 1, 0), 'head', coalesce(v_max, 0),
                              'out', v_out)::text;
END
$$;
