CREATE OR REPLACE FUNCTION queen.resources_queues(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  WITH q AS (
    SELECT q.* FROM queen_internal.stats_queues(p_tenant, p_params - 'queue') q
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
        'createdAt', queen_internal.iso_millis(p.created_at),
        'partitions', coalesce(p.n_partitions, (SELECT count(*) FROM queen.partitions x WHERE x.queue_id = p.id)),
        'messages', jsonb_build_object('total', coalesce(p.total, 0), 'pending', coalesce(p.pending, 0),
                                       'processing', coalesce(p.processing, 0)))
        ORDER BY p.created_at DESC, p.id DESC) FROM page p), '[]'::jsonb),
    'total', (SELECT count(*) FROM q),
    'pagination', jsonb_build_object('limit', coalesce((p_params->>'limit')::int, 100),
                                     'offset', coalesce((p_params->>'offset')::int, 0)))
$function$;

COMMENT ON FUNCTION queen.resources_queues(p_tenant text, p_params jsonb) IS 'GET /api/v1/resources/queues: the tenant''s queues (namespace, task and search = case-insensitive substring of the name filters), newest first, paged by limit (default 100) and offset, with partitions and message counters from queue_stats; total = matching queues.';
GRANT EXECUTE ON FUNCTION queen.resources_queues(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
