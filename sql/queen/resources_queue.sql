CREATE OR REPLACE FUNCTION queen.resources_queue(p_tenant text, p_params jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  WITH q AS (SELECT * FROM queen.queues q
              WHERE q.tenant = queen_internal.tenant_arg(p_tenant) AND q.name = p_params->>'queue'),
  p AS (SELECT x.* FROM q, queen_internal.stats_partitions(q.id, (p_params->>'limit')::int, (p_params->>'offset')::int) x),
  t AS (SELECT s.* FROM q, queen_internal.compute_queue_stats(q.id) s)
  SELECT jsonb_build_object(
    'id', q.id, 'name', q.name, 'namespace', nullif(q.namespace, ''), 'task', nullif(q.task, ''),
    'createdAt', queen_internal.iso_millis(q.created_at),
    'partitions', coalesce((SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'createdAt', queen_internal.iso_millis(p.created_at),
        'stats', queen_internal.stats_counters(p.total, p.pending, p.processing, p.completed, p.dead_letter),
        'oldestMessage', queen_internal.iso_millis(p.oldest_message_at), 'newestMessage', queen_internal.iso_millis(p.newest_message_at))
        ORDER BY p.name) FROM p), '[]'::jsonb),
    'pagination', jsonb_build_object('limit', (p_params->>'limit')::int, 'offset', (p_params->>'offset')::int,
                                     'total', (SELECT t.partitions FROM t)),
    'totals', (SELECT queen_internal.stats_counters(t.total, t.pending, t.processing, t.completed, t.dead_letter) FROM t))
    FROM q
$function$;

COMMENT ON FUNCTION queen.resources_queue(p_tenant text, p_params jsonb) IS 'GET /api/v1/resources/queues/:queue (p_params.queue, limit, offset): the queue with one page of its partitions (by name) and their live counters (total, pending, processing, completed, failed, deadLetter) and oldest/newest message times, pagination {limit, offset, total partitions}, and the whole queue''s totals computed now (compute_queue_stats); null when the tenant has no such queue.';
GRANT EXECUTE ON FUNCTION queen.resources_queue(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
