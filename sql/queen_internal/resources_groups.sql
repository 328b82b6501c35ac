CREATE OR REPLACE FUNCTION queen_internal.resources_groups(p_tenant text, p_by text)
 RETURNS jsonb
 LANGUAGE sql STABLE AS $function$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           p_by, g.key, 'queues', g.queues, 'partitions', g.partitions,
           'messages', jsonb_build_object('total', g.total, 'pending', g.pending)) ORDER BY g.key), '[]'::jsonb)
    FROM (SELECT CASE p_by WHEN 'namespace' THEN q.namespace ELSE q.task END AS key, count(*) AS queues,
                 coalesce(sum(s.partitions), 0) AS partitions, coalesce(sum(s.total), 0) AS total,
                 coalesce(sum(s.pending), 0) AS pending
            FROM queen_internal.stats_queues(p_tenant, '{}') q
            LEFT JOIN queen.queue_stats s ON s.queue_id = q.id
           WHERE CASE p_by WHEN 'namespace' THEN q.namespace ELSE q.task END <> ''
           GROUP BY 1) g
$function$;

COMMENT ON FUNCTION queen_internal.resources_groups(p_tenant text, p_by text) IS 'The tenant''s queues grouped by namespace or task (p_by): [{<p_by>, queues, partitions, messages {total, pending}}]; queues without one are left out.';
