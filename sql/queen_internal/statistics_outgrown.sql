-- The rule, apart so it can be tested without committed rows: a table counted at -1 rows was never analyzed.
CREATE OR REPLACE FUNCTION queen_internal.statistics_outgrown(p_live_rows bigint, p_counted_rows real, p_min_rows bigint)
 RETURNS boolean
 LANGUAGE sql IMMUTABLE AS $function$
  SELECT p_live_rows >= 2 * greatest(p_counted_rows, 0)::bigint + p_min_rows
$function$;

COMMENT ON FUNCTION queen_internal.statistics_outgrown(p_live_rows bigint, p_counted_rows real, p_min_rows bigint) IS 'Internal to analyze_grown_tables: whether a table of p_live_rows rows whose statistics counted p_counted_rows (pg_class.reltuples; -1 = never) is due for ANALYZE: at least twice the count plus p_min_rows.';
