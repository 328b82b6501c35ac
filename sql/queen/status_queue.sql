CREATE OR REPLACE FUNCTION queen.status_queue(p_tenant text, p_params jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  WITH q AS (SELECT * FROM queen.queues q
              WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_params->>'queue'),
  p AS (SELECT x.* FROM q, queen_internal.stats_partitions(q.id, (p_params->>'limit')::int, (p_params->>'offset')::int) x),
  t AS (SELECT s.* FROM q, queen_internal.compute_queue_stats(q.id) s),
  groups AS (SELECT c.partition_id, count(*) AS n,
                    count(*) FILTER (WHERE c.lease_id IS NOT NULL AND c.lease_expires_at > clock_timestamp()) AS leased
               FROM queen.consumers c WHERE c.partition_id IN (SELECT id FROM p) GROUP BY c.partition_id)
  SELECT jsonb_build_object(
    'queue', jsonb_build_object(
      'id', q.id, 'name', q.name, 'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
      'createdAt', queen_internal.iso_millis(q.created_at), 'updatedAt', queen_internal.iso_millis(q.updated_at),
      'config', jsonb_build_object(
        'leaseTime', q.lease_time, 'retryLimit', q.retry_limit, 'retryDelay', q.retry_delay_ms,
        'priority', q.priority, 'delayedProcessing', q.delayed_processing, 'windowBuffer', q.window_buffer,
        'maxSize', q.max_size, 'ttl', q.ttl, 'retentionEnabled', q.retention_enabled,
        'retentionSeconds', q.retention_seconds, 'completedRetentionSeconds', q.completed_retention_seconds,
        'maxWaitTimeSeconds', q.max_wait_time_seconds, 'deadLetterQueue', q.dead_letter_queue,
        'dlqAfterMaxRetries', q.dlq_after_max_retries, 'encryptionEnabled', q.encryption_enabled)),
    'partitions', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'createdAt', queen_internal.iso_millis(p.created_at),
        'messages', queen_internal.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
        'consumerGroups', coalesce(g.n, 0), 'activeLeases', coalesce(g.leased, 0),
        'lagSeconds', round(coalesce(greatest(extract(epoch FROM clock_timestamp() - p.oldest_pending_at), 0), 0)::numeric, 3),
        'oldestMessage', queen_internal.iso_millis(p.oldest_message_at), 'newestMessage', queen_internal.iso_millis(p.newest_message_at))
        ORDER BY p.name) FROM p LEFT JOIN groups g ON g.partition_id = p.id), '[]'::jsonb),
    'pagination', jsonb_build_object('limit', (p_params->>'limit')::int, 'offset', (p_params->>'offset')::int,
                                     'total', (SELECT t.partitions FROM t)),
    'totals', (SELECT queen_internal.stats_counters(t.total, t.pending, t.processing, t.completed, t.dead_letter)
                      || jsonb_build_object('partitions', t.partitions) FROM t))
    FROM q
$function$;

COMMENT ON FUNCTION queen.status_queue(p_tenant text, p_params jsonb) IS 'GET /api/v1/status/queues/:queue (p_params.queue, limit, offset): {queue {…, config}, partitions [one page by name: live counters, consumer groups, active leases, lag], pagination {limit, offset, total partitions}, totals of the whole queue computed now}; null when the tenant has no such queue.';
GRANT EXECUTE ON FUNCTION queen.status_queue(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
