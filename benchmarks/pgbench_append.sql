-- The database's own ceiling for one append, for bench_server (benchmarks/ceiling.py).
-- What one append must do, and nothing the store adds: read the stream's version,
-- insert two event rows (an action's human or AI append), NOTIFY. It takes no lock of
-- its own (positions come from a sequence), so it measures PostgreSQL, not the
-- store's ordering. Each pgbench client appends to its own stream, as each benchmark
-- client plays its own match. One action is two appends: ceiling = tps / 2.
-- Table: pgbench_events, created by ceiling.prepare (the shape of `events`).
BEGIN;
SELECT coalesce(max(version), 0) AS v FROM pgbench_events WHERE stream_id = 'pgb-' || :client_id \gset
INSERT INTO pgbench_events (stream_id, version, type, schema_version, payload, recorded_at)
VALUES ('pgb-' || :client_id, :v + 1, 'card_drawn', 1, '{"type":"card_drawn","seat":0,"card":"7H"}', now()),
       ('pgb-' || :client_id, :v + 2, 'card_discarded', 1, '{"type":"card_discarded","seat":0,"card":"KS"}', now());
SELECT pg_notify('ginrummy_bench', (:v + 2)::text);
COMMIT;
