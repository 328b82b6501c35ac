-- Deploy queen:stats_views to pg
-- The read side of the statistics (docs/operations-stats.md): one function per
-- status, resources and analytics route, each taking the requester's tenant
-- and the route's parameters as a JSON object and returning the response
-- body. Counters come from queen.queue_stats, time series from
-- queen.queue_stats_minutes and queen.broker_stats_minutes; nothing here reads
-- more of queen.messages than a few index probes per partition of one queue.
--
-- Parameters (absent or null = default): fromMs, toMs (epoch milliseconds),
-- queue, namespace, task, search, hostname, workerId, interval, limit, offset.

BEGIN;

-- The time window of a time-series request: [fromMs, toMs], defaulting to the
-- p_default_span before now. 22023 when from is after to.
CREATE FUNCTION queen.stats_window(p_params jsonb, p_default_span interval, OUT from_at timestamptz,
                                   OUT to_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
  to_at := coalesce('epoch'::timestamptz + (p_params->>'toMs')::bigint * interval '1 millisecond', clock_timestamp());
  from_at := coalesce('epoch'::timestamptz + (p_params->>'fromMs')::bigint * interval '1 millisecond',
                      to_at - p_default_span);
  IF from_at > to_at THEN
    RAISE EXCEPTION 'from must not be after to' USING ERRCODE = '22023';
  END IF;
END;
$$;
COMMENT ON FUNCTION queen.stats_window(jsonb, interval) IS
  'The [from, to] window of a time-series request (fromMs/toMs epoch ms; to defaults to now, from to p_default_span before to). 22023 when from is after to.';

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

-- ------------------------------------------------------------------ resources

CREATE FUNCTION queen.resources_overview(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH q AS (SELECT * FROM queen.stats_queues(p_tenant, '{}')),
  s AS (SELECT s.*, extract(epoch FROM clock_timestamp() - s.oldest_pending_at) AS lag_s
          FROM queen.queue_stats s JOIN q ON q.id = s.queue_id),
  recent AS (
    SELECT coalesce(sum(h.pushed), 0) AS pushed, coalesce(sum(h.acked), 0) AS acked
      FROM queen.queue_stats_minutes h JOIN q ON q.id = h.queue_id
     WHERE h.minute >= date_trunc('minute', clock_timestamp()) - interval '5 minutes'
  )
  SELECT jsonb_build_object(
    'queues', (SELECT count(*) FROM q),
    'partitions', (SELECT coalesce(sum(partitions), 0) FROM s),
    'namespaces', (SELECT count(DISTINCT namespace) FROM q WHERE namespace <> ''),
    'tasks', (SELECT count(DISTINCT task) FROM q WHERE task <> ''),
    'messages', (SELECT queen.stats_counters(sum(total), sum(pending), sum(processing), sum(completed),
                                             sum(dead_letter))::jsonb FROM s),
    'lag', jsonb_build_object(
      'time', (SELECT jsonb_build_object(
                 'avg', round(coalesce(avg(coalesce(lag_s, 0)), 0)::numeric, 3),
                 'median', round(coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY coalesce(lag_s, 0)), 0)::numeric, 3),
                 'min', round(coalesce(min(coalesce(lag_s, 0)), 0)::numeric, 3),
                 'max', round(coalesce(max(coalesce(lag_s, 0)), 0)::numeric, 3)) FROM s),
      'offset', (SELECT jsonb_build_object(
                   'avg', round(coalesce(avg(pending), 0), 3),
                   'median', coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY pending), 0),
                   'min', coalesce(min(pending), 0), 'max', coalesce(max(pending), 0)) FROM s)),
    'throughput', (SELECT jsonb_build_object('ingestedPerSecond', round(pushed / 300.0, 3),
                                             'processedPerSecond', round(acked / 300.0, 3)) FROM recent),
    'timestamp', queen.iso_millis(clock_timestamp()),
    'statsAge', (SELECT queen.stats_age_seconds(min(updated_at)) FROM s))
$$;
COMMENT ON FUNCTION queen.resources_overview(text, jsonb) IS
  'GET /api/v1/resources/overview for tenant p_tenant: counts of queues, partitions, namespaces and tasks, message counters, lag (time in seconds, offset in messages) over queues, throughput of the last 5 minutes, timestamp and statsAge (seconds since the stalest refresh).';

CREATE FUNCTION queen.resources_queues(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH q AS (
    SELECT q.* FROM queen.stats_queues(p_tenant, p_params - 'queue') q
     WHERE p_params->>'search' IS NULL
        OR strpos(lower(q.name), lower(p_params->>'search')) > 0
  ), page AS (
    SELECT q.*, s.partitions AS n_partitions, s.total, s.pending, s.processing
      FROM q LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
     ORDER BY q.created_at DESC, q.id DESC
     LIMIT coalesce((p_params->>'limit')::int, 100) OFFSET coalesce((p_params->>'offset')::int, 0)
  )
  SELECT jsonb_build_object(
    'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'namespace', nullif(p.namespace, ''), 'task', nullif(p.task, ''),
        'createdAt', queen.iso_millis(p.created_at),
        'partitions', coalesce(p.n_partitions, (SELECT count(*) FROM queen.partitions x WHERE x.queue_id = p.id)),
        'messages', jsonb_build_object('total', coalesce(p.total, 0), 'pending', coalesce(p.pending, 0),
                                       'processing', coalesce(p.processing, 0)))
        ORDER BY p.created_at DESC, p.id DESC) FROM page p), '[]'::jsonb),
    'total', (SELECT count(*) FROM q),
    'pagination', jsonb_build_object('limit', coalesce((p_params->>'limit')::int, 100),
                                     'offset', coalesce((p_params->>'offset')::int, 0)))
$$;
COMMENT ON FUNCTION queen.resources_queues(text, jsonb) IS
  'GET /api/v1/resources/queues: the tenant''s queues (namespace, task and search = case-insensitive substring of the name filters), newest first, paged by limit (default 100) and offset, with partitions and message counters from queue_stats; total = matching queues.';

CREATE FUNCTION queen.resources_queue(p_tenant text, p_params jsonb) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH q AS (SELECT * FROM queen.queues q
              WHERE q.tenant = queen.tenant_arg(p_tenant) AND q.name = p_params->>'queue'),
  p AS (SELECT x.* FROM q, queen.stats_partitions(q.id, (p_params->>'limit')::int, (p_params->>'offset')::int) x),
  t AS (SELECT s.* FROM q, queen.compute_queue_stats(q.id) s)
  SELECT jsonb_build_object(
    'id', q.id, 'name', q.name, 'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
    'createdAt', queen.iso_millis(q.created_at),
    'partitions', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'createdAt', queen.iso_millis(p.created_at),
        'stats', queen.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
        'oldestMessage', queen.iso_millis(p.oldest_message_at), 'newestMessage', queen.iso_millis(p.newest_message_at))
        ORDER BY p.name) FROM p), '[]'::jsonb),
    'pagination', jsonb_build_object('limit', (p_params->>'limit')::int, 'offset', (p_params->>'offset')::int,
                                     'total', (SELECT t.partitions FROM t)),
    'totals', (SELECT queen.stats_counters(t.total, t.pending, t.processing, t.completed, t.dead_letter) FROM t))
    FROM q
$$;
COMMENT ON FUNCTION queen.resources_queue(text, jsonb) IS
  'GET /api/v1/resources/queues/:queue (p_params.queue, limit, offset): the queue with one page of its partitions (by name) and their live counters (total, pending, processing, completed, failed, deadLetter) and oldest/newest message times, pagination {limit, offset, total partitions}, and the whole queue''s totals computed now (compute_queue_stats); null when the tenant has no such queue.';

CREATE FUNCTION queen.resources_groups(p_tenant text, p_by text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           p_by, g.key, 'queues', g.queues, 'partitions', g.partitions,
           'messages', jsonb_build_object('total', g.total, 'pending', g.pending)) ORDER BY g.key), '[]'::jsonb)
    FROM (SELECT CASE p_by WHEN 'namespace' THEN q.namespace ELSE q.task END AS key, count(*) AS queues,
                 coalesce(sum(s.partitions), 0) AS partitions, coalesce(sum(s.total), 0) AS total,
                 coalesce(sum(s.pending), 0) AS pending
            FROM queen.stats_queues(p_tenant, '{}') q
            LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
           WHERE CASE p_by WHEN 'namespace' THEN q.namespace ELSE q.task END <> ''
           GROUP BY 1) g
$$;
COMMENT ON FUNCTION queen.resources_groups(text, text) IS
  'The tenant''s queues grouped by namespace or task (p_by): [{<p_by>, queues, partitions, messages {total, pending}}]; queues without one are left out.';

CREATE FUNCTION queen.resources_namespaces(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$ SELECT jsonb_build_object('namespaces', queen.resources_groups(p_tenant, 'namespace')) $$;
COMMENT ON FUNCTION queen.resources_namespaces(text, jsonb) IS
  'GET /api/v1/resources/namespaces: {"namespaces": [{namespace, queues, partitions, messages {total, pending}}]}.';

CREATE FUNCTION queen.resources_tasks(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$ SELECT jsonb_build_object('tasks', queen.resources_groups(p_tenant, 'task')) $$;
COMMENT ON FUNCTION queen.resources_tasks(text, jsonb) IS
  'GET /api/v1/resources/tasks: {"tasks": [{task, queues, partitions, messages {total, pending}}]}.';

-- --------------------------------------------------------------------- status

-- The brokers seen in [p_from, p_to] with their figures summed over it.
CREATE FUNCTION queen.stats_workers(p_from timestamptz, p_to timestamptz) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'workerId', w.server_id, 'hostname', w.hostname, 'port', w.port,
           'lastSeen', queen.iso_millis(w.last_minute + interval '1 minute'),
           'requests', w.requests, 'pushMessages', w.push_messages, 'popMessages', w.pop_messages,
           'ackMessages', w.ack_messages, 'ackFailed', w.ack_failed, 'dbErrors', w.db_errors,
           'poolSize', w.pool_size, 'poolInUse', w.pool_in_use, 'parkedPops', w.parked_pops)
           ORDER BY w.server_id), '[]'::jsonb)
    FROM (SELECT b.server_id, max(b.minute) AS last_minute,
                 (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
                 (array_agg(b.port ORDER BY b.minute DESC))[1] AS port,
                 sum(b.requests) AS requests, sum(b.push_messages) AS push_messages,
                 sum(b.pop_messages) AS pop_messages, sum(b.ack_messages) AS ack_messages,
                 sum(b.ack_failed) AS ack_failed, sum(b.db_errors) AS db_errors,
                 (array_agg(b.pool_size ORDER BY b.minute DESC))[1] AS pool_size,
                 (array_agg(b.pool_in_use ORDER BY b.minute DESC))[1] AS pool_in_use,
                 (array_agg(b.parked_pops ORDER BY b.minute DESC))[1] AS parked_pops
            FROM queen.broker_stats_minutes b
           WHERE b.minute >= date_trunc('minute', p_from) AND b.minute <= p_to
           GROUP BY b.server_id) w
$$;
COMMENT ON FUNCTION queen.stats_workers(timestamptz, timestamptz) IS
  'Brokers with figures in [p_from, p_to]: counters summed over the window, gauges of their newest minute.';

CREATE FUNCTION queen.status_overview(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_minutes int;
  v_ids uuid[];
  v_series jsonb;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  v_minutes := queen.stats_bucket_minutes(w.from_at, w.to_at);
  SELECT coalesce(array_agg(q.id), '{}') INTO v_ids FROM queen.stats_queues(p_tenant, p_params) q;
  v_series := queen.stats_series(v_ids, w.from_at, w.to_at, v_minutes);
  RETURN (
    WITH s AS (SELECT s.*, q.name, q.namespace, q.task FROM queen.queue_stats s
                 JOIN queen.queues q ON q.id = s.queue_id WHERE s.queue_id = ANY (v_ids)),
    moved AS (SELECT h.queue_id, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
                     sum(h.dead_lettered) AS failed
                FROM queen.queue_stats_minutes h
               WHERE h.queue_id = ANY (v_ids) AND h.minute >= date_trunc('minute', w.from_at) AND h.minute <= w.to_at
               GROUP BY h.queue_id),
    brokers AS (SELECT coalesce(sum(b.requests), 0) AS requests, coalesce(sum(b.push_requests), 0) AS push_requests,
                       coalesce(sum(b.push_messages), 0) AS push_messages, coalesce(sum(b.db_errors), 0) AS db_errors,
                       coalesce(sum(b.ack_failed), 0) AS ack_failed
                  FROM queen.broker_stats_minutes b
                 WHERE b.minute >= date_trunc('minute', w.from_at) AND b.minute <= w.to_at),
    leases AS (SELECT count(*) AS partitions_with_leases, coalesce(sum(c.lease_count), 0) AS batch,
                      coalesce(sum(c.lease_acked), 0) AS acked,
                      coalesce(sum(greatest(c.lease_count - c.lease_acked, 0)), 0) AS active
                 FROM queen.consumers c
                WHERE c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp() AND c.queue_id = ANY (v_ids))
    SELECT jsonb_build_object(
      'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
      'bucketMinutes', v_minutes,
      'pointCount', jsonb_array_length(v_series),
      'throughput', v_series,
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
          'id', s.queue_id, 'name', s.name, 'namespace', nullif(s.namespace, ''), 'task', nullif(s.task, ''),
          'partitions', s.partitions,
          'messages', queen.stats_counters(s.total, s.pending, s.processing, s.completed, s.dead_letter),
          'pushed', coalesce(m.pushed, 0), 'popped', coalesce(m.popped, 0), 'acked', coalesce(m.acked, 0),
          'failed', coalesce(m.failed, 0)) ORDER BY s.name)
          FROM s LEFT JOIN moved m ON m.queue_id = s.queue_id), '[]'::jsonb),
      'messages', (SELECT queen.stats_counters(sum(total)::bigint, sum(pending)::bigint, sum(processing)::bigint,
                                               sum(completed)::bigint, sum(dead_letter)::bigint) FROM s)
                  || (SELECT jsonb_build_object(
                        'requests', requests,
                        'batchEfficiency', CASE WHEN push_requests > 0 THEN round(push_messages::numeric / push_requests, 3)
                                                ELSE 0 END) FROM brokers),
      'leases', (SELECT jsonb_build_object('active', active, 'partitionsWithLeases', partitions_with_leases,
                                           'totalBatchSize', batch, 'totalAcked', acked) FROM leases),
      'deadLetterQueue', jsonb_build_object(
          'total', (SELECT coalesce(sum(dead_letter), 0) FROM s),
          'addedInRange', (SELECT coalesce(sum(failed), 0) FROM moved)),
      'workers', queen.stats_workers(w.from_at, w.to_at),
      'errors', (SELECT jsonb_build_object('dbErrors', db_errors, 'ackFailed', ack_failed,
                                           'total', db_errors + ack_failed) FROM brokers),
      'statsAge', (SELECT queen.stats_age_seconds(min(updated_at)) FROM s))
  );
END;
$$;
COMMENT ON FUNCTION queen.status_overview(text, jsonb) IS
  'GET /api/v1/status (from/to default the last hour; queue, namespace, task filters): timeRange, bucketMinutes, pointCount, throughput[] (stats_series), queues[] with counters and window totals, messages (counters, requests, batchEfficiency = pushed messages per push request), leases (live), deadLetterQueue, workers[] (brokers), errors (broker database errors and failed acks in the window), statsAge.';

CREATE FUNCTION queen.status_queues(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_limit int := coalesce((p_params->>'limit')::int, 100);
  v_offset int := coalesce((p_params->>'offset')::int, 0);
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  RETURN (
    WITH q AS (SELECT * FROM queen.stats_queues(p_tenant, p_params - 'queue')),
    page AS (SELECT q.*, s.partitions AS n_partitions, s.total, s.pending, s.processing, s.completed,
                    s.dead_letter, s.consumer_groups, s.oldest_pending_at, s.updated_at AS stats_at
               FROM q LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
              ORDER BY q.name LIMIT v_limit OFFSET v_offset),
    moved AS (SELECT h.queue_id, sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
                     sum(h.dead_lettered) AS failed
                FROM queen.queue_stats_minutes h
               WHERE h.queue_id IN (SELECT id FROM page) AND h.minute >= date_trunc('minute', w.from_at)
                 AND h.minute <= w.to_at
               GROUP BY h.queue_id)
    SELECT jsonb_build_object(
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
          'id', p.id, 'name', p.name, 'namespace', nullif(p.namespace, ''), 'task', nullif(p.task, ''),
          'createdAt', queen.iso_millis(p.created_at),
          'partitions', coalesce(p.n_partitions, 0), 'consumerGroups', coalesce(p.consumer_groups, 0),
          'messages', queen.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
          'throughput', jsonb_build_object('pushed', coalesce(m.pushed, 0), 'popped', coalesce(m.popped, 0),
                                           'acked', coalesce(m.acked, 0), 'failed', coalesce(m.failed, 0)),
          'lag', jsonb_build_object(
              'offset', coalesce(p.pending, 0),
              'timeSeconds', round(coalesce(greatest(extract(epoch FROM clock_timestamp() - p.oldest_pending_at), 0), 0)::numeric, 3)),
          'statsAge', queen.stats_age_seconds(p.stats_at)) ORDER BY p.name)
          FROM page p LEFT JOIN moved m ON m.queue_id = p.id), '[]'::jsonb),
      'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
      'pagination', jsonb_build_object('limit', v_limit, 'offset', v_offset, 'total', (SELECT count(*) FROM q)))
  );
END;
$$;
COMMENT ON FUNCTION queen.status_queues(text, jsonb) IS
  'GET /api/v1/status/queues: the tenant''s queues (namespace, task filters) by name, paged by limit (100) and offset, with counters, throughput in the window (default the last hour), lag and statsAge; pagination {limit, offset, total}.';

CREATE FUNCTION queen.status_queue(p_tenant text, p_params jsonb) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  WITH q AS (SELECT * FROM queen.queues q
              WHERE q.tenant = queen.tenant_arg(p_tenant) AND q.name = p_params->>'queue'),
  p AS (SELECT x.* FROM q, queen.stats_partitions(q.id, (p_params->>'limit')::int, (p_params->>'offset')::int) x),
  t AS (SELECT s.* FROM q, queen.compute_queue_stats(q.id) s),
  groups AS (SELECT c.partition_id, count(*) AS n,
                    count(*) FILTER (WHERE c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()) AS leased
               FROM queen.consumers c WHERE c.partition_id IN (SELECT id FROM p) GROUP BY c.partition_id)
  SELECT jsonb_build_object(
    'queue', jsonb_build_object(
      'id', q.id, 'name', q.name, 'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
      'createdAt', queen.iso_millis(q.created_at), 'updatedAt', queen.iso_millis(q.updated_at),
      'config', jsonb_build_object(
        'leaseTime', q.lease_time, 'retryLimit', q.retry_limit, 'retryDelay', q.retry_delay_ms,
        'priority', q.priority, 'delayedProcessing', q.delayed_processing, 'windowBuffer', q.window_buffer,
        'maxSize', q.max_size, 'ttl', q.ttl, 'retentionEnabled', q.retention_enabled,
        'retentionSeconds', q.retention_seconds, 'completedRetentionSeconds', q.completed_retention_seconds,
        'maxWaitTimeSeconds', q.max_wait_time_seconds, 'deadLetterQueue', q.dead_letter_queue,
        'dlqAfterMaxRetries', q.dlq_after_max_retries, 'encryptionEnabled', q.encryption_enabled)),
    'partitions', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'createdAt', queen.iso_millis(p.created_at),
        'messages', queen.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
        'consumerGroups', coalesce(g.n, 0), 'activeLeases', coalesce(g.leased, 0),
        'lagSeconds', round(coalesce(greatest(extract(epoch FROM clock_timestamp() - p.oldest_pending_at), 0), 0)::numeric, 3),
        'oldestMessage', queen.iso_millis(p.oldest_message_at), 'newestMessage', queen.iso_millis(p.newest_message_at))
        ORDER BY p.name) FROM p LEFT JOIN groups g ON g.partition_id = p.id), '[]'::jsonb),
    'pagination', jsonb_build_object('limit', (p_params->>'limit')::int, 'offset', (p_params->>'offset')::int,
                                     'total', (SELECT t.partitions FROM t)),
    'totals', (SELECT queen.stats_counters(t.total, t.pending, t.processing, t.completed, t.dead_letter)
                      || jsonb_build_object('partitions', t.partitions) FROM t))
    FROM q
$$;
COMMENT ON FUNCTION queen.status_queue(text, jsonb) IS
  'GET /api/v1/status/queues/:queue (p_params.queue, limit, offset): {queue {…, config}, partitions [one page by name: live counters, consumer groups, active leases, lag], pagination {limit, offset, total partitions}, totals of the whole queue computed now}; null when the tenant has no such queue.';

CREATE FUNCTION queen.status_queue_messages(p_tenant text, p_params jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_queue queen.queues;
  v_limit int := coalesce((p_params->>'limit')::int, 50);
  v_offset int := coalesce((p_params->>'offset')::int, 0);
BEGIN
  SELECT * INTO v_queue FROM queen.queues q
   WHERE q.tenant = queen.tenant_arg(p_tenant) AND q.name = p_params->>'queue';
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  RETURN (
    -- The newest limit+offset messages lie in the limit+offset partitions with the newest
    -- last_message_at; of each, the newest limit+offset (messages_pkey backwards), then merged.
    WITH newest_partitions AS (
      SELECT p.id, p.name FROM queen.partitions p
       WHERE p.queue_id = v_queue.id AND p.last_message_at IS NOT NULL
       ORDER BY p.last_message_at DESC LIMIT v_limit + v_offset
    ), candidates AS (
      SELECT p.id AS partition_id, p.name AS partition_name, m.*
        FROM newest_partitions p
        CROSS JOIN LATERAL (
          SELECT m.seq, m.id, m.transaction_id, m.trace_id, m.producer_sub, m.created_at
            FROM queen.messages m WHERE m.partition_id = p.id
           ORDER BY m.seq DESC LIMIT v_limit + v_offset) m
    ), page AS (
      SELECT * FROM candidates ORDER BY created_at DESC, id DESC LIMIT v_limit OFFSET v_offset
    )
    SELECT jsonb_build_object(
      'messages', coalesce(jsonb_agg(jsonb_build_object(
          'id', x.id, 'transactionId', x.transaction_id, 'partitionId', x.partition_id,
          'queuePath', v_queue.name || '/' || x.partition_name, 'queue', v_queue.name, 'partition', x.partition_name,
          'traceId', x.trace_id, 'producerSub', x.producer_sub,
          'status', CASE
             WHEN EXISTS (SELECT 1 FROM queen.dlq d WHERE d.message_id = x.id) THEN 'dead_letter'
             WHEN c.cursor_seq >= x.seq THEN 'completed'
             WHEN c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp() AND x.seq <= c.lease_max_seq
               THEN 'processing'
             ELSE 'pending' END,
          'createdAt', queen.iso_millis(x.created_at)) ORDER BY x.created_at DESC, x.id DESC), '[]'::jsonb),
      'pagination', jsonb_build_object('limit', v_limit, 'offset', v_offset))
      FROM page x
      LEFT JOIN queen.consumers c ON c.partition_id = x.partition_id AND c.consumer_group = '__QUEUE_MODE__'
  );
END;
$$;
COMMENT ON FUNCTION queen.status_queue_messages(text, jsonb) IS
  'GET /api/v1/status/queues/:queue/messages: the newest messages of the queue (limit 50, offset 0), each with its queue-mode status (completed, processing, pending, dead_letter); reads at most limit+offset rows of each of the limit+offset partitions with the newest messages, through messages_pkey. Null when the tenant has no such queue.';

CREATE FUNCTION queen.status_analytics(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_interval text := coalesce(p_params->>'interval', 'hour');
  v_minutes int;
  v_ids uuid[];
  v_series jsonb;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '24 hours');
  v_minutes := CASE v_interval WHEN 'minute' THEN 1 WHEN 'day' THEN 1440 ELSE 60 END;
  IF v_interval NOT IN ('minute', 'hour', 'day') THEN
    v_interval := 'hour';
  END IF;
  -- Bounded points: a too fine interval for the window is widened.
  v_minutes := greatest(v_minutes, queen.stats_bucket_minutes(w.from_at, w.to_at) / 4, 1);
  WHILE extract(epoch FROM w.to_at - w.from_at) / 60 / v_minutes > 1500 LOOP
    v_minutes := v_minutes * 2;
  END LOOP;
  SELECT coalesce(array_agg(q.id), '{}') INTO v_ids FROM queen.stats_queues(p_tenant, p_params) q;
  v_series := queen.stats_series(v_ids, w.from_at, w.to_at, v_minutes);
  RETURN jsonb_build_object(
    'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
    'from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at),
    'interval', v_interval, 'bucketMinutes', v_minutes,
    'dataPoints', (SELECT coalesce(jsonb_agg(e || jsonb_build_object('messages', e->'pushed')), '[]'::jsonb)
                     FROM jsonb_array_elements(v_series) e),
    'totals', (SELECT jsonb_build_object('pushed', coalesce(sum((e->>'pushed')::bigint), 0),
                                         'popped', coalesce(sum((e->>'popped')::bigint), 0),
                                         'acked', coalesce(sum((e->>'acked')::bigint), 0),
                                         'failed', coalesce(sum((e->>'failed')::bigint), 0))
                 FROM jsonb_array_elements(v_series) e));
END;
$$;
COMMENT ON FUNCTION queen.status_analytics(text, jsonb) IS
  'GET /api/v1/status/analytics (from default 24 h before to; queue, namespace, task; interval minute|hour|day, default hour, widened so that a response has at most 1500 points): dataPoints [{timestamp, messages (= pushed), pushed, popped, acked, failed, …}], totals.';

-- ------------------------------------------------------------------ analytics

CREATE FUNCTION queen.analytics_system_metrics(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_minutes int;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  v_minutes := queen.stats_bucket_minutes(w.from_at, w.to_at);
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen.stats_bucket(b.minute, v_minutes) AS bucket,
             (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
             (array_agg(b.port ORDER BY b.minute DESC))[1] AS port,
             count(*) AS samples, sum(b.requests) AS requests, sum(b.db_errors) AS db_errors,
             sum(b.cpu_user_us) AS cpu_user_us, sum(b.cpu_system_us) AS cpu_system_us,
             round(avg(b.rss_bytes)) AS rss_avg, max(b.rss_bytes) AS rss_max,
             max(b.pool_size) AS pool_size, round(avg(b.pool_in_use), 2) AS pool_in_use_avg,
             max(b.pool_in_use) AS pool_in_use_max, max(b.pool_waiting) AS pool_waiting_max
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= queen.stats_bucket(w.from_at, v_minutes) AND b.minute <= w.to_at
         AND (p_params->>'workerId' IS NULL OR b.server_id = p_params->>'workerId')
         AND (p_params->>'hostname' IS NULL OR b.hostname = p_params->>'hostname')
       GROUP BY 1, 2
    ), r AS (
      SELECT b.server_id, max(b.hostname) AS hostname, max(b.port) AS port,
             jsonb_agg(jsonb_build_object(
               'timestamp', queen.iso_millis(b.bucket), 'sampleCount', b.samples,
               'metrics', jsonb_build_object(
                 'requests', b.requests, 'requestsPerSecond', round(b.requests / (v_minutes * 60.0), 3),
                 'dbErrors', b.db_errors,
                 'cpu', jsonb_build_object('userUs', b.cpu_user_us, 'systemUs', b.cpu_system_us,
                                           'percent', round((b.cpu_user_us + b.cpu_system_us) / (v_minutes * 600000.0), 2)),
                 'memory', jsonb_build_object('rssBytes', jsonb_build_object('avg', b.rss_avg, 'max', b.rss_max)),
                 'database', jsonb_build_object('poolSize', b.pool_size,
                                                'poolInUse', jsonb_build_object('avg', b.pool_in_use_avg, 'max', b.pool_in_use_max),
                                                'poolWaitingMax', b.pool_waiting_max)))
               ORDER BY b.bucket) AS series
        FROM b GROUP BY b.server_id
    )
    SELECT jsonb_build_object(
      'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
      'bucketMinutes', v_minutes,
      'replicas', coalesce((SELECT jsonb_agg(jsonb_build_object('hostname', r.hostname, 'port', r.port,
                                                                'workerId', r.server_id, 'timeSeries', r.series)
                                             ORDER BY r.server_id) FROM r), '[]'::jsonb),
      'replicaCount', (SELECT count(*) FROM r),
      'pointCount', (SELECT count(*) FROM b))
  );
END;
$$;
COMMENT ON FUNCTION queen.analytics_system_metrics(text, jsonb) IS
  'GET /api/v1/analytics/system-metrics (from/to default the last hour; hostname, workerId = server id filters): per broker, bucketed requests, database errors, CPU, memory and pool figures. Broker-wide figures (not per tenant).';

CREATE FUNCTION queen.analytics_worker_metrics(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_minutes int;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  v_minutes := queen.stats_bucket_minutes(w.from_at, w.to_at);
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen.stats_bucket(b.minute, v_minutes) AS bucket,
             (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
             sum(b.push_requests) AS push_requests, sum(b.push_messages) AS push_messages,
             sum(b.pop_requests) AS pop_requests, sum(b.pop_messages) AS pop_messages,
             sum(b.ack_messages) AS ack_messages, sum(b.ack_failed) AS ack_failed,
             max(b.parked_pops) AS parked_pops, (array_agg(b.lanes ORDER BY b.minute DESC))[1] AS lanes
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= queen.stats_bucket(w.from_at, v_minutes) AND b.minute <= w.to_at
         AND (p_params->>'workerId' IS NULL OR b.server_id = p_params->>'workerId')
         AND (p_params->>'hostname' IS NULL OR b.hostname = p_params->>'hostname')
       GROUP BY 1, 2
    ), r AS (
      SELECT b.server_id, max(b.hostname) AS hostname,
             jsonb_agg(jsonb_build_object(
               'timestamp', queen.iso_millis(b.bucket),
               'pushRequests', b.push_requests, 'pushMessages', b.push_messages,
               'popRequests', b.pop_requests, 'popMessages', b.pop_messages,
               'ackMessages', b.ack_messages, 'ackFailed', b.ack_failed,
               'batchEfficiency', CASE WHEN b.push_requests > 0 THEN round(b.push_messages::numeric / b.push_requests, 3) ELSE 0 END,
               'parkedPopsMax', b.parked_pops, 'lanes', b.lanes) ORDER BY b.bucket) AS series
        FROM b GROUP BY b.server_id
    )
    SELECT jsonb_build_object(
      'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
      'bucketMinutes', v_minutes,
      'workers', coalesce((SELECT jsonb_agg(jsonb_build_object('workerId', r.server_id, 'hostname', r.hostname,
                                                               'timeSeries', r.series) ORDER BY r.server_id) FROM r),
                          '[]'::jsonb),
      'pointCount', (SELECT count(*) FROM b))
  );
END;
$$;
COMMENT ON FUNCTION queen.analytics_worker_metrics(text, jsonb) IS
  'GET /api/v1/analytics/worker-metrics (from/to default the last hour; hostname, workerId filters): per broker, bucketed push/pop/ack request and message counts, batch efficiency, parked pops and admission lanes. Broker-wide figures.';

CREATE FUNCTION queen.analytics_postgres_stats(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'database', (SELECT jsonb_build_object(
        'name', d.datname, 'sizeBytes', pg_database_size(d.datid), 'connections', d.numbackends,
        'transactionsCommitted', d.xact_commit, 'transactionsRolledBack', d.xact_rollback,
        'blocksRead', d.blks_read, 'blocksHit', d.blks_hit,
        'cacheHitRatio', round(d.blks_hit::numeric / nullif(d.blks_hit + d.blks_read, 0), 4),
        'deadlocks', d.deadlocks, 'tempBytes', d.temp_bytes)
      FROM pg_stat_database d WHERE d.datname = current_database()),
    'connections', (SELECT jsonb_build_object(
        'total', count(*), 'active', count(*) FILTER (WHERE state = 'active'),
        'idle', count(*) FILTER (WHERE state = 'idle'),
        'idleInTransaction', count(*) FILTER (WHERE state LIKE 'idle in transaction%'),
        'waiting', count(*) FILTER (WHERE wait_event_type = 'Lock'))
      FROM pg_stat_activity WHERE datname = current_database()),
    'tables', (SELECT coalesce(jsonb_agg(jsonb_build_object(
        'table', t.relname, 'liveRows', t.n_live_tup, 'deadRows', t.n_dead_tup,
        'sizeBytes', pg_total_relation_size(t.relid), 'sequentialScans', t.seq_scan, 'indexScans', t.idx_scan,
        'lastAutovacuum', queen.iso_millis(t.last_autovacuum)) ORDER BY pg_total_relation_size(t.relid) DESC), '[]'::jsonb)
      FROM pg_stat_user_tables t WHERE t.schemaname = 'queen'),
    'serverVersion', current_setting('server_version'),
    'timestamp', queen.iso_millis(clock_timestamp()))
$$;
COMMENT ON FUNCTION queen.analytics_postgres_stats(text, jsonb) IS
  'GET /api/v1/analytics/postgres-stats: the database (size, connections, commits, cache hit ratio), connections by state, and the queen tables (estimated live/dead rows from the statistics collector, size). Database-wide figures.';

-- Per-queue series for the queue-lag and queue-ops routes: one grouped pass over the
-- minutes of the window (no per-queue call), buckets without a refresh left out.
CREATE FUNCTION queen.analytics_per_queue(p_tenant text, p_params jsonb, p_fields text[]) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_minutes int;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  v_minutes := queen.stats_bucket_minutes(w.from_at, w.to_at);
  RETURN (
    WITH q AS (SELECT id, name FROM queen.stats_queues(p_tenant, p_params)),
    b AS (
      SELECT h.queue_id, queen.stats_bucket(h.minute, v_minutes) AS bucket,
             sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
             sum(h.dead_lettered) AS failed, round(avg(h.pending)) AS pending,
             round(avg(h.processing)) AS processing, max(h.lag_seconds) AS lag_seconds
        FROM queen.queue_stats_minutes h
       WHERE h.queue_id IN (SELECT id FROM q)
         AND h.minute >= queen.stats_bucket(w.from_at, v_minutes) AND h.minute <= w.to_at
       GROUP BY 1, 2
    ), points AS (
      SELECT b.queue_id, b.bucket, jsonb_build_object(
               'timestamp', queen.iso_millis(b.bucket), 'pushed', b.pushed, 'popped', b.popped, 'acked', b.acked,
               'failed', b.failed, 'pushedPerSecond', round(b.pushed / (v_minutes * 60.0), 3),
               'ackedPerSecond', round(b.acked / (v_minutes * 60.0), 3), 'pending', b.pending,
               'processing', b.processing, 'lagSeconds', round(b.lag_seconds::numeric, 3)) AS point
        FROM b
    ), per AS (
      SELECT p.queue_id,
             jsonb_agg((SELECT jsonb_object_agg(k, p.point->k) FROM unnest(p_fields || ARRAY['timestamp']) k)
                       ORDER BY p.bucket) AS series
        FROM points p GROUP BY p.queue_id
    )
    SELECT jsonb_build_object(
      'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
      'bucketMinutes', v_minutes,
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object('queue', q.name, 'series', per.series) ORDER BY q.name)
                            FROM per JOIN q ON q.id = per.queue_id), '[]'::jsonb))
  );
END;
$$;
COMMENT ON FUNCTION queen.analytics_per_queue(text, jsonb, text[]) IS
  'Per queue of the tenant (queue, namespace, task filters) with history in the window (default the last hour): its bucketed points (buckets in which the reconciler refreshed it) reduced to the fields p_fields and timestamp.';

CREATE FUNCTION queen.analytics_queue_lag(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT queen.analytics_per_queue(p_tenant, p_params, ARRAY['pending', 'processing', 'lagSeconds'])
$$;
COMMENT ON FUNCTION queen.analytics_queue_lag(text, jsonb) IS
  'GET /api/v1/analytics/queue-lag: per queue, bucketed pending, processing and lagSeconds (age of the oldest pending message).';

CREATE FUNCTION queen.analytics_queue_ops(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT queen.analytics_per_queue(p_tenant, p_params,
                                   ARRAY['pushed', 'popped', 'acked', 'failed', 'pushedPerSecond', 'ackedPerSecond'])
$$;
COMMENT ON FUNCTION queen.analytics_queue_ops(text, jsonb) IS
  'GET /api/v1/analytics/queue-ops: per queue, bucketed pushed, popped, acked and failed (dead-lettered) counts and rates.';

CREATE FUNCTION queen.analytics_parked_replicas(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
  v_minutes int;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  v_minutes := queen.stats_bucket_minutes(w.from_at, w.to_at);
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen.stats_bucket(b.minute, v_minutes) AS bucket, max(b.parked_pops) AS parked
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= queen.stats_bucket(w.from_at, v_minutes) AND b.minute <= w.to_at
       GROUP BY 1, 2
    )
    SELECT jsonb_build_object(
      'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
      'bucketMinutes', v_minutes,
      'replicas', coalesce((SELECT jsonb_agg(jsonb_build_object('workerId', r.server_id, 'series', r.series)
                                             ORDER BY r.server_id)
                              FROM (SELECT server_id, jsonb_agg(jsonb_build_object(
                                      'timestamp', queen.iso_millis(bucket), 'parkedPops', parked) ORDER BY bucket) AS series
                                      FROM b GROUP BY server_id) r), '[]'::jsonb))
  );
END;
$$;
COMMENT ON FUNCTION queen.analytics_parked_replicas(text, jsonb) IS
  'GET /api/v1/analytics/queue-parked-replicas: per broker, the most long polls parked at a flush in each bucket (brokers count parked pops as a whole, not per queue, so the queue filter does not apply).';

CREATE FUNCTION queen.analytics_retention(p_tenant text, p_params jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w record;
BEGIN
  SELECT * INTO w FROM queen.stats_window(p_params, interval '1 hour');
  RETURN jsonb_build_object(
    'timeRange', jsonb_build_object('from', queen.iso_millis(w.from_at), 'to', queen.iso_millis(w.to_at)),
    'jobs', coalesce((SELECT jsonb_agg(jsonb_build_object('job', j.job, 'runs', j.runs) ORDER BY j.job)
                        FROM (SELECT r.job, jsonb_agg(jsonb_build_object(
                                       'timestamp', queen.iso_millis(r.started_at), 'serverId', r.server_id,
                                       'rows', coalesce((r.result->>'rows')::bigint, 0),
                                       'complete', (r.result->>'complete')::boolean,
                                       'durationMs', round(extract(epoch FROM r.finished_at - r.started_at)::numeric * 1000, 3))
                                     ORDER BY r.started_at) AS runs
                                FROM queen.job_runs r
                               WHERE r.job IN ('retention', 'eviction', 'stats_reconcile')
                                 AND r.started_at >= w.from_at AND r.started_at <= w.to_at
                               GROUP BY r.job) j), '[]'::jsonb),
    'queues', coalesce((SELECT jsonb_agg(jsonb_build_object(
                 'queue', q.name, 'retentionEnabled', q.retention_enabled, 'retentionSeconds', q.retention_seconds,
                 'completedRetentionSeconds', q.completed_retention_seconds, 'ttl', q.ttl,
                 'maxWaitTimeSeconds', q.max_wait_time_seconds) ORDER BY q.name)
                          FROM queen.stats_queues(p_tenant, p_params) q), '[]'::jsonb));
END;
$$;
COMMENT ON FUNCTION queen.analytics_retention(text, jsonb) IS
  'GET /api/v1/analytics/retention (from/to default the last hour; queue filter): the runs of the retention, eviction and stats_reconcile jobs in the window (rows handled, duration, broker; cluster-wide) and the retention options of the tenant''s queues.';

COMMIT;
