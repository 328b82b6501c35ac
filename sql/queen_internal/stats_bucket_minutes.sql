CREATE OR REPLACE FUNCTION queen_internal.stats_bucket_minutes(p_from timestamp with time zone, p_to timestamp with time zone)
 RETURNS integer
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT CASE
    WHEN p_to - p_from <= interval '1 hour' THEN 1
    WHEN p_to - p_from <= interval '6 hours' THEN 5
    WHEN p_to - p_from <= interval '1 day' THEN 15
    WHEN p_to - p_from <= interval '7 days' THEN 60
    WHEN p_to - p_from <= interval '31 days' THEN 360
    ELSE 1440 END
$function$;

COMMENT ON FUNCTION queen_internal.stats_bucket_minutes(p_from timestamp with time zone, p_to timestamp with time zone) IS 'Bucket width in minutes for a time-series window: 1 up to an hour, 5 up to 6 hours, 15 up to a day, 60 up to 7 days, 360 up to 31 days, 1440 beyond.';
