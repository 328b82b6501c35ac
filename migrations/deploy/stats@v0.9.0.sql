-- Deploy queen:stats to pg
-- Per-queue statistics for dashboards and resource listings, recomputed by the
-- statistics reconciler (a single-runner job) in bounded batches. Counters come
-- from the sequence allocator (partitions.last_seq) and consumer cursors rather
-- than from counting messages, so a refresh costs per partition, not per message.

BEGIN;

CREATE TABLE queen.queue_stats (
  queue_id          uuid        PRIMARY KEY REFERENCES queen.queues (id) ON DELETE CASCADE,
  partitions        int         NOT NULL,
  consumer_groups   int         NOT NULL,  -- distinct groups with a cursor on the queue
  total             bigint      NOT NULL,  -- messages ever stored: sum of last_seq
  pending           bigint      NOT NULL,  -- not yet consumed by the slowest group of each partition
  processing        bigint      NOT NULL,  -- handed out under a live lease, not acked yet
  completed         bigint      NOT NULL,  -- consumed by every group of their partition: total - pending
  dead_letter       bigint      NOT NULL,  -- rows in queen.dlq
  newest_message_at timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  consumed          bigint      NOT NULL DEFAULT 0,  -- sum of every group's cursor: messages acked, over all groups
  oldest_pending_at timestamptz                      -- creation time of the oldest message the slowest group has not consumed
);
COMMENT ON TABLE queen.queue_stats IS
  'Per-queue counters refreshed by queen.reconcile_stats (the statistics reconciler job); may lag by up to STATS_RECONCILE_INTERVAL_MS. total counts messages ever stored (retention does not lower it); pending/completed follow the slowest consumer group of each partition (a partition without consumers counts everything as pending); consumed sums every group''s cursor; oldest_pending_at gives the time lag.';

-- The reconciler refreshes the stalest rows first.
CREATE INDEX queue_stats_updated_at_idx ON queen.queue_stats (updated_at);

-- The counters of one queue, computed now.
CREATE FUNCTION queen.compute_queue_stats(p_queue_id uuid, p_now timestamptz DEFAULT NULL)
RETURNS queen.queue_stats
LANGUAGE sql STABLE AS $$
  WITH per_partition AS (
    SELECT p.id, p.last_seq, p.last_message_at,
           coalesce(c.min_cursor, 0) AS min_cursor, coalesce(c.in_flight, 0) AS in_flight,
           coalesce(c.consumed, 0) AS consumed,
           -- One index probe per partition (messages_pkey): the oldest message not consumed by the slowest group.
           (SELECT m.created_at FROM queen.messages m
             WHERE m.partition_id = p.id AND m.seq > coalesce(c.min_cursor, 0)
             ORDER BY m.seq LIMIT 1) AS oldest_pending_at
      FROM queen.partitions p
      LEFT JOIN LATERAL (
        SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor,
               sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > coalesce(p_now, clock_timestamp())
                        THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END) AS in_flight,
               sum(least(c.cursor_seq, p.last_seq)) AS consumed
          FROM queen.consumers c
         WHERE c.partition_id = p.id
      ) c ON true
     WHERE p.queue_id = p_queue_id
  )
  SELECT p_queue_id,
         (SELECT count(*) FROM per_partition)::int,
         (SELECT count(DISTINCT c.consumer_group) FROM queen.consumers c
           WHERE c.partition_id IN (SELECT id FROM per_partition))::int,
         coalesce(sum(pp.last_seq), 0)::bigint,
         coalesce(sum(pp.last_seq - pp.min_cursor), 0)::bigint,
         coalesce(sum(pp.in_flight), 0)::bigint,
         coalesce(sum(pp.min_cursor), 0)::bigint,
         (SELECT count(*) FROM queen.dlq d WHERE d.partition_id IN (SELECT id FROM per_partition))::bigint,
         max(pp.last_message_at),
         coalesce(p_now, clock_timestamp()),
         coalesce(sum(pp.consumed), 0)::bigint,
         min(pp.oldest_pending_at)
    FROM per_partition pp
$$;
COMMENT ON FUNCTION queen.compute_queue_stats(uuid, timestamptz) IS
  'The queue_stats row of one queue computed from partitions, consumer cursors and leases (live at p_now, null = clock_timestamp()), and the DLQ (not stored).';

-- Per-minute history of each queue, written by the reconciler: the deltas of
-- the counters since the queue's previous refresh (added to the minute of the
-- refresh) and the gauges as they were then. Read by the status and analytics
-- procedures (stats_views), which aggregate minutes into coarser buckets.
CREATE TABLE queen.queue_stats_minutes (
  queue_id          uuid        NOT NULL REFERENCES queen.queues (id) ON DELETE CASCADE,
  minute            timestamptz NOT NULL,             -- start of the minute (UTC)
  pushed            bigint      NOT NULL DEFAULT 0,   -- messages stored (total grew by)
  popped            bigint      NOT NULL DEFAULT 0,   -- messages handed out (consumed + processing grew by)
  acked             bigint      NOT NULL DEFAULT 0,   -- messages consumed, summed over groups (consumed grew by)
  dead_lettered     bigint      NOT NULL DEFAULT 0,   -- DLQ entries added (dead_letter grew by)
  pending           bigint      NOT NULL,
  processing        bigint      NOT NULL,
  dead_letter       bigint      NOT NULL,
  lag_seconds       double precision,                 -- age of the oldest pending message at the refresh
  CONSTRAINT queue_stats_minutes_pkey PRIMARY KEY (queue_id, minute)
);
COMMENT ON TABLE queen.queue_stats_minutes IS
  'One row per queue and minute in which the reconciler refreshed the queue: counter deltas since the previous refresh (pushed, popped, acked, dead_lettered) and gauges at the refresh (pending, processing, dead_letter, lag_seconds). Pruned by queen.prune_stats_history after STATS_HISTORY_RETENTION_HOURS.';
CREATE INDEX queue_stats_minutes_minute_idx ON queen.queue_stats_minutes (minute);

-- Per-minute figures of each broker, flushed by the broker itself once a
-- minute (queen.record_broker_minute): counter deltas of the minute and gauges
-- sampled at the flush. Broker-wide, not per tenant.
CREATE TABLE queen.broker_stats_minutes (
  server_id     text        NOT NULL,
  minute        timestamptz NOT NULL,
  hostname      text        NOT NULL DEFAULT '',
  port          int         NOT NULL DEFAULT 0,
  requests      bigint      NOT NULL DEFAULT 0,
  push_requests bigint      NOT NULL DEFAULT 0,
  push_messages bigint      NOT NULL DEFAULT 0,
  pop_requests  bigint      NOT NULL DEFAULT 0,
  pop_messages  bigint      NOT NULL DEFAULT 0,
  ack_messages  bigint      NOT NULL DEFAULT 0,
  ack_failed    bigint      NOT NULL DEFAULT 0,
  db_errors     bigint      NOT NULL DEFAULT 0,
  pool_size     int         NOT NULL DEFAULT 0,
  pool_in_use   int         NOT NULL DEFAULT 0,
  pool_waiting  int         NOT NULL DEFAULT 0,
  parked_pops   int         NOT NULL DEFAULT 0,
  rss_bytes     bigint      NOT NULL DEFAULT 0,
  cpu_user_us   bigint      NOT NULL DEFAULT 0,   -- CPU time used during the minute
  cpu_system_us bigint      NOT NULL DEFAULT 0,
  lanes         jsonb       NOT NULL DEFAULT '[]',  -- admission lanes at the flush: [{lane, slots, inUse, waiting}]
  CONSTRAINT broker_stats_minutes_pkey PRIMARY KEY (server_id, minute)
);
COMMENT ON TABLE queen.broker_stats_minutes IS
  'One row per broker (QUEEN_SERVER_ID) and minute: request and message counters of the minute and gauges (pool, parked pops, memory, admission lanes) at the flush. Pruned by queen.prune_stats_history.';
CREATE INDEX broker_stats_minutes_minute_idx ON queen.broker_stats_minutes (minute);

-- The advisory lock held by whoever is writing statistics (a reconciler batch
-- or a manual refresh), so two writers never compute the same deltas twice.
CREATE FUNCTION queen.stats_work_lock_key() RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT queen.job_lock_key('stats_reconcile:work') $$;
COMMENT ON FUNCTION queen.stats_work_lock_key() IS
  'The pg_advisory_xact_lock key held while statistics are written (reconcile_stats, refresh_stats).';

CREATE FUNCTION queen.reconcile_stats(p_limit int DEFAULT 100, p_max_age_ms bigint DEFAULT 0, p_now timestamptz DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_now timestamptz := coalesce(p_now, clock_timestamp());
  v_refreshed int;
BEGIN
  PERFORM queen.check_at_least('reconcile_stats limit', p_limit, 1);
  PERFORM queen.check_at_least('reconcile_stats max age ms', p_max_age_ms, 0);
  -- Another writer (a manual refresh) is at work: it covers this batch.
  IF NOT pg_try_advisory_xact_lock(queen.stats_work_lock_key()) THEN
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
    SELECT (queen.compute_queue_stats(stale.id, p_now)).* FROM stale
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
$$;
COMMENT ON FUNCTION queen.reconcile_stats(int, bigint, timestamptz) IS
  'Refreshes queen.queue_stats for at most p_limit queues: those without a row first, then the stalest, skipping rows refreshed less than p_max_age_ms before p_now (null = clock_timestamp()), and adds each refreshed queue''s deltas and gauges to its queen.queue_stats_minutes row of that minute. Returns how many were refreshed (0 at once while a manual refresh_stats holds the statistics lock); call again while it returns p_limit. 22023 on limit < 1 or a negative age.';

CREATE FUNCTION queen.prune_stats_history(p_keep_hours int, p_limit int DEFAULT 10000, p_now timestamptz DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_before timestamptz;
  v_queue_rows int;
  v_broker_rows int;
BEGIN
  PERFORM queen.check_at_least('prune_stats_history keep hours', p_keep_hours, 1);
  PERFORM queen.check_at_least('prune_stats_history limit', p_limit, 1);
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
$$;
COMMENT ON FUNCTION queen.prune_stats_history(int, int, timestamptz) IS
  'Deletes at most p_limit queue_stats_minutes rows and p_limit broker_stats_minutes rows older than p_keep_hours before p_now (null = clock_timestamp()), oldest first. Returns the rows deleted; call again while it returns more than 0. 22023 on keep hours or limit < 1.';

CREATE FUNCTION queen.record_broker_minute(p_server_id text, p_figures jsonb, p_now timestamptz DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql AS $$
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
$$;
COMMENT ON FUNCTION queen.record_broker_minute(text, jsonb, timestamptz) IS
  'Adds one flush of broker p_server_id to its broker_stats_minutes row of the current minute: counters (requests, pushRequests, pushMessages, popRequests, popMessages, ackMessages, ackFailed, dbErrors, cpuUserUs, cpuSystemUs) are added, gauges (hostname, port, poolSize, poolInUse, poolWaiting, parkedPops, rssBytes, lanes) replaced. 22023 on an empty server id or figures that are not an object.';

CREATE FUNCTION queen.refresh_stats(p_max_queues int DEFAULT 100000, p_budget_ms int DEFAULT 10000)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_started timestamptz := clock_timestamp();
  v_batch constant int := 10;
  v_refreshed int := 0;
  v_step int;
  v_complete boolean := false;
BEGIN
  PERFORM queen.check_at_least('refresh_stats max queues', p_max_queues, 1);
  PERFORM queen.check_at_least('refresh_stats budget ms', p_budget_ms, 1);
  IF NOT pg_try_advisory_xact_lock(queen.stats_work_lock_key()) THEN
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
$$;
COMMENT ON FUNCTION queen.refresh_stats(int, int) IS
  'POST /api/v1/stats/refresh: refreshes the statistics of every queue now, stalest first, in one transaction bounded by at most p_max_queues queues and about p_budget_ms of work (batches of 10 queues). {"skipped": true, "reason": "another_instance_running"} when a reconciler batch holds the statistics lock; otherwise {"skipped": false, "queuesRefreshed", "complete" (false: the budget ended first; call again), "durationMs"}. 22023 on max queues or budget < 1.';

COMMIT;
