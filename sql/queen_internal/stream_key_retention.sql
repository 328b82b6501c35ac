CREATE OR REPLACE FUNCTION queen_internal.stream_key_retention()
 RETURNS interval
 LANGUAGE sql IMMUTABLE AS $function$ SELECT interval '1 day' $function$;

COMMENT ON FUNCTION queen_internal.stream_key_retention() IS 'How long a committed cycle''s idempotency key is remembered.';
