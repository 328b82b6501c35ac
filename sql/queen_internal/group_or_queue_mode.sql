CREATE OR REPLACE FUNCTION queen_internal.group_or_queue_mode(p_group text)
 RETURNS text
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT coalesce(nullif(p_group, ''), queen_internal.queue_mode_group()) $function$;

COMMENT ON FUNCTION queen_internal.group_or_queue_mode(p_group text) IS 'The consumer group a request names, or queue mode''s when it names none (null or empty).';
