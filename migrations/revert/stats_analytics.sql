-- Revert queen:stats_analytics from pg (back to stats_analytics@v0.9.0: the pre-release functions, owned by the reverting user)

BEGIN;

SET LOCAL check_function_bodies = off;

DROP FUNCTION
  queen.analytics_system_metrics(text,jsonb),
  queen.analytics_worker_metrics(text,jsonb),
  queen.analytics_postgres_stats(text,jsonb),
  queen_internal.analytics_per_queue(text,jsonb,text[]),
  queen.analytics_queue_lag(text,jsonb),
  queen.analytics_queue_ops(text,jsonb),
  queen.analytics_parked_replicas(text,jsonb),
  queen.analytics_retention(text,jsonb);

CREATE OR REPLACE FUNCTION queen.analytics_system_metrics(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  w record;
BEGIN
  w := queen.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen.stats_bucket(b.minute, w.bucket_minutes) AS bucket,
             (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
             (array_agg(b.port ORDER BY b.minute DESC))[1] AS port,
             count(*) AS samples, sum(b.requests) AS requests, sum(b.db_errors) AS db_errors,
             sum(b.cpu_user_us) AS cpu_user_us, sum(b.cpu_system_us) AS cpu_system_us,
             round(avg(b.rss_bytes)) AS rss_avg, max(b.rss_bytes) AS rss_max,
             max(b.pool_size) AS pool_size, round(avg(b.pool_in_use), 2) AS pool_in_use_avg,
             max(b.pool_in_use) AS pool_in_use_max, max(b.pool_waiting) AS pool_waiting_max
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= w.first_bucket AND b.minute <= w.to_at
         AND (p_params->>'workerId' IS NULL OR b.server_id = p_params->>'workerId')
         AND (p_params->>'hostname' IS NULL OR b.hostname = p_params->>'hostname')
       GROUP BY 1, 2
    ), r AS (
      SELECT b.server_id, max(b.hostname) AS hostname, max(b.port) AS port,
             jsonb_agg(jsonb_build_object(
               'timestamp', queen.iso_millis(b.bucket), 'sampleCount', b.samples,
               'metrics', jsonb_build_object(
                 'requests', b.requests, 'requestsPerSecond', round(b.requests / (w.bucket_minutes * 60.0), 3),
                 'dbErrors', b.db_errors,
                 'cpu', jsonb_build_object('userUs', b.cpu_user_us, 'systemUs', b.cpu_system_us,
                                           'percent', round((b.cpu_user_us + b.cpu_system_us) / (w.bucket_minutes * 600000.0), 2)),
                 'memory', jsonb_build_object('rssBytes', jsonb_build_object('avg', b.rss_avg, 'max', b.rss_max)),
                 'database', jsonb_build_object('poolSize', b.pool_size,
                                                'poolInUse', jsonb_build_object('avg', b.pool_in_use_avg, 'max', b.pool_in_use_max),
                                                'poolWaitingMax', b.pool_waiting_max)))
               ORDER BY b.bucket) AS series
        FROM b GROUP BY b.server_id
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'replicas', coalesce((SELECT jsonb_agg(jsonb_build_object('hostname', r.hostname, 'port', r.port,
                                                                'workerId', r.server_id, 'timeSeries', r.series)
                                             ORDER BY r.server_id) FROM r), '[]'::jsonb),
      'replicaCount', (SELECT count(*) FROM r),
      'pointCount', (SELECT count(*) FROM b))
  );
END;
$function$;
COMMENT ON FUNCTION queen.analytics_system_metrics(text,jsonb) IS
  'GET /api/v1/analytics/system-metrics (from/to default the last hour; hostname, workerId = server id filters): per broker, bucketed requests, database errors, CPU, memory and pool figures. Broker-wide figures (not per tenant).';

CREATE OR REPLACE FUNCTION queen.analytics_worker_metrics(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  w record;
BEGIN
  w := queen.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen.stats_bucket(b.minute, w.bucket_minutes) AS bucket,
             (array_agg(b.hostname ORDER BY b.minute DESC))[1] AS hostname,
             sum(b.push_requests) AS push_requests, sum(b.push_messages) AS push_messages,
             sum(b.pop_requests) AS pop_requests, sum(b.pop_messages) AS pop_messages,
             sum(b.ack_messages) AS ack_messages, sum(b.ack_failed) AS ack_failed,
             max(b.parked_pops) AS parked_pops, (array_agg(b.lanes ORDER BY b.minute DESC))[1] AS lanes
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= w.first_bucket AND b.minute <= w.to_at
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
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'workers', coalesce((SELECT jsonb_agg(jsonb_build_object('workerId', r.server_id, 'hostname', r.hostname,
                                                               'timeSeries', r.series) ORDER BY r.server_id) FROM r),
                          '[]'::jsonb),
      'pointCount', (SELECT count(*) FROM b))
  );
END;
$function$;
COMMENT ON FUNCTION queen.analytics_worker_metrics(text,jsonb) IS
  'GET /api/v1/analytics/worker-metrics (from/to default the last hour; hostname, workerId filters): per broker, bucketed push/pop/ack request and message counts, batch efficiency, parked pops and admission lanes. Broker-wide figures.';

CREATE OR REPLACE FUNCTION queen.analytics_postgres_stats(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION queen.analytics_postgres_stats(text,jsonb) IS
  'GET /api/v1/analytics/postgres-stats: the database (size, connections, commits, cache hit ratio), connections by state, and the queen tables (estimated live/dead rows from the statistics collector, size). Database-wide figures.';

CREATE OR REPLACE FUNCTION queen.analytics_per_queue(p_tenant text, p_params jsonb, p_fields text[])
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  w record;
BEGIN
  w := queen.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH q AS (SELECT id, name FROM queen.stats_queues(p_tenant, p_params)),
    b AS (
      SELECT h.queue_id, queen.stats_bucket(h.minute, w.bucket_minutes) AS bucket,
             sum(h.pushed) AS pushed, sum(h.popped) AS popped, sum(h.acked) AS acked,
             sum(h.dead_lettered) AS failed, round(avg(h.pending)) AS pending,
             round(avg(h.processing)) AS processing, max(h.lag_seconds) AS lag_seconds
        FROM queen.queue_stats_minutes h
       WHERE h.queue_id IN (SELECT id FROM q)
         AND h.minute >= w.first_bucket AND h.minute <= w.to_at
       GROUP BY 1, 2
    ), points AS (
      SELECT b.queue_id, b.bucket, jsonb_build_object(
               'timestamp', queen.iso_millis(b.bucket), 'pushed', b.pushed, 'popped', b.popped, 'acked', b.acked,
               'failed', b.failed, 'pushedPerSecond', round(b.pushed / (w.bucket_minutes * 60.0), 3),
               'ackedPerSecond', round(b.acked / (w.bucket_minutes * 60.0), 3), 'pending', b.pending,
               'processing', b.processing, 'lagSeconds', round(b.lag_seconds::numeric, 3)) AS point
        FROM b
    ), per AS (
      SELECT p.queue_id,
             jsonb_agg((SELECT jsonb_object_agg(k, p.point->k) FROM unnest(p_fields || ARRAY['timestamp']) k)
                       ORDER BY p.bucket) AS series
        FROM points p GROUP BY p.queue_id
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'queues', coalesce((SELECT jsonb_agg(jsonb_build_object('queue', q.name, 'series', per.series) ORDER BY q.name)
                            FROM per JOIN q ON q.id = per.queue_id), '[]'::jsonb))
  );
END;
$function$;
COMMENT ON FUNCTION queen.analytics_per_queue(text,jsonb,text[]) IS
  'Per queue of the tenant (queue, namespace, task filters) with history in the window (default the last hour): its bucketed points (buckets in which the reconciler refreshed it) reduced to the fields p_fields and timestamp.';

CREATE OR REPLACE FUNCTION queen.analytics_queue_lag(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT queen.analytics_per_queue(p_tenant, p_params, ARRAY['pending', 'processing', 'lagSeconds'])
$function$;
COMMENT ON FUNCTION queen.analytics_queue_lag(text,jsonb) IS
  'GET /api/v1/analytics/queue-lag: per queue, bucketed pending, processing and lagSeconds (age of the oldest pending message).';

CREATE OR REPLACE FUNCTION queen.analytics_queue_ops(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT queen.analytics_per_queue(p_tenant, p_params,
                                   ARRAY['pushed', 'popped', 'acked', 'failed', 'pushedPerSecond', 'ackedPerSecond'])
$function$;
COMMENT ON FUNCTION queen.analytics_queue_ops(text,jsonb) IS
  'GET /api/v1/analytics/queue-ops: per queue, bucketed pushed, popped, acked and failed (dead-lettered) counts and rates.';

CREATE OR REPLACE FUNCTION queen.analytics_parked_replicas(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  w record;
BEGIN
  w := queen.stats_time_range(p_params, interval '1 hour');
  RETURN (
    WITH b AS (
      SELECT b.server_id, queen.stats_bucket(b.minute, w.bucket_minutes) AS bucket, max(b.parked_pops) AS parked
        FROM queen.broker_stats_minutes b
       WHERE b.minute >= w.first_bucket AND b.minute <= w.to_at
       GROUP BY 1, 2
    )
    SELECT jsonb_build_object(
      'timeRange', w.time_range,
      'bucketMinutes', w.bucket_minutes,
      'replicas', coalesce((SELECT jsonb_agg(jsonb_build_object('workerId', r.server_id, 'series', r.series)
                                             ORDER BY r.server_id)
                              FROM (SELECT server_id, jsonb_agg(jsonb_build_object(
                                      'timestamp', queen.iso_millis(bucket), 'parkedPops', parked) ORDER BY bucket) AS series
                                      FROM b GROUP BY server_id) r), '[]'::jsonb))
  );
END;
$function$;
COMMENT ON FUNCTION queen.analytics_parked_replicas(text,jsonb) IS
  'GET /api/v1/analytics/queue-parked-replicas: per broker, the most long polls parked at a flush in each bucket (brokers count parked pops as a whole, not per queue, so the queue filter does not apply).';

CREATE OR REPLACE FUNCTION queen.analytics_retention(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  w record;
BEGIN
  w := queen.stats_time_range(p_params, interval '1 hour');
  RETURN jsonb_build_object(
    'timeRange', w.time_range,
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
$function$;
COMMENT ON FUNCTION queen.analytics_retention(text,jsonb) IS
  'GET /api/v1/analytics/retention (from/to default the last hour; queue filter): the runs of the retention, eviction and stats_reconcile jobs in the window (rows handled, duration, broker; cluster-wide) and the retention options of the tenant''s queues.';

COMMIT;
