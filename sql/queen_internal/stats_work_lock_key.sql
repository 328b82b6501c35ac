CREATE OR REPLACE FUNCTION queen_internal.stats_work_lock_key()
 RETURNS bigint
 LANGUAGE sql IMMUTABLE AS $function$ SELECT queen_internal.job_lock_key('stats_reconcile:work') $function$;

COMMENT ON FUNCTION queen_internal.stats_work_lock_key() IS 'The pg_advisory_xact_lock key held while statistics are written (reconcile_stats, refresh_stats).';
