CREATE OR REPLACE FUNCTION queen_internal.name_max_chars()
 RETURNS integer
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT 255 $function$;

COMMENT ON FUNCTION queen_internal.name_max_chars() IS 'The longest name (queue, partition, consumer group, KV key), in characters: 255.';
