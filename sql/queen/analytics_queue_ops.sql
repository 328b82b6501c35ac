CREATE OR REPLACE FUNCTION queen.analytics_queue_ops(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT queen_internal.analytics_per_queue(p_tenant, p_params,
                                   ARRAY['pushed', 'popped', 'acked', 'failed', 'pushedPerSecond', 'ackedPerSecond'])
$function$;

COMMENT ON FUNCTION queen.analytics_queue_ops(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/queue-ops: per queue, bucketed pushed, popped, acked and failed (dead-lettered) counts and rates.';
GRANT EXECUTE ON FUNCTION queen.analytics_queue_ops(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
