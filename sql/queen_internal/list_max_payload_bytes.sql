CREATE OR REPLACE FUNCTION queen_internal.list_max_payload_bytes()
 RETURNS bigint
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$
  SELECT 4194304::bigint
$function$;

COMMENT ON FUNCTION queen_internal.list_max_payload_bytes() IS 'Default payload byte budget of one listing (4 MiB) when the caller passes none.';
