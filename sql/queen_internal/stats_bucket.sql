CREATE OR REPLACE FUNCTION queen_internal.stats_bucket(p_at timestamp with time zone, p_minutes integer)
 RETURNS timestamp with time zone
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT 'epoch'::timestamptz
         + floor(extract(epoch FROM p_at) / (p_minutes * 60)) * (p_minutes * 60) * interval '1 second'
$function$;

COMMENT ON FUNCTION queen_internal.stats_bucket(p_at timestamp with time zone, p_minutes integer) IS 'Start of the p_minutes-wide bucket (aligned on the epoch) containing p_at.';
