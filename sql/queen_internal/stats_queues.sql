CREATE OR REPLACE FUNCTION queen_internal.stats_queues(p_tenant text, p_params jsonb)
 RETURNS SETOF queen.queues
 LANGUAGE sql STABLE AS $function$
  SELECT q.* FROM queen.queues q
   WHERE q.tenant = queen_internal.tenant_arg(p_tenant)
     AND (p_params->>'queue' IS NULL OR q.name = p_params->>'queue')
     AND (p_params->>'namespace' IS NULL OR q.namespace = p_params->>'namespace')
     AND (p_params->>'task' IS NULL OR q.task = p_params->>'task')
$function$;

COMMENT ON FUNCTION queen_internal.stats_queues(p_tenant text, p_params jsonb) IS 'Queues of tenant p_tenant matching the queue, namespace and task filters of p_params (absent = any).';
