CREATE OR REPLACE FUNCTION queen_internal.stats_age_seconds(p_oldest_update timestamp with time zone)
 RETURNS numeric
 LANGUAGE sql STABLE AS $function$
  SELECT round(extract(epoch FROM clock_timestamp() - p_oldest_update)::numeric, 3)
$function$;

COMMENT ON FUNCTION queen_internal.stats_age_seconds(p_oldest_update timestamp with time zone) IS 'Seconds elapsed since p_oldest_update (null stays null): the statsAge of the responses.';
