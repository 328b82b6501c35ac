CREATE OR REPLACE FUNCTION queen_internal.queue_namespace_of(p_queue text)
 RETURNS text
 LANGUAGE sql IMMUTABLE STRICT AS $function$ SELECT split_part(p_queue, '.', 1) $function$;

COMMENT ON FUNCTION queen_internal.queue_namespace_of(p_queue text) IS 'Namespace derived from a queue name: the part before the first dot (the whole name without a dot).';
