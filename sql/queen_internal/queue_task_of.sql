CREATE OR REPLACE FUNCTION queen_internal.queue_task_of(p_queue text)
 RETURNS text
 LANGUAGE sql IMMUTABLE STRICT AS $function$
  SELECT CASE WHEN strpos(p_queue, '.') > 0 THEN substr(p_queue, strpos(p_queue, '.') + 1) ELSE '' END
$function$;

COMMENT ON FUNCTION queen_internal.queue_task_of(p_queue text) IS 'Task derived from a queue name: the part after the first dot ('''' without a dot).';
