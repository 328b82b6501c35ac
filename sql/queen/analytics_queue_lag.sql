CREATE OR REPLACE FUNCTION queen.analytics_queue_lag(p_tenant text, p_params jsonb DEFAULT '{}'::jsonb)
 RETURNS jsonb
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT queen_internal.analytics_per_queue(p_tenant, p_params, ARRAY['pending', 'processing', 'lagSeconds'])
$function$;

COMMENT ON FUNCTION queen.analytics_queue_lag(p_tenant text, p_params jsonb) IS 'GET /api/v1/analytics/queue-lag: per queue, bucketed pending, processing and lagSeconds (age of the oldest pending message).';
GRANT EXECUTE ON FUNCTION queen.analytics_queue_lag(p_tenant text, p_params jsonb) TO queen_admin, queen_broker, queen_reader;
