CREATE OR REPLACE FUNCTION queen_internal.lag_seconds(p_from timestamp with time zone, p_now timestamp with time zone)
 RETURNS bigint
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT coalesce(greatest(floor(extract(epoch FROM p_now - p_from)), 0)::bigint, 0)
$function$;

COMMENT ON FUNCTION queen_internal.lag_seconds(p_from timestamp with time zone, p_now timestamp with time zone) IS 'Whole seconds between p_from and p_now (never negative); 0 when p_from is null.';
