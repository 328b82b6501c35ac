CREATE OR REPLACE FUNCTION queen_internal.job_cycle(p_cycle_ms bigint, p_at timestamp with time zone DEFAULT clock_timestamp())
 RETURNS bigint
 LANGUAGE plpgsql IMMUTABLE AS $function$
BEGIN
  PERFORM queen_internal.check_at_least('cycle length ms', p_cycle_ms, 1);
  RETURN floor(extract(epoch FROM p_at) * 1000 / p_cycle_ms)::bigint;
END;
$function$;

COMMENT ON FUNCTION queen_internal.job_cycle(p_cycle_ms bigint, p_at timestamp with time zone) IS 'The cycle number containing p_at for a job of period p_cycle_ms: floor(epoch_ms / p_cycle_ms). 22023 when p_cycle_ms < 1.';
