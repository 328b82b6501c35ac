-- Deploy queen:stats to pg (release 1.0.0, a rework of stats@v0.9.0)
-- Its functions at release 1.0.0: helpers in schema queen_internal, API procedures of schema queen
-- SECURITY DEFINER with a fixed search_path, every one owned by queen_owner (docs/procedures.md, Roles).
-- Written from the catalogue of the 1.0.0 schema (pg_get_functiondef); the pre-release text is in
-- stats@v0.9.0.sql. A database of the pre-release schema upgrades in place: no row is touched.

BEGIN;

-- Bodies may name helpers that a later change of this release moves; each is checked when first called.
SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.compute_queue_stats(uuid,timestamp with time zone),
  queen.stats_work_lock_key(),
  queen.reconcile_stats(integer,bigint,timestamp with time zone),
  queen.prune_stats_history(integer,integer,timestamp with time zone),
  queen.record_broker_minute(text,jsonb,timestamp with time zone),
  queen.refresh_stats(integer,integer);

SET LOCAL ROLE queen_owner;  -- the objects' owner; PUBLIC gets no EXECUTE (internal_schema)

CREATE OR REPLACE FUNCTION queen_internal.compute_queue_stats(p_queue_id uuid, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS queen.queue_stats
 LANGUAGE sql
 STABLE
 SET jit TO 'off'
AS $function$
  WITH per_partition AS (
    SELECT p.id, p.last_seq, p.last_message_at,
           -- FILTER: least() ignores nulls, so a partition without cursor rows would count as drained.
           coalesce(min(least(c.cursor_seq, p.last_seq)) FILTER (WHERE c.cursor_seq IS NOT NULL), 0) AS min_cursor,
           coalesce(sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > coalesce(p_now, clock_timestamp())
                             THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END), 0) AS in_flight,
           coalesce(sum(least(c.cursor_seq, p.last_seq)) FILTER (WHERE c.cursor_seq IS NOT NULL), 0) AS consumed
      FROM queen.partitions p
      LEFT JOIN queen.consumers c ON c.partition_id = p.id AND c.queue_id = p_queue_id
     WHERE p.queue_id = p_queue_id
     GROUP BY p.id
  )
  SELECT p_queue_id,
         count(*)::int,
         (SELECT count(DISTINCT c.consumer_group) FROM queen.consumers c WHERE c.queue_id = p_queue_id)::int,
         coalesce(sum(pp.last_seq), 0)::bigint,
         coalesce(sum(pp.last_seq - pp.min_cursor), 0)::bigint,
         coalesce(sum(pp.in_flight), 0)::bigint,
         coalesce(sum(pp.min_cursor), 0)::bigint,
         (SELECT count(*) FROM queen.dlq d
           WHERE d.partition_id IN (SELECT p.id FROM queen.partitions p WHERE p.queue_id = p_queue_id))::bigint,
         max(pp.last_message_at),
         coalesce(p_now, clock_timestamp()),
         coalesce(sum(pp.consumed), 0)::bigint,
         -- The oldest message not consumed by the slowest group; CASE keeps the probe off drained partitions.
         min(CASE WHEN pp.last_seq > pp.min_cursor
                  THEN (SELECT m.created_at FROM queen.messages m
                         WHERE m.partition_id = pp.id AND m.seq > pp.min_cursor
                         ORDER BY m.seq LIMIT 1) END)
    FROM per_partition pp
$function$;
COMMENT ON FUNCTION queen_internal.compute_queue_stats(uuid,timestamp with time zone) IS
  'The queue_stats row of one queue computed from partitions, consumer cursors and leases (live at p_now, null = clock_timestamp()), and the DLQ (not stored).';

CREATE OR REPLACE FUNCTION queen_internal.stats_work_lock_key()
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE
AS $function$ SELECT queen_internal.job_lock_key('stats_reconcile:work') $function$;
COMMENT ON FUNCTION queen_internal.stats_work_lock_key() IS
  'The pg_advisory_xact_lock key held while statistics are written (reconcile_stats, refresh_stats).';

CREATE OR REPLACE FUNCTION queen.reconcile_stats(p_limit integer DEFAULT 100, p_max_age_ms bigint DEFAULT 0, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
 SET jit TO 'off'
AS $function$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_refreshed int;
BEGIN
  PERFORM queen_internal.check_at_least('reconcile_stats limit', p_limit, 1);
  PERFORM queen_internal.check_at_least('reconcile_stats max age ms', p_max_age_ms, 0);
  -- Another writer (a manual refresh) is at work: it covers this batch.
  IF NOT pg_try_advisory_xact_lock(queen_internal.stats_work_lock_key()) THEN
    RETURN 0;
  END IF;
  -- Queues without stats first, then the stalest; rows refreshed less than
  -- p_max_age_ms ago are left alone, so repeated calls of one run move on.
  WITH stale AS (
    SELECT q.id
      FROM queen.queues q
      LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
     WHERE s.queue_id IS NULL
        OR s.updated_at <= v_now - p_max_age_ms * interval '1 millisecond'
     ORDER BY s.updated_at NULLS FIRST, q.id
     LIMIT p_limit
  ), fresh AS (
    -- LATERAL, not (f(x)).*: the latter calls the function once per output column.
    SELECT f.* FROM stale CROSS JOIN LATERAL queen_internal.compute_queue_stats(stale.id, p_now) f
  ), stored AS (
    INSERT INTO queen.queue_stats AS s
    SELECT * FROM fresh
    ON CONFLICT (queue_id) DO UPDATE
       SET partitions = EXCLUDED.partitions, consumer_groups = EXCLUDED.consumer_groups, total = EXCLUDED.total,
           pending = EXCLUDED.pending, processing = EXCLUDED.processing, completed = EXCLUDED.completed,
           dead_letter = EXCLUDED.dead_letter, newest_message_at = EXCLUDED.newest_message_at,
           updated_at = EXCLUDED.updated_at, consumed = EXCLUDED.consumed,
           oldest_pending_at = EXCLUDED.oldest_pending_at
    RETURNING s.queue_id
  )
  -- The deltas against the previous row (read from the snapshot before the
  -- upsert above); a queue's first refresh counts everything since its creation.
  INSERT INTO queen.queue_stats_minutes AS h
         (queue_id, minute, pushed, popped, acked, dead_lettered, pending, processing, dead_letter, lag_seconds)
  SELECT f.queue_id, date_trunc('minute', v_now),
         greatest(f.total - coalesce(o.total, 0), 0),
         greatest((f.consumed + f.processing) - coalesce(o.consumed + o.processing, 0), 0),
         greatest(f.consumed - coalesce(o.consumed, 0), 0),
         greatest(f.dead_letter - coalesce(o.dead_letter, 0), 0),
         f.pending, f.processing, f.dead_letter,
         greatest(extract(epoch FROM v_now - f.oldest_pending_at), 0)
    FROM fresh f
    JOIN stored ON stored.queue_id = f.queue_id
    LEFT JOIN queen.queue_stats o ON o.queue_id = f.queue_id
  ON CONFLICT ON CONSTRAINT queue_stats_minutes_pkey DO UPDATE
     SET pushed = h.pushed + EXCLUDED.pushed, popped = h.popped + EXCLUDED.popped, acked = h.acked + EXCLUDED.acked,
         dead_lettered = h.dead_lettered + EXCLUDED.dead_lettered, pending = EXCLUDED.pending,
         processing = EXCLUDED.processing, dead_letter = EXCLUDED.dead_letter, lag_seconds = EXCLUDED.lag_seconds;
  GET DIAGNOSTICS v_refreshed = ROW_COUNT;
  RETURN v_refreshed;
END;
$function$;
COMMENT ON FUNCTION queen.reconcile_stats(integer,bigint,timestamp with time zone) IS
  'Refreshes queen.queue_stats for at most p_limit queues: those without a row first, then the stalest, skipping rows refreshed less than p_max_age_ms before p_now (null = clock_timestamp()), and adds each refreshed queue''s deltas and gauges to its queen.queue_stats_minutes row of that minute. Returns how many were refreshed (0 at once while a manual refresh_stats holds the statistics lock); call again while it returns p_limit. 22023 on limit < 1 or a negative age.';

CREATE OR REPLACE FUNCTION queen.prune_stats_history(p_keep_hours integer, p_limit integer DEFAULT 10000, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_before timestamptz;
  v_queue_rows int;
  v_broker_rows int;
BEGIN
  PERFORM queen_internal.check_at_least('prune_stats_history keep hours', p_keep_hours, 1);
  PERFORM queen_internal.check_at_least('prune_stats_history limit', p_limit, 1);
  v_before := coalesce(p_now, clock_timestamp()) - p_keep_hours * interval '1 hour';
  DELETE FROM queen.queue_stats_minutes h
   WHERE (h.queue_id, h.minute) IN (SELECT x.queue_id, x.minute FROM queen.queue_stats_minutes x
                                      WHERE x.minute < v_before ORDER BY x.minute LIMIT p_limit);
  GET DIAGNOSTICS v_queue_rows = ROW_COUNT;
  DELETE FROM queen.broker_stats_minutes b
   WHERE (b.server_id, b.minute) IN (SELECT x.server_id, x.minute FROM queen.broker_stats_minutes x
                                       WHERE x.minute < v_before ORDER BY x.minute LIMIT p_limit);
  GET DIAGNOSTICS v_broker_rows = ROW_COUNT;
  RETURN v_queue_rows + v_broker_rows;
END;
$function$;
COMMENT ON FUNCTION queen.prune_stats_history(integer,integer,timestamp with time zone) IS
  'Deletes at most p_limit queue_stats_minutes rows and p_limit broker_stats_minutes rows older than p_keep_hours before p_now (null = clock_timestamp()), oldest first. Returns the rows deleted; call again while it returns more than 0. 22023 on keep hours or limit < 1.';

CREATE OR REPLACE FUNCTION queen.record_broker_minute(p_server_id text, p_figures jsonb, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
BEGIN
  IF p_server_id IS NULL OR p_server_id = '' THEN
    RAISE EXCEPTION 'server id is required' USING ERRCODE = '22023';
  END IF;
  IF p_figures IS NULL OR jsonb_typeof(p_figures) <> 'object' THEN
    RAISE EXCEPTION 'broker figures must be a JSON object' USING ERRCODE = '22023';
  END IF;
  INSERT INTO queen.broker_stats_minutes AS b
         (server_id, minute, hostname, port, requests, push_requests, push_messages, pop_requests, pop_messages,
          ack_messages, ack_failed, db_errors, pool_size, pool_in_use, pool_waiting, parked_pops, rss_bytes,
          cpu_user_us, cpu_system_us, lanes)
  VALUES (p_server_id, date_trunc('minute', coalesce(p_now, clock_timestamp())),
          coalesce(p_figures->>'hostname', ''), coalesce((p_figures->>'port')::int, 0),
          coalesce((p_figures->>'requests')::bigint, 0), coalesce((p_figures->>'pushRequests')::bigint, 0),
          coalesce((p_figures->>'pushMessages')::bigint, 0), coalesce((p_figures->>'popRequests')::bigint, 0),
          coalesce((p_figures->>'popMessages')::bigint, 0), coalesce((p_figures->>'ackMessages')::bigint, 0),
          coalesce((p_figures->>'ackFailed')::bigint, 0), coalesce((p_figures->>'dbErrors')::bigint, 0),
          coalesce((p_figures->>'poolSize')::int, 0), coalesce((p_figures->>'poolInUse')::int, 0),
          coalesce((p_figures->>'poolWaiting')::int, 0), coalesce((p_figures->>'parkedPops')::int, 0),
          coalesce((p_figures->>'rssBytes')::bigint, 0), coalesce((p_figures->>'cpuUserUs')::bigint, 0),
          coalesce((p_figures->>'cpuSystemUs')::bigint, 0), coalesce(p_figures->'lanes', '[]'::jsonb))
  ON CONFLICT ON CONSTRAINT broker_stats_minutes_pkey DO UPDATE
     SET hostname = EXCLUDED.hostname, port = EXCLUDED.port,
         requests = b.requests + EXCLUDED.requests, push_requests = b.push_requests + EXCLUDED.push_requests,
         push_messages = b.push_messages + EXCLUDED.push_messages, pop_requests = b.pop_requests + EXCLUDED.pop_requests,
         pop_messages = b.pop_messages + EXCLUDED.pop_messages, ack_messages = b.ack_messages + EXCLUDED.ack_messages,
         ack_failed = b.ack_failed + EXCLUDED.ack_failed, db_errors = b.db_errors + EXCLUDED.db_errors,
         pool_size = EXCLUDED.pool_size, pool_in_use = EXCLUDED.pool_in_use, pool_waiting = EXCLUDED.pool_waiting,
         parked_pops = EXCLUDED.parked_pops, rss_bytes = EXCLUDED.rss_bytes,
         cpu_user_us = b.cpu_user_us + EXCLUDED.cpu_user_us, cpu_system_us = b.cpu_system_us + EXCLUDED.cpu_system_us,
         lanes = EXCLUDED.lanes;
END;
$function$;
COMMENT ON FUNCTION queen.record_broker_minute(text,jsonb,timestamp with time zone) IS
  'Adds one flush of broker p_server_id to its broker_stats_minutes row of the current minute: counters (requests, pushRequests, pushMessages, popRequests, popMessages, ackMessages, ackFailed, dbErrors, cpuUserUs, cpuSystemUs) are added, gauges (hostname, port, poolSize, poolInUse, poolWaiting, parkedPops, rssBytes, lanes) replaced. 22023 on an empty server id or figures that are not an object.';

CREATE OR REPLACE FUNCTION queen.refresh_stats(p_max_queues integer DEFAULT 100000, p_budget_ms integer DEFAULT 10000)
 RETURNS jsonb
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp'
AS $function$
DECLARE
  v_started timestamptz := clock_timestamp();
  v_batch constant int := 10;
  v_refreshed int := 0;
  v_step int;
  v_complete boolean := false;
BEGIN
  PERFORM queen_internal.check_at_least('refresh_stats max queues', p_max_queues, 1);
  PERFORM queen_internal.check_at_least('refresh_stats budget ms', p_budget_ms, 1);
  IF NOT pg_try_advisory_xact_lock(queen_internal.stats_work_lock_key()) THEN
    RETURN jsonb_build_object('skipped', true, 'reason', 'another_instance_running');
  END IF;
  -- Stalest first in small batches, so the time budget bounds the call whatever the
  -- number of partitions: each batch only takes queues not refreshed since the call began.
  LOOP
    v_step := queen.reconcile_stats(least(v_batch, p_max_queues - v_refreshed),
                                    greatest(floor(extract(epoch FROM clock_timestamp() - v_started) * 1000), 0)::bigint);
    v_refreshed := v_refreshed + v_step;
    IF v_step < least(v_batch, p_max_queues - v_refreshed + v_step) THEN
      v_complete := true;
      EXIT;
    END IF;
    EXIT WHEN v_refreshed >= p_max_queues
           OR clock_timestamp() - v_started >= p_budget_ms * interval '1 millisecond';
  END LOOP;
  RETURN jsonb_build_object(
    'skipped', false,
    'queuesRefreshed', v_refreshed,
    'complete', v_complete,
    'durationMs', round(extract(epoch FROM clock_timestamp() - v_started) * 1000, 3));
END;
$function$;
COMMENT ON FUNCTION queen.refresh_stats(integer,integer) IS
  'POST /api/v1/stats/refresh: refreshes the statistics of every queue now, stalest first, in one transaction bounded by at most p_max_queues queues and about p_budget_ms of work (batches of 10 queues). {"skipped": true, "reason": "another_instance_running"} when a reconciler batch holds the statistics lock; otherwise {"skipped": false, "queuesRefreshed", "complete" (false: the budget ended first; call again), "durationMs"}. 22023 on max queues or budget < 1.';

RESET ROLE;

COMMIT;
