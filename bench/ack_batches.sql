-- Server-side cost of queen.pop_messages and queen.ack_messages at one batch size, in one backend of a deployed
-- database (psql, as a superuser: it reads the backend's /proc/self/stat). docs/performance.md, "ack_messages in
-- named steps" and "Fewer statements per pop".
--   psql -X -v batch=10 -v cycles=1000 -v queue=bench_ack_b10_run1 -f bench/ack_batches.sql
-- Pushes batch x (cycles + warmup) messages into a new queue, then per cycle pops one batch (queue mode) and acks
-- it completed, each cycle its own transaction. The pop and the ack are timed alone (clock_timestamp around each
-- call); the backend's CPU covers the whole measured cycles (pop, ack, bookkeeping).
\set QUIET on
\set ON_ERROR_STOP on
\set warmup 20
\pset tuples_only on
\pset format unaligned
\o /dev/null

CREATE TEMP TABLE ack_times (ms float8 NOT NULL, pop_ms float8 NOT NULL);
CREATE FUNCTION pg_temp.cpu_ticks() RETURNS bigint LANGUAGE sql AS $$
  -- utime + stime of this backend (fields 14 and 15 of /proc/self/stat; the text after "(comm) " starts at 3)
  SELECT split_part(s, ' ', 12)::bigint + split_part(s, ' ', 13)::bigint
    FROM (SELECT split_part(pg_read_file('/proc/self/stat'), ') ', 2) AS s) x
$$;
CREATE FUNCTION pg_temp.cycle(p_queue text, p_batch int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_acks jsonb;
  v_start timestamptz := clock_timestamp();
  v_pop_ms float8;
BEGIN
  SELECT jsonb_agg(jsonb_build_object('transactionId', m.transaction_id, 'partitionId', m.partition_id,
                                      'leaseId', m.lease_id, 'status', 'completed'))
    INTO v_acks
    FROM queen.pop_messages(p_queue, NULL, NULL, p_batch, 1, false, NULL, NULL, NULL, NULL, '') m;
  IF v_acks IS NULL THEN
    RAISE EXCEPTION 'bench: queue % ran dry', p_queue;
  END IF;
  v_pop_ms := extract(epoch FROM clock_timestamp() - v_start) * 1000;
  v_start := clock_timestamp();
  PERFORM count(*) FROM queen.ack_messages(v_acks, NULL, '');
  INSERT INTO ack_times VALUES (extract(epoch FROM clock_timestamp() - v_start) * 1000, v_pop_ms);
END;
$$;

SELECT format('SELECT count(*) FROM queen.push_messages(%L::jsonb, NULL, %L)',
              (SELECT jsonb_agg(jsonb_build_object('queue', :'queue', 'transactionId', 't' || k || '-' || i,
                                                   'payload', jsonb_build_object('i', i)))
                 FROM generate_series(1, least(100, :batch * (:cycles + :warmup) - (k - 1) * 100)) i), '')
  FROM generate_series(1, ceil(:batch * (:cycles + :warmup) / 100.0)::int) k
\gexec

SELECT format('SELECT pg_temp.cycle(%L, %s)', :'queue', :batch) FROM generate_series(1, :warmup) \gexec
TRUNCATE ack_times;
SELECT pg_temp.cpu_ticks() AS ticks_start \gset
SELECT format('SELECT pg_temp.cycle(%L, %s)', :'queue', :batch) FROM generate_series(1, :cycles) \gexec
SELECT pg_temp.cpu_ticks() AS ticks_end \gset
\o

-- batch | calls | ack ms per call (median) | ack us per message (median) | ack ms per call (mean) | backend CPU ms per cycle
-- | pop ms per call (median)
SELECT :batch, count(*),
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 3),
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) * 1000 / :batch)::numeric, 1),
       round(avg(ms)::numeric, 3),
       round(((:ticks_end - :ticks_start) * 10.0 / count(*))::numeric, 3),  -- 100 ticks per second (CLK_TCK)
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY pop_ms))::numeric, 3)
  FROM ack_times;
