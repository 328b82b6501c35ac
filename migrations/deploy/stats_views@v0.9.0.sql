-- Deploy queen:stats_views to pg
-- The shared helpers of the read side of the statistics (docs/operations-stats.md):
-- the time range of a time-series request, its buckets, the requester's queues, a
-- throughput series, per-partition counters. The routes' functions are in three
-- changes over these: stats_resources, stats_status and stats_analytics. Each takes
-- the requester's tenant and the route's parameters as a JSON object and returns the
-- response body. Counters come from queen.queue_stats, time series from
-- queen.queue_stats_minutes and queen.broker_stats_minutes; nothing here reads
-- more of queen.messages than a few index probes per partition of one queue.
--
-- Parameters (absent or null = default): fromMs, toMs (epoch milliseconds),
-- queue, namespace, task, search, hostname, workerId, interval, limit, offset.

BEGIN;

-- Bucket width for a window: points stay between roughly 30 and 170 whatever
-- the span (an hour in minutes, a week in hours).
CREATE FUNCTION queen.stats_bucket_minutes(p_from timestamptz, p_to timestamptz) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_to - p_from <= interval '1 hour' THEN 1
    WHEN p_to - p_from <= interval '6 hours' THEN 5
    WHEN p_to - p_from <= interval '1 day' THEN 15
    WHEN p_to - p_from <= interval '7 days' THEN 60
    WHEN p_to - p_from <= interval '31 days' THEN 360
    ELSE 1440 END
$$;
COMMENT ON FUNCTION queen.stats_bucket_minutes(timestamptz, timestamptz) IS
  'Bucket width in minutes for a time-series window: 1 up to an hour, 5 up to 6 hours, 15 up to a day, 60 up to 7 days, 360 up to 31 days, 1440 beyond.';

CREATE FUNCTION queen.stats_bucket(p_at timestamptz, p_minutes int) RETURNS timestamptz
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'epoch'::timestamptz
         + floor(extract(epoch FROM p_at) / (p_minutes * 60)) * (p_minutes * 60) * interval '1 second'
$$;
COMMENT ON FUNCTION queen.stats_bucket(timestamptz, int) IS
  'Start of the p_minutes-wide bucket (aligned on the epoch) containing p_at.';

-- The time range of a time-series request, the one preamble of every time-series
-- route: the window [fromMs, toMs] (to defaults to now, from to p_default_span before
-- to), its bucket width (stats_bucket_minutes), the start of its first bucket, and
-- the answers' timeRange object. 22023 when from is after to.
CREATE FUNCTION queen.stats_time_range(p_params jsonb, p_default_span interval, OUT from_at timestamptz,
                                       OUT to_at timestamptz, OUT bucket_minutes int, OUT first_bucket timestamptz,
                                       OUT time_range jsonb)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  to_at := coalesce('epoch'::timestamptz + (p_params->>'toMs')::bigint * interval '1 millisecond', clock_timestamp());
  from_at := coalesce('epoch'::timestamptz + (p_params->>'fromMs')::bigint * interval '1 millisecond',
                      to_at - p_default_span);
  IF from_at > to_at THEN
    RAISE EXCEPTION 'from must not be after to' USING ERRCODE = '22023';
  END IF;
  bucket_minutes := queen.stats_bucket_minutes(from_at, to_at);
  first_bucket := queen.stats_bucket(from_at, bucket_minutes);
  time_range := jsonb_build_object('from', queen.iso_millis(from_at), 'to', queen.iso_millis(to_at));
END;
$$;
COMMENT ON FUNCTION queen.stats_time_range(jsonb, interval) IS
  'The time range of a time-series request: [from, to] (fromMs/toMs epoch ms; to defaults to now, from to p_default_span before to), bucket_minutes and first_bucket for that span, time_range = {from, to} as ISO text. 22023 when from is after to.';

-- The requester's queues matching the optional queue/namespace/task filters.
CREATE FUNCTION queen.stats_queues(p_tenant text, p_params jsonb) RETURNS SETOF queen.queues
LANGUAGE sql STABLE AS $$
  SELECT q.* FROM queen.queues q
   WHERE q.tenant = queen.tenant_arg(p_tenant)
     AND (p_params->>'queue' IS NULL OR q.name = p_params->>'queue')
     AND (p_params->>'namespace' IS NULL OR q.namespace = p_params->>'namespace')
     AND (p_params->>'task' IS NULL OR q.task = p_params->>'task')
$$;
COMMENT ON FUNCTION queen.stats_queues(text, jsonb) IS
  'Queues of tenant p_tenant matching the queue, namespace and task filters of p_params (absent = any).';

-- Throughput and gauges of a set of queues, one point per bucket of the
-- window (empty buckets included, zeros): the sum over the queues.
CREATE FUNCTION queen.stats_series(p_queue_ids uuid[], p_from timestamptz, p_to timestamptz, p_minutes int)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH buckets AS (
    SELECT b FROM generate_series(queen.stats_bucket(p_from, p_minutes), queen.stats_bucket(p_to, p_minutes),
                                  p_minutes * interval '1 minute') b
  ), per_minute AS (
    -- Gauges summed over queues per minute, then averaged over the bucket's minutes.
    SELECT h.minute, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
           sum(h.dead_lettered) AS dead_lettered, sum(h.pending) AS pending, sum(h.processing) AS processing,
           sum(h.dead_letter) AS dead_letter, max(h.lag_seconds) AS lag_seconds
      FROM queen.queue_stats_minutes h
     WHERE h.queue_id = ANY (p_queue_ids) AND h.minute >= queen.stats_bucket(p_from, p_minutes) AND h.minute <= p_to
     GROUP BY h.minute
  ), per_bucket AS (
    SELECT queen.stats_bucket(m.minute, p_minutes) AS b, sum(m.pushed) AS pushed, sum(m.popped) AS popped,
           sum(m.acked) AS acked, sum(m.dead_lettered) AS dead_lettered, round(avg(m.pending)) AS pending,
           round(avg(m.processing)) AS processing, max(m.dead_letter) AS dead_letter,
           max(m.lag_seconds) AS lag_seconds
      FROM per_minute m GROUP BY 1
  )
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'timestamp', queen.iso_millis(b.b),
           'pushed', coalesce(p.pushed, 0), 'popped', coalesce(p.popped, 0), 'acked', coalesce(p.acked, 0),
           'failed', coalesce(p.dead_lettered, 0),
           'pushedPerSecond', round(coalesce(p.pushed, 0) / (p_minutes * 60.0), 3),
           'ackedPerSecond', round(coalesce(p.acked, 0) / (p_minutes * 60.0), 3),
           'pending', p.pending, 'processing', p.processing, 'deadLetter', p.dead_letter,
           'lagSeconds', round(p.lag_seconds::numeric, 3)) ORDER BY b.b), '[]'::jsonb)
    FROM buckets b LEFT JOIN per_bucket p ON p.b = b.b
$$;
COMMENT ON FUNCTION queen.stats_series(uuid[], timestamptz, timestamptz, int) IS
  'Time series of the given queues over [p_from, p_to] in p_minutes buckets: pushed, popped, acked, failed (dead-lettered) and their per-second rates summed, pending/processing averaged, deadLetter and lagSeconds (oldest pending message) at their maximum; null gauges where no refresh fell in the bucket.';

-- Per-partition counters of one page of a queue's partitions (by name), computed
-- now from last_seq, the cursors and a few index probes per partition: the page
-- bounds the work, whatever the number of partitions of the queue.
CREATE FUNCTION queen.stats_partitions(p_queue_id uuid, p_limit int, p_offset int)
RETURNS TABLE (id uuid, name text, created_at timestamptz, total bigint, pending bigint, processing bigint,
               completed bigint, dead_letter bigint, consumed bigint, oldest_message_at timestamptz,
               newest_message_at timestamptz, oldest_pending_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT p.id, p.name, p.created_at, p.last_seq,
         p.last_seq - coalesce(c.min_cursor, 0), coalesce(c.in_flight, 0), coalesce(c.min_cursor, 0),
         (SELECT count(*) FROM queen.dlq d WHERE d.partition_id = p.id),
         coalesce(c.consumed, 0),
         (SELECT m.created_at FROM queen.messages m WHERE m.partition_id = p.id ORDER BY m.seq LIMIT 1),
         p.last_message_at,
         (SELECT m.created_at FROM queen.messages m
           WHERE m.partition_id = p.id AND m.seq > coalesce(c.min_cursor, 0) ORDER BY m.seq LIMIT 1)
    FROM (SELECT * FROM queen.partitions p WHERE p.queue_id = p_queue_id
           ORDER BY p.name LIMIT p_limit OFFSET p_offset) p
    LEFT JOIN LATERAL (
      SELECT min(least(c.cursor_seq, p.last_seq)) AS min_cursor,
             sum(least(c.cursor_seq, p.last_seq)) AS consumed,
             sum(CASE WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()
                      THEN greatest(c.lease_count - c.lease_acked, 0) ELSE 0 END) AS in_flight
        FROM queen.consumers c WHERE c.partition_id = p.id
    ) c ON true
   ORDER BY p.name
$$;
COMMENT ON FUNCTION queen.stats_partitions(uuid, int, int) IS
  'Live counters of one page (p_limit partitions from p_offset, by name) of one queue''s partitions (same definitions as queen.queue_stats) with each one''s oldest stored, newest and oldest pending message times.';

CREATE FUNCTION queen.stats_counters(p_total numeric, p_pending numeric, p_processing numeric, p_completed numeric,
                                     p_dead_letter numeric) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('total', coalesce(p_total, 0)::bigint, 'pending', coalesce(p_pending, 0)::bigint,
                            'processing', coalesce(p_processing, 0)::bigint, 'completed', coalesce(p_completed, 0)::bigint,
                            'failed', coalesce(p_dead_letter, 0)::bigint, 'deadLetter', coalesce(p_dead_letter, 0)::bigint)
$$;
COMMENT ON FUNCTION queen.stats_counters(numeric, numeric, numeric, numeric, numeric) IS
  'The counters object {total, pending, processing, completed, failed, deadLetter} (failed = dead-lettered).';

-- Seconds since the stalest of the given stats rows was refreshed (null: none).
CREATE FUNCTION queen.stats_age_seconds(p_oldest_update timestamptz) RETURNS numeric
LANGUAGE sql STABLE AS $$
  SELECT round(extract(epoch FROM clock_timestamp() - p_oldest_update)::numeric, 3)
$$;
COMMENT ON FUNCTION queen.stats_age_seconds(timestamptz) IS
  'Seconds elapsed since p_oldest_update (null stays null): the statsAge of the responses.';

COMMIT;
