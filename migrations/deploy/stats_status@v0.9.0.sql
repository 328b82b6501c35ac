-- Deploy queen:stats_status to pg
-- GET /api/v1/status*: the dashboard's status pages (overview, queues, one queue, its messages, analytics) over a time range.
-- Over the helpers of stats_views (queen.stats_time_range and the rest).

BEGIN;

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
  v_ids uuid[];
  v_series jsonb;
BEGIN
  w := queen.stats_time_range(p_params, interval '1 hour');
  SELECT coalesce(array_agg(q.id), '{}') INTO v_ids FROM queen.stats_queues(p_tenant, p_params) q;
  v_series := queen.stats_series(v_ids, w.from_at, w.to_at, w.bucket_minutes);
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
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
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
  w := queen.stats_time_range(p_params, interval '1 hour');
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
      'timeRange', w.time_range,
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
  w := queen.stats_time_range(p_params, interval '24 hours');
  v_minutes := CASE v_interval WHEN 'minute' THEN 1 WHEN 'day' THEN 1440 ELSE 60 END;
  IF v_interval NOT IN ('minute', 'hour', 'day') THEN
    v_interval := 'hour';
  END IF;
  -- Bounded points: a too fine interval for the window is widened.
  v_minutes := greatest(v_minutes, w.bucket_minutes / 4, 1);
  WHILE extract(epoch FROM w.to_at - w.from_at) / 60 / v_minutes > 1500 LOOP
    v_minutes := v_minutes * 2;
  END LOOP;
  SELECT coalesce(array_agg(q.id), '{}') INTO v_ids FROM queen.stats_queues(p_tenant, p_params) q;
  v_series := queen.stats_series(v_ids, w.from_at, w.to_at, v_minutes);
  RETURN jsonb_build_object(
    'timeRange', w.time_range,
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

COMMIT;
