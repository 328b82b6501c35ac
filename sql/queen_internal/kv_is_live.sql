CREATE OR REPLACE FUNCTION queen_internal.kv_is_live(p_expires_at timestamp with time zone, p_now timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $function$ SELECT p_expires_at IS NULL OR p_expires_at > p_now $function$;

COMMENT ON FUNCTION queen_internal.kv_is_live(p_expires_at timestamp with time zone, p_now timestamp with time zone) IS 'True when a KV row expiring at p_expires_at (null = never) is still live at p_now.';
