CREATE OR REPLACE FUNCTION queen.timer_queue_names(p_ids bigint[])
 RETURNS SETOF text
 LANGUAGE sql STABLE SECURITY DEFINER SET search_path TO 'pg_catalog', 'queen', 'queen_internal', 'pg_temp' AS $function$
  SELECT DISTINCT t.queue_name FROM queen.timers t WHERE t.id = ANY (p_ids) ORDER BY 1
$function$;

COMMENT ON FUNCTION queen.timer_queue_names(p_ids bigint[]) IS 'Distinct queue names of the timers p_ids (absent ids are ignored). Read by a sweeper before it fires its claimed timers, to wake the long polls of those queues.';
GRANT EXECUTE ON FUNCTION queen.timer_queue_names(p_ids bigint[]) TO queen_admin, queen_broker, queen_reader;
